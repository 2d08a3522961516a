// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type ChartSnapshotRow = DevEarshotEvents.ChartSnapshotRow;

export namespace DevEarshotEvents {
    export const ChartCategorySchema = "{\"type\":\"record\",\"name\":\"ChartCategory\",\"fields\":[{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"external_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"parent_slug\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
    export const ChartCategoryName = "dev.earshot.events.ChartCategory";
    export interface ChartCategory {
        name: string;
        slug: string;
        /**
         * Default: null
         */
        external_id: null | string;
        /**
         * Default: null
         */
        parent_slug: null | string;
    }
    export const ChartGenreSchema = "{\"type\":\"record\",\"name\":\"ChartGenre\",\"fields\":[{\"name\":\"external_id\",\"type\":\"string\"},{\"name\":\"name\",\"type\":\"string\"}]}";
    export const ChartGenreName = "dev.earshot.events.ChartGenre";
    export interface ChartGenre {
        external_id: string;
        name: string;
    }
    export const ChartShowSchema = "{\"type\":\"record\",\"name\":\"ChartShow\",\"fields\":[{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"content_advisory_rating\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"description\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"feed_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"genres\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"ChartGenre\",\"fields\":[{\"name\":\"external_id\",\"type\":\"string\"},{\"name\":\"name\",\"type\":\"string\"}]}},\"default\":[]},{\"name\":\"image_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"language\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"latest_release_date\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null},{\"name\":\"publisher\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"total_episodes\",\"type\":[\"null\",\"int\"],\"default\":null}]}";
    export const ChartShowName = "dev.earshot.events.ChartShow";
    export interface ChartShow {
        name: string;
        /**
         * Default: null
         */
        content_advisory_rating: null | string;
        /**
         * Default: null
         */
        description: null | string;
        /**
         * Default: null
         */
        feed_url: null | string;
        /**
         * Default: []
         */
        genres: DevEarshotEvents.ChartGenre[];
        /**
         * Default: null
         */
        image_url: null | string;
        /**
         * Default: null
         */
        language: null | string;
        /**
         * Default: null
         */
        latest_release_date: null | number;
        /**
         * Default: null
         */
        publisher: null | string;
        /**
         * Default: null
         */
        total_episodes: null | number;
    }
    export const ChartSnapshotRowSchema = "{\"type\":\"record\",\"name\":\"ChartSnapshotRow\",\"namespace\":\"dev.earshot.events\",\"doc\":\"One row of one chart as captured from a ranking source. Keyed by chart (source/chart_type/country/category).\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"source\",\"type\":\"string\"},{\"name\":\"chart_type\",\"type\":\"string\"},{\"name\":\"rank\",\"type\":\"int\"},{\"name\":\"previous_rank\",\"type\":[\"null\",\"int\"],\"default\":null},{\"name\":\"chart_total\",\"type\":\"int\"},{\"name\":\"is_current\",\"type\":\"boolean\",\"default\":true,\"doc\":\"as reported by the source; reads recompute it from the newest capture\"},{\"name\":\"captured_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},{\"name\":\"source_updated_at\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null},{\"name\":\"external_id\",\"type\":\"string\"},{\"name\":\"external_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"country\",\"type\":\"string\"},{\"name\":\"growth_indicator\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"category\",\"type\":{\"type\":\"record\",\"name\":\"ChartCategory\",\"fields\":[{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"external_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"parent_slug\",\"type\":[\"null\",\"string\"],\"default\":null}]}},{\"name\":\"channel_subscriber_count\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"view_count\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"weekly_avg_downloads\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"reach_pct\",\"type\":[\"null\",\"double\"],\"default\":null},{\"name\":\"show\",\"type\":{\"type\":\"record\",\"name\":\"ChartShow\",\"fields\":[{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"content_advisory_rating\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"description\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"feed_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"genres\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"ChartGenre\",\"fields\":[{\"name\":\"external_id\",\"type\":\"string\"},{\"name\":\"name\",\"type\":\"string\"}]}},\"default\":[]},{\"name\":\"image_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"language\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"latest_release_date\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null},{\"name\":\"publisher\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"total_episodes\",\"type\":[\"null\",\"int\"],\"default\":null}]}},{\"name\":\"podcast_id\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"catalog podcast the row resolves to, when known\"}]}";
    export const ChartSnapshotRowName = "dev.earshot.events.ChartSnapshotRow";
    /**
     * One row of one chart as captured from a ranking source. Keyed by chart (source/chart_type/country/category).
     */
    export interface ChartSnapshotRow {
        id: string;
        source: string;
        chart_type: string;
        rank: number;
        /**
         * Default: null
         */
        previous_rank: null | number;
        chart_total: number;
        /**
         * as reported by the source; reads recompute it from the newest capture
         *
         * Default: true
         */
        is_current: boolean;
        captured_at: number;
        /**
         * Default: null
         */
        source_updated_at: null | number;
        external_id: string;
        /**
         * Default: null
         */
        external_url: null | string;
        country: string;
        /**
         * Default: null
         */
        growth_indicator: null | string;
        category: DevEarshotEvents.ChartCategory;
        /**
         * Default: null
         */
        channel_subscriber_count: null | number;
        /**
         * Default: null
         */
        view_count: null | number;
        /**
         * Default: null
         */
        weekly_avg_downloads: null | number;
        /**
         * Default: null
         */
        reach_pct: null | number;
        show: DevEarshotEvents.ChartShow;
        /**
         * catalog podcast the row resolves to, when known
         *
         * Default: null
         */
        podcast_id: null | string;
    }
}
