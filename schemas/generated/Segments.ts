// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type Segments = DevEarshotEvents.Segments;

export namespace DevEarshotEvents {
    export const SegmentTypeSchema = "{\"type\":\"enum\",\"name\":\"SegmentType\",\"symbols\":[\"INTRO\",\"PERSONAL_BANTER\",\"TOPIC_DISCUSSION\",\"INTERVIEW\",\"TRANSITION\",\"AD\",\"OUTRO\"]}";
    export const SegmentTypeName = "dev.earshot.events.SegmentType";
    export type SegmentType = "INTRO" | "PERSONAL_BANTER" | "TOPIC_DISCUSSION" | "INTERVIEW" | "TRANSITION" | "AD" | "OUTRO";
    export const SegmentReadTypeSchema = "{\"type\":\"enum\",\"name\":\"SegmentReadType\",\"symbols\":[\"host_read\",\"pre_recorded\"]}";
    export const SegmentReadTypeName = "dev.earshot.events.SegmentReadType";
    export type SegmentReadType = "host_read" | "pre_recorded";
    export const SegmentSchema = "{\"type\":\"record\",\"name\":\"Segment\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"number\",\"type\":\"int\"},{\"name\":\"title\",\"type\":\"string\"},{\"name\":\"type\",\"type\":{\"type\":\"enum\",\"name\":\"SegmentType\",\"symbols\":[\"INTRO\",\"PERSONAL_BANTER\",\"TOPIC_DISCUSSION\",\"INTERVIEW\",\"TRANSITION\",\"AD\",\"OUTRO\"]}},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"first_line\",\"type\":\"int\"},{\"name\":\"last_line\",\"type\":\"int\"},{\"name\":\"description\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"summary\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"audio_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"read_type\",\"type\":[\"null\",{\"type\":\"enum\",\"name\":\"SegmentReadType\",\"symbols\":[\"host_read\",\"pre_recorded\"]}],\"default\":null},{\"name\":\"topics\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"slugs of the topics the segment discusses (economics, technology, \u2026); empty for segments on no topic\"}]}";
    export const SegmentName = "dev.earshot.events.Segment";
    export interface Segment {
        id: string;
        number: number;
        title: string;
        type: DevEarshotEvents.SegmentType;
        start_seconds: number;
        end_seconds: number;
        first_line: number;
        last_line: number;
        /**
         * Default: null
         */
        description: null | string;
        /**
         * Default: null
         */
        summary: null | string;
        /**
         * Default: null
         */
        audio_url: null | string;
        /**
         * Default: null
         */
        read_type: null | DevEarshotEvents.SegmentReadType;
        /**
         * slugs of the topics the segment discusses (economics, technology, …); empty for segments on no topic
         *
         * Default: []
         */
        topics: string[];
    }
    export const SegmentsSchema = "{\"type\":\"record\",\"name\":\"Segments\",\"namespace\":\"dev.earshot.events\",\"doc\":\"The topical segmentation of one episode. Keyed by episode id.\",\"fields\":[{\"name\":\"episode_id\",\"type\":\"string\"},{\"name\":\"segments\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"Segment\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"number\",\"type\":\"int\"},{\"name\":\"title\",\"type\":\"string\"},{\"name\":\"type\",\"type\":{\"type\":\"enum\",\"name\":\"SegmentType\",\"symbols\":[\"INTRO\",\"PERSONAL_BANTER\",\"TOPIC_DISCUSSION\",\"INTERVIEW\",\"TRANSITION\",\"AD\",\"OUTRO\"]}},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"first_line\",\"type\":\"int\"},{\"name\":\"last_line\",\"type\":\"int\"},{\"name\":\"description\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"summary\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"audio_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"read_type\",\"type\":[\"null\",{\"type\":\"enum\",\"name\":\"SegmentReadType\",\"symbols\":[\"host_read\",\"pre_recorded\"]}],\"default\":null},{\"name\":\"topics\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"slugs of the topics the segment discusses (economics, technology, \u2026); empty for segments on no topic\"}]}}}]}";
    export const SegmentsName = "dev.earshot.events.Segments";
    /**
     * The topical segmentation of one episode. Keyed by episode id.
     */
    export interface Segments {
        episode_id: string;
        segments: DevEarshotEvents.Segment[];
    }
}
