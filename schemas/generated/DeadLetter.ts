// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type DeadLetter = DevEarshotEvents.DeadLetter;

export namespace DevEarshotEvents {
    export const DeadLetterSchema = "{\"type\":\"record\",\"name\":\"DeadLetter\",\"namespace\":\"dev.earshot.events\",\"doc\":\"A record a step could not process, with where it came from and why. Value of every dead-letter topic.\",\"fields\":[{\"name\":\"source_topic\",\"type\":\"string\"},{\"name\":\"source_partition\",\"type\":\"int\"},{\"name\":\"source_offset\",\"type\":\"long\"},{\"name\":\"source_timestamp\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},{\"name\":\"key\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"value\",\"type\":[\"null\",\"bytes\"],\"default\":null,\"doc\":\"the original bytes, unchanged\"},{\"name\":\"headers\",\"type\":{\"type\":\"map\",\"values\":\"string\"},\"default\":{}},{\"name\":\"step\",\"type\":\"string\",\"doc\":\"decode, handle, write, ...\"},{\"name\":\"consumer_group\",\"type\":\"string\"},{\"name\":\"reason\",\"type\":\"string\"},{\"name\":\"failed_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}]}";
    export const DeadLetterName = "dev.earshot.events.DeadLetter";
    /**
     * A record a step could not process, with where it came from and why. Value of every dead-letter topic.
     */
    export interface DeadLetter {
        source_topic: string;
        source_partition: number;
        source_offset: number;
        source_timestamp: number;
        /**
         * Default: null
         */
        key: null | string;
        /**
         * the original bytes, unchanged
         *
         * Default: null
         */
        value: null | Buffer;
        /**
         * Default: {}
         */
        headers: {
            [index: string]: string;
        };
        /**
         * decode, handle, write, ...
         */
        step: string;
        consumer_group: string;
        reason: string;
        failed_at: number;
    }
}
