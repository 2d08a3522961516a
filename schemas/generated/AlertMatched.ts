// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type AlertMatched = DevEarshotEvents.AlertMatched;

export namespace DevEarshotEvents {
    export const AlertKindSchema = "{\"type\":\"enum\",\"name\":\"AlertKind\",\"symbols\":[\"ENTITY_MENTION\",\"PODCAST_SPEAKER\"]}";
    export const AlertKindName = "dev.earshot.events.AlertKind";
    export type AlertKind = "ENTITY_MENTION" | "PODCAST_SPEAKER";
    export const AlertEntityTypeSchema = "{\"type\":\"enum\",\"name\":\"AlertEntityType\",\"symbols\":[\"PERSON\",\"COMPANY\",\"KNOWLEDGE_GRAPH_ENTITY\"]}";
    export const AlertEntityTypeName = "dev.earshot.events.AlertEntityType";
    export type AlertEntityType = "PERSON" | "COMPANY" | "KNOWLEDGE_GRAPH_ENTITY";
    export const MatchRelevanceSchema = "{\"type\":\"enum\",\"name\":\"MatchRelevance\",\"symbols\":[\"on_target\",\"incidental\"]}";
    export const MatchRelevanceName = "dev.earshot.events.MatchRelevance";
    export type MatchRelevance = "on_target" | "incidental";
    export const MatchLineSchema = "{\"type\":\"record\",\"name\":\"MatchLine\",\"fields\":[{\"name\":\"number\",\"type\":\"int\"},{\"name\":\"speaker\",\"type\":\"string\"},{\"name\":\"role\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"text\",\"type\":\"string\"},{\"name\":\"is_mention\",\"type\":\"boolean\"}]}";
    export const MatchLineName = "dev.earshot.events.MatchLine";
    export interface MatchLine {
        number: number;
        speaker: string;
        /**
         * Default: null
         */
        role: null | string;
        start_seconds: number;
        end_seconds: number;
        text: string;
        is_mention: boolean;
    }
    export const MatchWindowSchema = "{\"type\":\"record\",\"name\":\"MatchWindow\",\"fields\":[{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"lines\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"MatchLine\",\"fields\":[{\"name\":\"number\",\"type\":\"int\"},{\"name\":\"speaker\",\"type\":\"string\"},{\"name\":\"role\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"text\",\"type\":\"string\"},{\"name\":\"is_mention\",\"type\":\"boolean\"}]}}},{\"name\":\"clip_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"clip_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"clip_title\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"clip_type\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
    export const MatchWindowName = "dev.earshot.events.MatchWindow";
    export interface MatchWindow {
        start_seconds: number;
        end_seconds: number;
        lines: DevEarshotEvents.MatchLine[];
        /**
         * Default: null
         */
        clip_url: null | string;
        /**
         * Default: null
         */
        clip_id: null | string;
        /**
         * Default: null
         */
        clip_title: null | string;
        /**
         * Default: null
         */
        clip_type: null | string;
    }
    export const AlertMatchedSchema = "{\"type\":\"record\",\"name\":\"AlertMatched\",\"namespace\":\"dev.earshot.events\",\"doc\":\"One match of one alert on one episode. Keyed by alert id; id is derived from (alert, episode) so a replay yields the same match.\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"alert_id\",\"type\":\"string\"},{\"name\":\"project_id\",\"type\":\"string\"},{\"name\":\"kind\",\"type\":{\"type\":\"enum\",\"name\":\"AlertKind\",\"symbols\":[\"ENTITY_MENTION\",\"PODCAST_SPEAKER\"]}},{\"name\":\"entity_type\",\"type\":{\"type\":\"enum\",\"name\":\"AlertEntityType\",\"symbols\":[\"PERSON\",\"COMPANY\",\"KNOWLEDGE_GRAPH_ENTITY\"]}},{\"name\":\"entity_id\",\"type\":\"string\"},{\"name\":\"source_type\",\"type\":\"string\",\"default\":\"PODCAST_EPISODE\"},{\"name\":\"source_id\",\"type\":\"string\",\"doc\":\"episode id\"},{\"name\":\"podcast_id\",\"type\":\"string\"},{\"name\":\"published_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},{\"name\":\"detected_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},{\"name\":\"mention_count\",\"type\":\"int\"},{\"name\":\"mention_variants\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]},{\"name\":\"relevance\",\"type\":{\"type\":\"enum\",\"name\":\"MatchRelevance\",\"symbols\":[\"on_target\",\"incidental\"]}},{\"name\":\"roles\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]},{\"name\":\"is_backfilled\",\"type\":\"boolean\",\"default\":false},{\"name\":\"windows\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"MatchWindow\",\"fields\":[{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"lines\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"MatchLine\",\"fields\":[{\"name\":\"number\",\"type\":\"int\"},{\"name\":\"speaker\",\"type\":\"string\"},{\"name\":\"role\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"text\",\"type\":\"string\"},{\"name\":\"is_mention\",\"type\":\"boolean\"}]}}},{\"name\":\"clip_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"clip_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"clip_title\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"clip_type\",\"type\":[\"null\",\"string\"],\"default\":null}]}},\"default\":[]}]}";
    export const AlertMatchedName = "dev.earshot.events.AlertMatched";
    /**
     * One match of one alert on one episode. Keyed by alert id; id is derived from (alert, episode) so a replay yields the same match.
     */
    export interface AlertMatched {
        id: string;
        alert_id: string;
        project_id: string;
        kind: DevEarshotEvents.AlertKind;
        entity_type: DevEarshotEvents.AlertEntityType;
        entity_id: string;
        /**
         * Default: "PODCAST_EPISODE"
         */
        source_type: string;
        /**
         * episode id
         */
        source_id: string;
        podcast_id: string;
        published_at: number;
        detected_at: number;
        mention_count: number;
        /**
         * Default: []
         */
        mention_variants: string[];
        relevance: DevEarshotEvents.MatchRelevance;
        /**
         * Default: []
         */
        roles: string[];
        /**
         * Default: false
         */
        is_backfilled: boolean;
        /**
         * Default: []
         */
        windows: DevEarshotEvents.MatchWindow[];
    }
}
