// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type Publisher = DevEarshotEvents.Publisher;

export namespace DevEarshotEvents {
    export const PublisherSchema = "{\"type\":\"record\",\"name\":\"Publisher\",\"namespace\":\"dev.earshot.events\",\"doc\":\"A podcast publisher or network. Compacted catalog topic keyed by publisher id.\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"description\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"website_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"image_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"updated_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}]}";
    export const PublisherName = "dev.earshot.events.Publisher";
    /**
     * A podcast publisher or network. Compacted catalog topic keyed by publisher id.
     */
    export interface Publisher {
        id: string;
        slug: string;
        name: string;
        /**
         * Default: null
         */
        description: null | string;
        /**
         * Default: null
         */
        website_url: null | string;
        /**
         * Default: null
         */
        image_url: null | string;
        updated_at: number;
    }
}
