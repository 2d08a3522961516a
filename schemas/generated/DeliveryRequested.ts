// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type DeliveryRequested = DevEarshotEvents.DeliveryRequested;

export namespace DevEarshotEvents {
    export const DeliveryCadenceSchema = "{\"type\":\"enum\",\"name\":\"DeliveryCadence\",\"symbols\":[\"REALTIME\",\"DAILY\",\"WEEKLY\"]}";
    export const DeliveryCadenceName = "dev.earshot.events.DeliveryCadence";
    export type DeliveryCadence = "REALTIME" | "DAILY" | "WEEKLY";
    export const ChannelTypeSchema = "{\"type\":\"enum\",\"name\":\"ChannelType\",\"symbols\":[\"EMAIL\",\"CHAT\",\"WEBHOOK\"]}";
    export const ChannelTypeName = "dev.earshot.events.ChannelType";
    export type ChannelType = "EMAIL" | "CHAT" | "WEBHOOK";
    export const DeliveryChannelSchema = "{\"type\":\"record\",\"name\":\"DeliveryChannel\",\"fields\":[{\"name\":\"type\",\"type\":{\"type\":\"enum\",\"name\":\"ChannelType\",\"symbols\":[\"EMAIL\",\"CHAT\",\"WEBHOOK\"]}},{\"name\":\"email\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"webhook_connection_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"chat_connection_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"chat_channel_id\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
    export const DeliveryChannelName = "dev.earshot.events.DeliveryChannel";
    export interface DeliveryChannel {
        type: DevEarshotEvents.ChannelType;
        /**
         * Default: null
         */
        email: null | string;
        /**
         * Default: null
         */
        webhook_connection_id: null | string;
        /**
         * Default: null
         */
        chat_connection_id: null | string;
        /**
         * Default: null
         */
        chat_channel_id: null | string;
    }
    export const DeliveryRequestedSchema = "{\"type\":\"record\",\"name\":\"DeliveryRequested\",\"namespace\":\"dev.earshot.events\",\"doc\":\"A send to one channel of one alert: one match (realtime) or a digest window. Keyed by alert id.\",\"fields\":[{\"name\":\"delivery_id\",\"type\":\"string\",\"doc\":\"stable id of the delivery (the landing page); attempts get their own ids\"},{\"name\":\"alert_id\",\"type\":\"string\"},{\"name\":\"project_id\",\"type\":\"string\"},{\"name\":\"cadence\",\"type\":{\"type\":\"enum\",\"name\":\"DeliveryCadence\",\"symbols\":[\"REALTIME\",\"DAILY\",\"WEEKLY\"]}},{\"name\":\"channel\",\"type\":{\"type\":\"record\",\"name\":\"DeliveryChannel\",\"fields\":[{\"name\":\"type\",\"type\":{\"type\":\"enum\",\"name\":\"ChannelType\",\"symbols\":[\"EMAIL\",\"CHAT\",\"WEBHOOK\"]}},{\"name\":\"email\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"webhook_connection_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"chat_connection_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"chat_channel_id\",\"type\":[\"null\",\"string\"],\"default\":null}]}},{\"name\":\"match_ids\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},{\"name\":\"window_start\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null},{\"name\":\"window_end\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null},{\"name\":\"requested_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}]}";
    export const DeliveryRequestedName = "dev.earshot.events.DeliveryRequested";
    /**
     * A send to one channel of one alert: one match (realtime) or a digest window. Keyed by alert id.
     */
    export interface DeliveryRequested {
        /**
         * stable id of the delivery (the landing page); attempts get their own ids
         */
        delivery_id: string;
        alert_id: string;
        project_id: string;
        cadence: DevEarshotEvents.DeliveryCadence;
        channel: DevEarshotEvents.DeliveryChannel;
        match_ids: string[];
        /**
         * Default: null
         */
        window_start: null | number;
        /**
         * Default: null
         */
        window_end: null | number;
        requested_at: number;
    }
}
