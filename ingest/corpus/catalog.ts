import { ambiguousEntities, generateCompanies, generateThings } from './catalog-entities.ts';
import { Naming } from './catalog-names.ts';
import { People } from './catalog-people.ts';
import { generatePodcasts, generatePublicFigures, generatePublishers } from './catalog-podcasts.ts';
import type { Catalog, CatalogOptions } from './catalog-types.ts';
import type { Rng } from './rng.ts';
import { vocabularyWords } from './vocabulary/index.ts';

/**
 * The generated catalog: publishers, podcasts (with hosts, guest pools and correspondents),
 * people, companies and knowledge-graph entities, including the ambiguous names. The types are in
 * catalog-types.ts; companies and things, people, and podcasts are each made in their own file.
 */
export type {
  Catalog,
  CatalogOptions,
  Format,
  GenCompany,
  GenPerson,
  GenPodcast,
  GenThing,
} from './catalog-types.ts';

/** Builds the catalog for `options.podcasts` shows. Deterministic for the rng's seed. */
export function generateCatalog(rng: Rng, options: CatalogOptions): Catalog {
  const P = options.podcasts;
  const updatedAt = options.asOf;
  // Each part draws from its own stream of the rng; slugs and brands are unique over the catalog,
  // so the parts are made in this order.
  const naming = new Naming(rng, vocabularyWords());
  const companies = generateCompanies(rng, naming, Math.max(24, P * 3), updatedAt);
  const { ambiguousCompanies, ambiguousThings } = ambiguousEntities(naming, updatedAt);
  const things = generateThings(rng, naming, Math.max(21, Math.ceil(P * 1.5)), updatedAt);
  const people = new People(rng, naming, companies, updatedAt);
  const publishers = generatePublishers(rng, Math.max(2, Math.ceil(P / 6)), updatedAt);
  const podcasts = generatePodcasts(rng, naming, people, publishers, P, updatedAt);
  const publicFigures = generatePublicFigures(rng, people, podcasts);
  people.giveAliases();
  const persons = people.persons;

  const entities = [
    ...companies.map((c) => c.entity),
    ...ambiguousCompanies.map((c) => c.entity),
    ...things.map((t) => t.entity),
    ...ambiguousThings.map((t) => t.entity),
    ...persons.map((p) => p.entity),
  ];
  return {
    publishers,
    podcasts,
    persons,
    publicFigures,
    companies,
    things,
    ambiguousCompanies,
    ambiguousThings,
    entities,
  };
}
