// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type Podcast = DevEarshotEvents.Podcast;

export namespace DevEarshotEvents {
    export const PodcastCategorySchema = "{\"type\":\"record\",\"name\":\"PodcastCategory\",\"fields\":[{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"parent_slug\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
    export const PodcastCategoryName = "dev.earshot.events.PodcastCategory";
    export interface PodcastCategory {
        slug: string;
        name: string;
        /**
         * Default: null
         */
        parent_slug: null | string;
    }
    export const PodcastSchema = "{\"type\":\"record\",\"name\":\"Podcast\",\"namespace\":\"dev.earshot.events\",\"doc\":\"A show. Compacted catalog topic keyed by podcast id.\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"directory_id\",\"type\":[\"null\",\"long\"],\"default\":null,\"doc\":\"numeric id in the public podcast directory\"},{\"name\":\"title\",\"type\":\"string\"},{\"name\":\"description\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"publisher_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"language\",\"type\":\"string\",\"doc\":\"BCP-47 tag, e.g. en, en-US, fr-FR\"},{\"name\":\"categories\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"PodcastCategory\",\"fields\":[{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"parent_slug\",\"type\":[\"null\",\"string\"],\"default\":null}]}},\"default\":[]},{\"name\":\"hosts\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"person entity ids of the regular hosts\"},{\"name\":\"image_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"feed_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"website_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"content_advisory_rating\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"popularity\",\"type\":[\"null\",\"double\"],\"default\":null,\"doc\":\"global popularity percentile 0-100; null when not charting\"},{\"name\":\"updated_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}]}";
    export const PodcastName = "dev.earshot.events.Podcast";
    /**
     * A show. Compacted catalog topic keyed by podcast id.
     */
    export interface Podcast {
        id: string;
        slug: string;
        /**
         * numeric id in the public podcast directory
         *
         * Default: null
         */
        directory_id: null | number;
        title: string;
        /**
         * Default: null
         */
        description: null | string;
        /**
         * Default: null
         */
        publisher_id: null | string;
        /**
         * BCP-47 tag, e.g. en, en-US, fr-FR
         */
        language: string;
        /**
         * Default: []
         */
        categories: DevEarshotEvents.PodcastCategory[];
        /**
         * person entity ids of the regular hosts
         *
         * Default: []
         */
        hosts: string[];
        /**
         * Default: null
         */
        image_url: null | string;
        /**
         * Default: null
         */
        feed_url: null | string;
        /**
         * Default: null
         */
        website_url: null | string;
        /**
         * Default: null
         */
        content_advisory_rating: null | string;
        /**
         * global popularity percentile 0-100; null when not charting
         *
         * Default: null
         */
        popularity: null | number;
        updated_at: number;
    }
}
