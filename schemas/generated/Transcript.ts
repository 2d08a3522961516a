// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type Transcript = DevEarshotEvents.Transcript;

export namespace DevEarshotEvents {
    export const WordTimingSchema = "{\"type\":\"record\",\"name\":\"WordTiming\",\"fields\":[{\"name\":\"word\",\"type\":\"string\"},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"confidence\",\"type\":[\"null\",\"double\"],\"default\":null}]}";
    export const WordTimingName = "dev.earshot.events.WordTiming";
    export interface WordTiming {
        word: string;
        start_seconds: number;
        end_seconds: number;
        /**
         * Default: null
         */
        confidence: null | number;
    }
    export const TranscriptLineSchema = "{\"type\":\"record\",\"name\":\"TranscriptLine\",\"fields\":[{\"name\":\"number\",\"type\":\"int\"},{\"name\":\"speaker\",\"type\":\"string\",\"doc\":\"diarization label, e.g. SPEAKER_1\"},{\"name\":\"role\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"HOST, GUEST, ... when the source knows it\"},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"text\",\"type\":\"string\"},{\"name\":\"words\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"WordTiming\",\"fields\":[{\"name\":\"word\",\"type\":\"string\"},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"confidence\",\"type\":[\"null\",\"double\"],\"default\":null}]}}],\"default\":null}]}";
    export const TranscriptLineName = "dev.earshot.events.TranscriptLine";
    export interface TranscriptLine {
        number: number;
        /**
         * diarization label, e.g. SPEAKER_1
         */
        speaker: string;
        /**
         * HOST, GUEST, ... when the source knows it
         *
         * Default: null
         */
        role: null | string;
        start_seconds: number;
        end_seconds: number;
        text: string;
        /**
         * Default: null
         */
        words: null | DevEarshotEvents.WordTiming[];
    }
    export const TranscriptSchema = "{\"type\":\"record\",\"name\":\"Transcript\",\"namespace\":\"dev.earshot.events\",\"doc\":\"The diarized transcript of one episode. Keyed by episode id.\",\"fields\":[{\"name\":\"episode_id\",\"type\":\"string\"},{\"name\":\"language\",\"type\":\"string\"},{\"name\":\"lines\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"TranscriptLine\",\"fields\":[{\"name\":\"number\",\"type\":\"int\"},{\"name\":\"speaker\",\"type\":\"string\",\"doc\":\"diarization label, e.g. SPEAKER_1\"},{\"name\":\"role\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"HOST, GUEST, ... when the source knows it\"},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"text\",\"type\":\"string\"},{\"name\":\"words\",\"type\":[\"null\",{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"WordTiming\",\"fields\":[{\"name\":\"word\",\"type\":\"string\"},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"confidence\",\"type\":[\"null\",\"double\"],\"default\":null}]}}],\"default\":null}]}}},{\"name\":\"transcribed_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}]}";
    export const TranscriptName = "dev.earshot.events.Transcript";
    /**
     * The diarized transcript of one episode. Keyed by episode id.
     */
    export interface Transcript {
        episode_id: string;
        language: string;
        lines: DevEarshotEvents.TranscriptLine[];
        transcribed_at: number;
    }
}
