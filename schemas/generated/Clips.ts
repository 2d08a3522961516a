// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type Clips = DevEarshotEvents.Clips;

export namespace DevEarshotEvents {
    export const ClipTypeSchema = "{\"type\":\"enum\",\"name\":\"ClipType\",\"symbols\":[\"SPICY\",\"CONTROVERSIAL\",\"EMOTIONAL\",\"FUNNY\",\"SHOCKING\",\"INSIGHTFUL\",\"INFORMATIVE\",\"EDUCATIONAL\",\"PHILOSOPHICAL\",\"AHA_MOMENT\",\"NOTABLE_LINE\",\"BEST_STORY\",\"DEBATE_DISAGREEMENT\"]}";
    export const ClipTypeName = "dev.earshot.events.ClipType";
    export type ClipType = "SPICY" | "CONTROVERSIAL" | "EMOTIONAL" | "FUNNY" | "SHOCKING" | "INSIGHTFUL" | "INFORMATIVE" | "EDUCATIONAL" | "PHILOSOPHICAL" | "AHA_MOMENT" | "NOTABLE_LINE" | "BEST_STORY" | "DEBATE_DISAGREEMENT";
    export const ClipSchema = "{\"type\":\"record\",\"name\":\"Clip\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"type\",\"type\":{\"type\":\"enum\",\"name\":\"ClipType\",\"symbols\":[\"SPICY\",\"CONTROVERSIAL\",\"EMOTIONAL\",\"FUNNY\",\"SHOCKING\",\"INSIGHTFUL\",\"INFORMATIVE\",\"EDUCATIONAL\",\"PHILOSOPHICAL\",\"AHA_MOMENT\",\"NOTABLE_LINE\",\"BEST_STORY\",\"DEBATE_DISAGREEMENT\"]}},{\"name\":\"title\",\"type\":\"string\"},{\"name\":\"description\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"intro_statement\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"engagement_score\",\"type\":\"double\"},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"audio_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"segment_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"speaker\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"diarization label of the main speaker\"}]}";
    export const ClipName = "dev.earshot.events.Clip";
    export interface Clip {
        id: string;
        type: DevEarshotEvents.ClipType;
        title: string;
        /**
         * Default: null
         */
        description: null | string;
        /**
         * Default: null
         */
        intro_statement: null | string;
        engagement_score: number;
        start_seconds: number;
        end_seconds: number;
        /**
         * Default: null
         */
        audio_url: null | string;
        /**
         * Default: null
         */
        segment_id: null | string;
        /**
         * diarization label of the main speaker
         *
         * Default: null
         */
        speaker: null | string;
    }
    export const ClipsSchema = "{\"type\":\"record\",\"name\":\"Clips\",\"namespace\":\"dev.earshot.events\",\"doc\":\"Highlight clips extracted from one episode. Keyed by episode id.\",\"fields\":[{\"name\":\"episode_id\",\"type\":\"string\"},{\"name\":\"clips\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"Clip\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"type\",\"type\":{\"type\":\"enum\",\"name\":\"ClipType\",\"symbols\":[\"SPICY\",\"CONTROVERSIAL\",\"EMOTIONAL\",\"FUNNY\",\"SHOCKING\",\"INSIGHTFUL\",\"INFORMATIVE\",\"EDUCATIONAL\",\"PHILOSOPHICAL\",\"AHA_MOMENT\",\"NOTABLE_LINE\",\"BEST_STORY\",\"DEBATE_DISAGREEMENT\"]}},{\"name\":\"title\",\"type\":\"string\"},{\"name\":\"description\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"intro_statement\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"engagement_score\",\"type\":\"double\"},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"audio_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"segment_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"speaker\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"diarization label of the main speaker\"}]}}}]}";
    export const ClipsName = "dev.earshot.events.Clips";
    /**
     * Highlight clips extracted from one episode. Keyed by episode id.
     */
    export interface Clips {
        episode_id: string;
        clips: DevEarshotEvents.Clip[];
    }
}
