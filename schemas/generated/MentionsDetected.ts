// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type MentionsDetected = DevEarshotEvents.MentionsDetected;

export namespace DevEarshotEvents {
    export const MentionSchema = "{\"type\":\"record\",\"name\":\"Mention\",\"fields\":[{\"name\":\"entity_id\",\"type\":\"string\"},{\"name\":\"line_number\",\"type\":\"int\"},{\"name\":\"speaker\",\"type\":\"string\"},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"variant\",\"type\":\"string\",\"doc\":\"the text as it appeared\"},{\"name\":\"char_start\",\"type\":\"int\"},{\"name\":\"char_end\",\"type\":\"int\"},{\"name\":\"in_ad\",\"type\":\"boolean\"},{\"name\":\"matched\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"the catalog form that matched: the name, an alias, nickname, ticker, domain, handle or known variant; for a phonetic match, the name it sounds like\"},{\"name\":\"match\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"how it matched: name, alias, nickname, ticker, domain, handle, variant (a known misspelling) or phonetic\"}]}";
    export const MentionName = "dev.earshot.events.Mention";
    export interface Mention {
        entity_id: string;
        line_number: number;
        speaker: string;
        start_seconds: number;
        end_seconds: number;
        /**
         * the text as it appeared
         */
        variant: string;
        char_start: number;
        char_end: number;
        in_ad: boolean;
        /**
         * the catalog form that matched: the name, an alias, nickname, ticker, domain, handle or known variant; for a phonetic match, the name it sounds like
         *
         * Default: null
         */
        matched: null | string;
        /**
         * how it matched: name, alias, nickname, ticker, domain, handle, variant (a known misspelling) or phonetic
         *
         * Default: null
         */
        match: null | string;
    }
    export const RelevanceSchema = "{\"type\":\"enum\",\"name\":\"Relevance\",\"symbols\":[\"on_target\",\"incidental\"]}";
    export const RelevanceName = "dev.earshot.events.Relevance";
    export type Relevance = "on_target" | "incidental";
    export const EpisodeEntitySchema = "{\"type\":\"record\",\"name\":\"EpisodeEntity\",\"fields\":[{\"name\":\"entity_id\",\"type\":\"string\"},{\"name\":\"relevance\",\"type\":{\"type\":\"enum\",\"name\":\"Relevance\",\"symbols\":[\"on_target\",\"incidental\"]}},{\"name\":\"mention_count\",\"type\":\"int\"},{\"name\":\"variants\",\"type\":{\"type\":\"array\",\"items\":\"string\"}}]}";
    export const EpisodeEntityName = "dev.earshot.events.EpisodeEntity";
    export interface EpisodeEntity {
        entity_id: string;
        relevance: DevEarshotEvents.Relevance;
        mention_count: number;
        variants: string[];
    }
    export const MentionsDetectedSchema = "{\"type\":\"record\",\"name\":\"MentionsDetected\",\"namespace\":\"dev.earshot.events\",\"doc\":\"Every entity mention found in one episode's transcript. Keyed by episode id; a newer detector run replaces an older one.\",\"fields\":[{\"name\":\"episode_id\",\"type\":\"string\"},{\"name\":\"podcast_id\",\"type\":\"string\"},{\"name\":\"published_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},{\"name\":\"language\",\"type\":\"string\"},{\"name\":\"detector_version\",\"type\":\"string\"},{\"name\":\"mentions\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"Mention\",\"fields\":[{\"name\":\"entity_id\",\"type\":\"string\"},{\"name\":\"line_number\",\"type\":\"int\"},{\"name\":\"speaker\",\"type\":\"string\"},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"variant\",\"type\":\"string\",\"doc\":\"the text as it appeared\"},{\"name\":\"char_start\",\"type\":\"int\"},{\"name\":\"char_end\",\"type\":\"int\"},{\"name\":\"in_ad\",\"type\":\"boolean\"},{\"name\":\"matched\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"the catalog form that matched: the name, an alias, nickname, ticker, domain, handle or known variant; for a phonetic match, the name it sounds like\"},{\"name\":\"match\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"how it matched: name, alias, nickname, ticker, domain, handle, variant (a known misspelling) or phonetic\"}]}}},{\"name\":\"entities\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"EpisodeEntity\",\"fields\":[{\"name\":\"entity_id\",\"type\":\"string\"},{\"name\":\"relevance\",\"type\":{\"type\":\"enum\",\"name\":\"Relevance\",\"symbols\":[\"on_target\",\"incidental\"]}},{\"name\":\"mention_count\",\"type\":\"int\"},{\"name\":\"variants\",\"type\":{\"type\":\"array\",\"items\":\"string\"}}]}}},{\"name\":\"detected_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}]}";
    export const MentionsDetectedName = "dev.earshot.events.MentionsDetected";
    /**
     * Every entity mention found in one episode's transcript. Keyed by episode id; a newer detector run replaces an older one.
     */
    export interface MentionsDetected {
        episode_id: string;
        podcast_id: string;
        published_at: number;
        language: string;
        detector_version: string;
        mentions: DevEarshotEvents.Mention[];
        entities: DevEarshotEvents.EpisodeEntity[];
        detected_at: number;
    }
}
