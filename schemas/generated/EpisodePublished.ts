// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type EpisodePublished = DevEarshotEvents.EpisodePublished;

export namespace DevEarshotEvents {
    export const EpisodePersonSchema = "{\"type\":\"record\",\"name\":\"EpisodePerson\",\"doc\":\"a person credited by the feed (podcast:person)\",\"fields\":[{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"role\",\"type\":\"string\",\"doc\":\"host, guest, panelist, correspondent, ...\"}]}";
    export const EpisodePersonName = "dev.earshot.events.EpisodePerson";
    /**
     * a person credited by the feed (podcast:person)
     */
    export interface EpisodePerson {
        name: string;
        /**
         * host, guest, panelist, correspondent, ...
         */
        role: string;
    }
    export const EpisodePublishedSchema = "{\"type\":\"record\",\"name\":\"EpisodePublished\",\"namespace\":\"dev.earshot.events\",\"doc\":\"An episode became available. Keyed by episode id.\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"podcast_id\",\"type\":\"string\"},{\"name\":\"guid\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"feed item guid\"},{\"name\":\"title\",\"type\":\"string\"},{\"name\":\"description\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"published_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},{\"name\":\"duration_seconds\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"audio_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"image_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"language\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"BCP-47; null = the podcast's language\"},{\"name\":\"people\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"EpisodePerson\",\"doc\":\"a person credited by the feed (podcast:person)\",\"fields\":[{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"role\",\"type\":\"string\",\"doc\":\"host, guest, panelist, correspondent, ...\"}]}},\"default\":[]},{\"name\":\"source\",\"type\":\"string\",\"doc\":\"feed, ingest, corpus\"}]}";
    export const EpisodePublishedName = "dev.earshot.events.EpisodePublished";
    /**
     * An episode became available. Keyed by episode id.
     */
    export interface EpisodePublished {
        id: string;
        slug: string;
        podcast_id: string;
        /**
         * feed item guid
         *
         * Default: null
         */
        guid: null | string;
        title: string;
        /**
         * Default: null
         */
        description: null | string;
        published_at: number;
        /**
         * Default: null
         */
        duration_seconds: null | number;
        /**
         * Default: null
         */
        audio_url: null | string;
        /**
         * Default: null
         */
        image_url: null | string;
        /**
         * BCP-47; null = the podcast's language
         *
         * Default: null
         */
        language: null | string;
        /**
         * Default: []
         */
        people: DevEarshotEvents.EpisodePerson[];
        /**
         * feed, ingest, corpus
         */
        source: string;
    }
}
