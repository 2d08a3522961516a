// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type DeliveryAbandoned = DevEarshotEvents.DeliveryAbandoned;

export namespace DevEarshotEvents {
    export const DeliveryAbandonedSchema = "{\"type\":\"record\",\"name\":\"DeliveryAbandoned\",\"namespace\":\"dev.earshot.events\",\"doc\":\"A delivery gave up after its last allowed attempt, or was refused. Keyed by delivery id.\",\"fields\":[{\"name\":\"delivery_id\",\"type\":\"string\"},{\"name\":\"alert_id\",\"type\":\"string\"},{\"name\":\"channel_type\",\"type\":\"string\"},{\"name\":\"destination\",\"type\":\"string\"},{\"name\":\"attempts\",\"type\":\"int\"},{\"name\":\"reason\",\"type\":\"string\"},{\"name\":\"abandoned_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}]}";
    export const DeliveryAbandonedName = "dev.earshot.events.DeliveryAbandoned";
    /**
     * A delivery gave up after its last allowed attempt, or was refused. Keyed by delivery id.
     */
    export interface DeliveryAbandoned {
        delivery_id: string;
        alert_id: string;
        channel_type: string;
        destination: string;
        attempts: number;
        reason: string;
        abandoned_at: number;
    }
}
