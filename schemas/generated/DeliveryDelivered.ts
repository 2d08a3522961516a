// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type DeliveryDelivered = DevEarshotEvents.DeliveryDelivered;

export namespace DevEarshotEvents {
    export const DeliveryDeliveredSchema = "{\"type\":\"record\",\"name\":\"DeliveryDelivered\",\"namespace\":\"dev.earshot.events\",\"doc\":\"A delivery reached its destination. Keyed by delivery id.\",\"fields\":[{\"name\":\"delivery_id\",\"type\":\"string\"},{\"name\":\"alert_id\",\"type\":\"string\"},{\"name\":\"channel_type\",\"type\":\"string\"},{\"name\":\"destination\",\"type\":\"string\"},{\"name\":\"attempts\",\"type\":\"int\"},{\"name\":\"delivered_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}]}";
    export const DeliveryDeliveredName = "dev.earshot.events.DeliveryDelivered";
    /**
     * A delivery reached its destination. Keyed by delivery id.
     */
    export interface DeliveryDelivered {
        delivery_id: string;
        alert_id: string;
        channel_type: string;
        destination: string;
        attempts: number;
        delivered_at: number;
    }
}
