// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type BiasEvaluation = DevEarshotEvents.BiasEvaluation;

export namespace DevEarshotEvents {
    export const PoliticalContextSchema = "{\"type\":\"enum\",\"name\":\"PoliticalContext\",\"symbols\":[\"US\",\"UK\",\"EU\",\"CANADA\",\"AUSTRALIA\",\"INDIA\",\"OTHER\",\"UNKNOWN\"]}";
    export const PoliticalContextName = "dev.earshot.events.PoliticalContext";
    export type PoliticalContext = "US" | "UK" | "EU" | "CANADA" | "AUSTRALIA" | "INDIA" | "OTHER" | "UNKNOWN";
    export const BiasLabelSchema = "{\"type\":\"enum\",\"name\":\"BiasLabel\",\"symbols\":[\"LEFT\",\"LEAN_LEFT\",\"CENTER\",\"LEAN_RIGHT\",\"RIGHT\"]}";
    export const BiasLabelName = "dev.earshot.events.BiasLabel";
    export type BiasLabel = "LEFT" | "LEAN_LEFT" | "CENTER" | "LEAN_RIGHT" | "RIGHT";
    export const BiasEvaluationSchema = "{\"type\":\"record\",\"name\":\"BiasEvaluation\",\"namespace\":\"dev.earshot.events\",\"doc\":\"A political-bias evaluation of one podcast. Keyed by podcast id.\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"podcast_id\",\"type\":\"string\"},{\"name\":\"evaluated_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},{\"name\":\"political_context\",\"type\":{\"type\":\"enum\",\"name\":\"PoliticalContext\",\"symbols\":[\"US\",\"UK\",\"EU\",\"CANADA\",\"AUSTRALIA\",\"INDIA\",\"OTHER\",\"UNKNOWN\"]}},{\"name\":\"is_political\",\"type\":\"boolean\"},{\"name\":\"political_topic_percentage\",\"type\":\"double\",\"doc\":\"share of airtime on political topics, 0-100\"},{\"name\":\"lean_score\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"-1 (left) to +1 (right); null when not political\"},{\"name\":\"bias\",\"type\":[\"null\",{\"type\":\"enum\",\"name\":\"BiasLabel\",\"symbols\":[\"LEFT\",\"LEAN_LEFT\",\"CENTER\",\"LEAN_RIGHT\",\"RIGHT\"]}],\"default\":null},{\"name\":\"episodes_analyzed\",\"type\":\"int\",\"default\":0},{\"name\":\"model\",\"type\":\"string\"}]}";
    export const BiasEvaluationName = "dev.earshot.events.BiasEvaluation";
    /**
     * A political-bias evaluation of one podcast. Keyed by podcast id.
     */
    export interface BiasEvaluation {
        id: string;
        podcast_id: string;
        evaluated_at: number;
        political_context: DevEarshotEvents.PoliticalContext;
        is_political: boolean;
        /**
         * share of airtime on political topics, 0-100
         */
        political_topic_percentage: number;
        /**
         * -1 (left) to +1 (right); null when not political
         *
         * Default: null
         */
        lean_score: null | number;
        /**
         * Default: null
         */
        bias: null | DevEarshotEvents.BiasLabel;
        /**
         * Default: 0
         */
        episodes_analyzed: number;
        model: string;
    }
}
