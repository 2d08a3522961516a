// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type RatingSnapshot = DevEarshotEvents.RatingSnapshot;

export namespace DevEarshotEvents {
    export const RatingSnapshotSchema = "{\"type\":\"record\",\"name\":\"RatingSnapshot\",\"namespace\":\"dev.earshot.events\",\"doc\":\"A podcast's listener rating on one platform in one country at one moment. Keyed by podcast id.\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"podcast_id\",\"type\":\"string\"},{\"name\":\"platform\",\"type\":\"string\",\"doc\":\"where the rating is given: apple_podcasts, spotify, \u2026\"},{\"name\":\"country\",\"type\":\"string\",\"doc\":\"ISO 3166-1 alpha-2, upper case\"},{\"name\":\"captured_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},{\"name\":\"average\",\"type\":\"double\",\"doc\":\"mean rating, 0-5\"},{\"name\":\"count\",\"type\":\"long\",\"doc\":\"ratings given so far\"}]}";
    export const RatingSnapshotName = "dev.earshot.events.RatingSnapshot";
    /**
     * A podcast's listener rating on one platform in one country at one moment. Keyed by podcast id.
     */
    export interface RatingSnapshot {
        id: string;
        podcast_id: string;
        /**
         * where the rating is given: apple_podcasts, spotify, …
         */
        platform: string;
        /**
         * ISO 3166-1 alpha-2, upper case
         */
        country: string;
        captured_at: number;
        /**
         * mean rating, 0-5
         */
        average: number;
        /**
         * ratings given so far
         */
        count: number;
    }
}
