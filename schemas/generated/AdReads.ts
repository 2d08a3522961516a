// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type AdReads = DevEarshotEvents.AdReads;

export namespace DevEarshotEvents {
    export const AdReadTypeSchema = "{\"type\":\"enum\",\"name\":\"AdReadType\",\"symbols\":[\"host_read\",\"pre_recorded\"]}";
    export const AdReadTypeName = "dev.earshot.events.AdReadType";
    export type AdReadType = "host_read" | "pre_recorded";
    export const AdReadSchema = "{\"type\":\"record\",\"name\":\"AdRead\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"segment_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"sponsor_name\",\"type\":\"string\"},{\"name\":\"company_id\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"company entity id when the sponsor is resolved\"},{\"name\":\"read_type\",\"type\":{\"type\":\"enum\",\"name\":\"AdReadType\",\"symbols\":[\"host_read\",\"pre_recorded\"]}},{\"name\":\"is_network_promo\",\"type\":\"boolean\",\"default\":false},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"first_line\",\"type\":[\"null\",\"int\"],\"default\":null},{\"name\":\"last_line\",\"type\":[\"null\",\"int\"],\"default\":null}]}";
    export const AdReadName = "dev.earshot.events.AdRead";
    export interface AdRead {
        id: string;
        /**
         * Default: null
         */
        segment_id: null | string;
        sponsor_name: string;
        /**
         * company entity id when the sponsor is resolved
         *
         * Default: null
         */
        company_id: null | string;
        read_type: DevEarshotEvents.AdReadType;
        /**
         * Default: false
         */
        is_network_promo: boolean;
        start_seconds: number;
        end_seconds: number;
        /**
         * Default: null
         */
        first_line: null | number;
        /**
         * Default: null
         */
        last_line: null | number;
    }
    export const AdReadsSchema = "{\"type\":\"record\",\"name\":\"AdReads\",\"namespace\":\"dev.earshot.events\",\"doc\":\"Sponsor reads and network promos detected in one episode. Keyed by episode id.\",\"fields\":[{\"name\":\"episode_id\",\"type\":\"string\"},{\"name\":\"ad_reads\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"AdRead\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"segment_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"sponsor_name\",\"type\":\"string\"},{\"name\":\"company_id\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"company entity id when the sponsor is resolved\"},{\"name\":\"read_type\",\"type\":{\"type\":\"enum\",\"name\":\"AdReadType\",\"symbols\":[\"host_read\",\"pre_recorded\"]}},{\"name\":\"is_network_promo\",\"type\":\"boolean\",\"default\":false},{\"name\":\"start_seconds\",\"type\":\"double\"},{\"name\":\"end_seconds\",\"type\":\"double\"},{\"name\":\"first_line\",\"type\":[\"null\",\"int\"],\"default\":null},{\"name\":\"last_line\",\"type\":[\"null\",\"int\"],\"default\":null}]}}}]}";
    export const AdReadsName = "dev.earshot.events.AdReads";
    /**
     * Sponsor reads and network promos detected in one episode. Keyed by episode id.
     */
    export interface AdReads {
        episode_id: string;
        ad_reads: DevEarshotEvents.AdRead[];
    }
}
