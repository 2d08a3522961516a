// Generated from schemas/avro by `npm run schemas:types`. Do not edit.

export type Entity = DevEarshotEvents.Entity;

export namespace DevEarshotEvents {
    export const EntityKindSchema = "{\"type\":\"enum\",\"name\":\"EntityKind\",\"symbols\":[\"PERSON\",\"COMPANY\",\"KNOWLEDGE_GRAPH_ENTITY\"]}";
    export const EntityKindName = "dev.earshot.events.EntityKind";
    export type EntityKind = "PERSON" | "COMPANY" | "KNOWLEDGE_GRAPH_ENTITY";
    export const EntityCategorySchema = "{\"type\":\"record\",\"name\":\"EntityCategory\",\"fields\":[{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"name\",\"type\":\"string\"}]}";
    export const EntityCategoryName = "dev.earshot.events.EntityCategory";
    export interface EntityCategory {
        slug: string;
        name: string;
    }
    export const CompanyFactsSchema = "{\"type\":\"record\",\"name\":\"CompanyFacts\",\"fields\":[{\"name\":\"domain\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"ticker\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
    export const CompanyFactsName = "dev.earshot.events.CompanyFacts";
    export interface CompanyFacts {
        /**
         * Default: null
         */
        domain: null | string;
        /**
         * Default: null
         */
        ticker: null | string;
    }
    export const OccupationSchema = "{\"type\":\"record\",\"name\":\"Occupation\",\"fields\":[{\"name\":\"code\",\"type\":\"string\",\"doc\":\"classification code, e.g. ISCO-08 2631 or SOC 19-3011\"},{\"name\":\"system\",\"type\":\"string\",\"doc\":\"isco08 or soc2018\"},{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"title\",\"type\":\"string\"},{\"name\":\"group\",\"type\":[\"null\",\"string\"],\"default\":null}]}";
    export const OccupationName = "dev.earshot.events.Occupation";
    export interface Occupation {
        /**
         * classification code, e.g. ISCO-08 2631 or SOC 19-3011
         */
        code: string;
        /**
         * isco08 or soc2018
         */
        system: string;
        slug: string;
        title: string;
        /**
         * Default: null
         */
        group: null | string;
    }
    export const ResearchFieldSchema = "{\"type\":\"record\",\"name\":\"ResearchField\",\"fields\":[{\"name\":\"code\",\"type\":\"string\"},{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"title\",\"type\":\"string\"}]}";
    export const ResearchFieldName = "dev.earshot.events.ResearchField";
    export interface ResearchField {
        code: string;
        slug: string;
        title: string;
    }
    export const StandingSchema = "{\"type\":\"enum\",\"name\":\"Standing\",\"symbols\":[\"established\",\"self_described\",\"unverified\"]}";
    export const StandingName = "dev.earshot.events.Standing";
    export type Standing = "established" | "self_described" | "unverified";
    export const SenioritySchema = "{\"type\":\"enum\",\"name\":\"Seniority\",\"symbols\":[\"professional\",\"senior\",\"distinguished\"]}";
    export const SeniorityName = "dev.earshot.events.Seniority";
    export type Seniority = "professional" | "senior" | "distinguished";
    export const PersonFactsSchema = "{\"type\":\"record\",\"name\":\"PersonFacts\",\"fields\":[{\"name\":\"title\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"company_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"occupation\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"Occupation\",\"fields\":[{\"name\":\"code\",\"type\":\"string\",\"doc\":\"classification code, e.g. ISCO-08 2631 or SOC 19-3011\"},{\"name\":\"system\",\"type\":\"string\",\"doc\":\"isco08 or soc2018\"},{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"title\",\"type\":\"string\"},{\"name\":\"group\",\"type\":[\"null\",\"string\"],\"default\":null}]}],\"default\":null},{\"name\":\"field\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"ResearchField\",\"fields\":[{\"name\":\"code\",\"type\":\"string\"},{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"title\",\"type\":\"string\"}]}],\"default\":null},{\"name\":\"standing\",\"type\":[\"null\",{\"type\":\"enum\",\"name\":\"Standing\",\"symbols\":[\"established\",\"self_described\",\"unverified\"]}],\"default\":null},{\"name\":\"seniority\",\"type\":[\"null\",{\"type\":\"enum\",\"name\":\"Seniority\",\"symbols\":[\"professional\",\"senior\",\"distinguished\"]}],\"default\":null},{\"name\":\"practicing\",\"type\":[\"null\",\"boolean\"],\"default\":null}]}";
    export const PersonFactsName = "dev.earshot.events.PersonFacts";
    export interface PersonFacts {
        /**
         * Default: null
         */
        title: null | string;
        /**
         * Default: null
         */
        company_id: null | string;
        /**
         * Default: null
         */
        occupation: null | DevEarshotEvents.Occupation;
        /**
         * Default: null
         */
        field: null | DevEarshotEvents.ResearchField;
        /**
         * Default: null
         */
        standing: null | DevEarshotEvents.Standing;
        /**
         * Default: null
         */
        seniority: null | DevEarshotEvents.Seniority;
        /**
         * Default: null
         */
        practicing: null | boolean;
    }
    export const EntitySchema = "{\"type\":\"record\",\"name\":\"Entity\",\"namespace\":\"dev.earshot.events\",\"doc\":\"A person, company or other knowledge-graph entity with every name it is known by. Compacted catalog topic keyed by entity id.\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"kind\",\"type\":{\"type\":\"enum\",\"name\":\"EntityKind\",\"symbols\":[\"PERSON\",\"COMPANY\",\"KNOWLEDGE_GRAPH_ENTITY\"]}},{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"description\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"wikipedia_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"image_url\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"category\",\"type\":{\"type\":\"record\",\"name\":\"EntityCategory\",\"fields\":[{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"name\",\"type\":\"string\"}]}},{\"name\":\"aliases\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]},{\"name\":\"nicknames\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[]},{\"name\":\"handles\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"social handles including the leading @\"},{\"name\":\"context_terms\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"words that signal this sense when a name is ambiguous\"},{\"name\":\"variants\",\"type\":{\"type\":\"array\",\"items\":\"string\"},\"default\":[],\"doc\":\"known misspellings and phonetic variants of the name as speech-to-text writes it (\\\"Amit Verma\\\" for Amit Varma); matched in any case and reported as such\"},{\"name\":\"company\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"CompanyFacts\",\"fields\":[{\"name\":\"domain\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"ticker\",\"type\":[\"null\",\"string\"],\"default\":null}]}],\"default\":null},{\"name\":\"person\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"PersonFacts\",\"fields\":[{\"name\":\"title\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"company_id\",\"type\":[\"null\",\"string\"],\"default\":null},{\"name\":\"occupation\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"Occupation\",\"fields\":[{\"name\":\"code\",\"type\":\"string\",\"doc\":\"classification code, e.g. ISCO-08 2631 or SOC 19-3011\"},{\"name\":\"system\",\"type\":\"string\",\"doc\":\"isco08 or soc2018\"},{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"title\",\"type\":\"string\"},{\"name\":\"group\",\"type\":[\"null\",\"string\"],\"default\":null}]}],\"default\":null},{\"name\":\"field\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"ResearchField\",\"fields\":[{\"name\":\"code\",\"type\":\"string\"},{\"name\":\"slug\",\"type\":\"string\"},{\"name\":\"title\",\"type\":\"string\"}]}],\"default\":null},{\"name\":\"standing\",\"type\":[\"null\",{\"type\":\"enum\",\"name\":\"Standing\",\"symbols\":[\"established\",\"self_described\",\"unverified\"]}],\"default\":null},{\"name\":\"seniority\",\"type\":[\"null\",{\"type\":\"enum\",\"name\":\"Seniority\",\"symbols\":[\"professional\",\"senior\",\"distinguished\"]}],\"default\":null},{\"name\":\"practicing\",\"type\":[\"null\",\"boolean\"],\"default\":null}]}],\"default\":null},{\"name\":\"updated_at\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}]}";
    export const EntityName = "dev.earshot.events.Entity";
    /**
     * A person, company or other knowledge-graph entity with every name it is known by. Compacted catalog topic keyed by entity id.
     */
    export interface Entity {
        id: string;
        slug: string;
        kind: DevEarshotEvents.EntityKind;
        name: string;
        /**
         * Default: null
         */
        description: null | string;
        /**
         * Default: null
         */
        wikipedia_url: null | string;
        /**
         * Default: null
         */
        image_url: null | string;
        category: DevEarshotEvents.EntityCategory;
        /**
         * Default: []
         */
        aliases: string[];
        /**
         * Default: []
         */
        nicknames: string[];
        /**
         * social handles including the leading @
         *
         * Default: []
         */
        handles: string[];
        /**
         * words that signal this sense when a name is ambiguous
         *
         * Default: []
         */
        context_terms: string[];
        /**
         * known misspellings and phonetic variants of the name as speech-to-text writes it ("Amit Verma" for Amit Varma); matched in any case and reported as such
         *
         * Default: []
         */
        variants: string[];
        /**
         * Default: null
         */
        company: null | DevEarshotEvents.CompanyFacts;
        /**
         * Default: null
         */
        person: null | DevEarshotEvents.PersonFacts;
        updated_at: number;
    }
}
