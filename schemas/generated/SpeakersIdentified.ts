// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type SpeakersIdentified = DevEarshotEvents.SpeakersIdentified;

export namespace DevEarshotEvents {
    export const SpeakerRoleSchema = "{\"type\":\"enum\",\"name\":\"SpeakerRole\",\"symbols\":[\"HOST\",\"GUEST\",\"PANELIST\",\"CORRESPONDENT\",\"AUDIENCE\",\"SOUNDBITE_SPEAKER\"]}";
    export const SpeakerRoleName = "dev.earshot.events.SpeakerRole";
    export type SpeakerRole = "HOST" | "GUEST" | "PANELIST" | "CORRESPONDENT" | "AUDIENCE" | "SOUNDBITE_SPEAKER";
    export const IdentifiedSpeakerSchema = "{\"type\":\"record\",\"name\":\"IdentifiedSpeaker\",\"fields\":[{\"name\":\"label\",\"type\":\"string\"},{\"name\":\"person_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"name\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"role\",\"type\":{\"type\":\"enum\",\"name\":\"SpeakerRole\",\"symbols\":[\"HOST\",\"GUEST\",\"PANELIST\",\"CORRESPONDENT\",\"AUDIENCE\",\"SOUNDBITE_SPEAKER\"]}},{\"name\":\"line_count\",\"type\":\"int\"},{\"name\":\"capacity\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"researcher, practitioner, journalist_analyst, ...\"},{\"name\":\"in_field\",\"type\":[\"null\",\"boolean\"],\"default\":null},{\"name\":\"confidence\",\"type\":\"double\",\"default\":1}]}";
    export const IdentifiedSpeakerName = "dev.earshot.events.IdentifiedSpeaker";
    export interface IdentifiedSpeaker {
        label: string;
        /**
         * Default: null
         */
        person_id: null | string;
        /**
         * Default: null
         */
        name: null | string;
        role: DevEarshotEvents.SpeakerRole;
        line_count: number;
        /**
         * researcher, practitioner, journalist_analyst, ...
         *
         * Default: null
         */
        capacity: null | string;
        /**
         * Default: null
         */
        in_field: null | boolean;
        /**
         * Default: 1
         */
        confidence: number;
    }
    export const SpeakersIdentifiedSchema = "{\"type\":\"record\",\"name\":\"SpeakersIdentified\",\"namespace\":\"dev.earshot.events\",\"doc\":\"Diarized speakers of one episode mapped to people with roles. Keyed by episode id.\",\"fields\":[{\"name\":\"episode_id\",\"type\":\"string\"},{\"name\":\"podcast_id\",\"type\":\"string\"},{\"name\":\"published_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},{\"name\":\"language\",\"type\":\"string\"},{\"name\":\"speakers\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"IdentifiedSpeaker\",\"fields\":[{\"name\":\"label\",\"type\":\"string\"},{\"name\":\"person_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"name\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"role\",\"type\":{\"type\":\"enum\",\"name\":\"SpeakerRole\",\"symbols\":[\"HOST\",\"GUEST\",\"PANELIST\",\"CORRESPONDENT\",\"AUDIENCE\",\"SOUNDBITE_SPEAKER\"]}},{\"name\":\"line_count\",\"type\":\"int\"},{\"name\":\"capacity\",\"type\":[\"null\",\"string\"],\"default\":null,\"doc\":\"researcher, practitioner, journalist_analyst, ...\"},{\"name\":\"in_field\",\"type\":[\"null\",\"boolean\"],\"default\":null},{\"name\":\"confidence\",\"type\":\"double\",\"default\":1}]}}},{\"name\":\"identified_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}]}";
    export const SpeakersIdentifiedName = "dev.earshot.events.SpeakersIdentified";
    /**
     * Diarized speakers of one episode mapped to people with roles. Keyed by episode id.
     */
    export interface SpeakersIdentified {
        episode_id: string;
        podcast_id: string;
        published_at: number;
        language: string;
        speakers: DevEarshotEvents.IdentifiedSpeaker[];
        identified_at: number;
    }
}
