// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type DeliveryAttempted = DevEarshotEvents.DeliveryAttempted;

export namespace DevEarshotEvents {
    export const DeliveryAttemptedSchema = "{\"type\":\"record\",\"name\":\"DeliveryAttempted\",\"namespace\":\"dev.earshot.events\",\"doc\":\"One attempt to send a delivery over one channel. Keyed by delivery id.\",\"fields\":[{\"name\":\"delivery_id\",\"type\":\"string\"},{\"name\":\"attempt_id\",\"type\":\"string\",\"doc\":\"the delivery_id sent on the wire for this attempt (X-Webhook-ID)\"},{\"name\":\"attempt\",\"type\":\"int\",\"doc\":\"1-based\"},{\"name\":\"alert_id\",\"type\":\"string\"},{\"name\":\"channel_type\",\"type\":\"string\"},{\"name\":\"destination\",\"type\":\"string\",\"doc\":\"url, address or channel\"},{\"name\":\"succeeded\",\"type\":\"boolean\"},{\"name\":\"status_code\",\"type\":[\"null\",\"int\"],\"default\":null},{\"name\":\"error\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"duration_ms\",\"type\":\"int\"},{\"name\":\"attempted_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},{\"name\":\"next_attempt_at\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null}]}";
    export const DeliveryAttemptedName = "dev.earshot.events.DeliveryAttempted";
    /**
     * One attempt to send a delivery over one channel. Keyed by delivery id.
     */
    export interface DeliveryAttempted {
        delivery_id: string;
        /**
         * the delivery_id sent on the wire for this attempt (X-Webhook-ID)
         */
        attempt_id: string;
        /**
         * 1-based
         */
        attempt: number;
        alert_id: string;
        channel_type: string;
        /**
         * url, address or channel
         */
        destination: string;
        succeeded: boolean;
        /**
         * Default: null
         */
        status_code: null | number;
        /**
         * Default: null
         */
        error: null | string;
        duration_ms: number;
        attempted_at: number;
        /**
         * Default: null
         */
        next_attempt_at: null | number;
    }
}
