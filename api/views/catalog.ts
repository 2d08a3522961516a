import { Type } from '@sinclair/typebox';
import type {
  CatalogReader,
  EntityRow,
  EpisodeRow,
  PodcastRow,
} from '../../projections/catalog/catalog-reader.ts';
import { Timestamp } from '../schemas.ts';

/**
 * The embedded summaries every endpoint shares (spec: Entity compact form, Episode reference),
 * with the schemas that document and serialise them.
 */
export const PodcastSummary = Type.Object({
  id: Type.String(),
  title: Type.String(),
  image_url: Type.Union([Type.String(), Type.Null()]),
  slug: Type.String(),
});

export const EpisodeReference = Type.Object({
  id: Type.String(),
  title: Type.String(),
  slug: Type.String(),
  published_at: Timestamp,
  podcast: PodcastSummary,
});

export const EntityCompact = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  wikipedia_url: Type.Union([Type.String(), Type.Null()]),
  type: Type.Object({ name: Type.String(), slug: Type.String() }, { description: 'category' }),
  company: Type.Union([
    Type.Object({
      id: Type.String(),
      domain: Type.Union([Type.String(), Type.Null()]),
      ticker: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ]),
  person: Type.Union([
    Type.Object({
      id: Type.String(),
      company: Type.Union([Type.String(), Type.Null()], {
        description: 'name of the company the person works for',
      }),
      image_url: Type.Union([Type.String(), Type.Null()]),
      title: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ]),
});

export function podcastSummary(p: Pick<PodcastRow, 'id' | 'title' | 'image_url' | 'slug'>) {
  return { id: p.id, title: p.title, image_url: p.image_url, slug: p.slug };
}

export function episodeReference(e: EpisodeRow, p: PodcastRow) {
  return {
    id: e.id,
    title: e.title,
    slug: e.slug,
    published_at: new Date(e.published_at).toISOString(),
    podcast: podcastSummary(p),
  };
}

/** `employer` is the entity of `e.person.company_id`, when the caller has it. */
export function entityCompact(e: EntityRow, employer?: EntityRow) {
  return {
    id: e.id,
    name: e.name,
    slug: e.slug,
    description: e.description,
    wikipedia_url: e.wikipedia_url,
    type: { name: e.category_name, slug: e.category_slug },
    company: e.kind === 'COMPANY' ? { id: e.id, domain: e.company_domain, ticker: e.company_ticker } : null,
    person:
      e.kind === 'PERSON'
        ? {
            id: e.id,
            company: employer?.name ?? null,
            image_url: e.image_url,
            title: e.person?.title ?? null,
          }
        : null,
  };
}

/** The employers of these entities' people (`person.company_id`), by id. */
export function employersOf(catalog: CatalogReader, rows: EntityRow[]): Promise<Map<string, EntityRow>> {
  return catalog.entitiesByIds(
    rows
      .map((r) => r.person?.company_id)
      .filter((id): id is string => typeof id === 'string' && id.length > 0),
  );
}
