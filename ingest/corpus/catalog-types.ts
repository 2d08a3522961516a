import type { Entity, Podcast, Publisher } from '../../schemas/generated/index.ts';
import type { AmbiguousDef } from './vocabulary/ambiguous.ts';
import type { CompanySector, ThingKind } from './vocabulary/names.ts';
import type { OccupationDef } from './vocabulary/occupations.ts';
import type { Lang, LanguagePack, TopicId } from './vocabulary/types.ts';

/**
 * The types of the generated catalog (catalog.ts). It is small enough to hold in memory even for
 * the bench corpus; episodes are generated from it one at a time.
 */
export type Format = 'interview' | 'panel' | 'news' | 'conversation';

export interface GenPerson {
  entity: Entity;
  first: string;
  last: string;
  lang: Lang;
  occupation: OccupationDef;
  surnameAlias: string | null;
  nickname: string | null;
  handle: string | null;
  /** Company entity or institution name. */
  employer: { company: GenCompany } | { institution: string };
}

export interface GenCompany {
  entity: Entity;
  brand: string;
  sector: CompanySector | null;
  ambiguous: AmbiguousDef | null;
  topics: TopicId[];
}

export interface GenThing {
  entity: Entity;
  slot: ThingKind['slot'] | null;
  ambiguous: AmbiguousDef | null;
  topics: TopicId[];
}

export interface GenPodcast {
  index: number;
  podcast: Podcast;
  lang: Lang;
  pack: LanguagePack;
  topics: TopicId[];
  format: Format;
  callIn: boolean;
  publisher: Publisher;
  hosts: GenPerson[];
  guests: GenPerson[];
  correspondents: GenPerson[];
}

export interface Catalog {
  publishers: Publisher[];
  podcasts: GenPodcast[];
  persons: GenPerson[];
  /** People in the news (politicians, executives, coaches...), by language. */
  publicFigures: GenPerson[];
  companies: GenCompany[];
  things: GenThing[];
  ambiguousCompanies: GenCompany[];
  ambiguousThings: GenThing[];
  entities: Entity[];
}

export interface CatalogOptions {
  podcasts: number;
  asOf: number;
}
