import { type Static, Type } from '@sinclair/typebox';
import type { NamePage } from '../../projections/catalog/catalog-lists.ts';
import type { CatalogReader, EntityRow } from '../../projections/catalog/catalog-reader.ts';
import { type Cursors, Position, pageQuery } from '../pagination.ts';
import { nullable, Timestamp } from '../schemas.ts';
import { employersOf } from './catalog.ts';
import { RankingRecord } from './rankings.ts';

/**
 * The catalog's full records (spec: Podcast, Publisher, Company, Person) with the schemas that
 * document and serialise them, and the list query the name-ordered lists share.
 */
const PublisherSummary = Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() });

export const Podcast = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  directory_id: nullable(Type.Integer({ description: 'numeric ID in the public podcast directory' })),
  title: Type.String(),
  description: nullable(Type.String()),
  publisher: nullable(PublisherSummary),
  language: Type.String(),
  categories: Type.Array(
    Type.Object({ slug: Type.String(), name: Type.String(), parent_slug: nullable(Type.String()) }),
  ),
  hosts: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() })),
  image_url: nullable(Type.String()),
  feed_url: nullable(Type.String()),
  website_url: nullable(Type.String()),
  content_advisory_rating: nullable(Type.String()),
  popularity: nullable(
    Type.Number({ description: 'global popularity percentile 0-100; null when not charting' }),
  ),
  episode_count: Type.Integer(),
  latest_episode_at: nullable(Timestamp),
  rankings: Type.Optional(
    Type.Array(RankingRecord, { description: 'include=rankings: live chart appearances' }),
  ),
  bias: Type.Optional(
    nullable(
      Type.Object(
        {
          evaluated_at: Timestamp,
          political_context: Type.String(),
          is_political: Type.Boolean(),
          political_topic_percentage: Type.Number(),
          lean_score: nullable(Type.Number()),
          bias: nullable(Type.String()),
          episodes_analyzed: Type.Integer(),
        },
        { description: 'include=bias (premium): the newest political-bias evaluation' },
      ),
    ),
  ),
  sponsors: Type.Optional(
    Type.Array(
      Type.Object({
        sponsor_name: Type.String(),
        company_id: nullable(Type.String()),
        ad_count: Type.Integer(),
        episode_count: Type.Integer(),
        last_ad_at: Timestamp,
      }),
      { description: 'include=sponsors (premium): the show’s sponsors, most ads first' },
    ),
  ),
});

export const Publisher = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  description: nullable(Type.String()),
  website_url: nullable(Type.String()),
  image_url: nullable(Type.String()),
  podcast_count: Type.Integer(),
});

const Category = Type.Object({ name: Type.String(), slug: Type.String() });

export const Company = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  description: nullable(Type.String()),
  domain: nullable(Type.String()),
  ticker: nullable(Type.String()),
  image_url: nullable(Type.String()),
  wikipedia_url: nullable(Type.String()),
  type: Category,
  aliases: Type.Array(Type.String()),
});

export const Person = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  description: nullable(Type.String()),
  image_url: nullable(Type.String()),
  wikipedia_url: nullable(Type.String()),
  type: Category,
  title: nullable(Type.String()),
  company: nullable(Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() })),
  occupation: nullable(
    Type.Object({
      code: Type.String(),
      system: Type.String(),
      slug: Type.String(),
      title: Type.String(),
      group: nullable(Type.String()),
    }),
  ),
  field: nullable(Type.Object({ code: Type.String(), slug: Type.String(), title: Type.String() })),
  standing: nullable(Type.String()),
  seniority: nullable(Type.String()),
  practicing: nullable(Type.Boolean()),
});

export const RefParams = (description: string) =>
  Type.Object({ id: Type.String({ maxLength: 200, description }) });

export function companyView(e: EntityRow): Static<typeof Company> {
  return {
    id: e.id,
    slug: e.slug,
    name: e.name,
    description: e.description,
    domain: e.company_domain,
    ticker: e.company_ticker,
    image_url: e.image_url,
    wikipedia_url: e.wikipedia_url,
    type: { name: e.category_name, slug: e.category_slug },
    aliases: e.aliases,
  };
}

export function personView(e: EntityRow, employer: EntityRow | undefined): Static<typeof Person> {
  const p = e.person;
  return {
    id: e.id,
    slug: e.slug,
    name: e.name,
    description: e.description,
    image_url: e.image_url,
    wikipedia_url: e.wikipedia_url,
    type: { name: e.category_name, slug: e.category_slug },
    title: p?.title ?? null,
    company: employer ? { id: employer.id, name: employer.name, slug: employer.slug } : null,
    occupation: p?.occupation ?? null,
    field: p?.field ?? null,
    standing: p?.standing ?? null,
    seniority: p?.seniority ?? null,
    practicing: p?.practicing ?? null,
  };
}

/** Person records, with each person's employer looked up. */
export async function personViews(
  catalog: CatalogReader,
  rows: EntityRow[],
): Promise<Static<typeof Person>[]> {
  const employers = await employersOf(catalog, rows);
  return rows.map((r) =>
    personView(r, r.person?.company_id ? employers.get(r.person.company_id) : undefined),
  );
}

/** Query of the lists in name order (publishers, companies, people). */
export const NamedListQuery = Type.Object({
  q: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'case-insensitive part of the name' }),
  ),
  ...pageQuery(),
});

/** Cursor position of a list in name order. */
const NAME_POSITION = Type.Object({ n: Position.name(), id: Position.id() });

/** A page of a list in name order: the rows past the cursor's position, and the next cursor. */
export async function namePage<Row extends { name: string; id: string }>(
  cursors: Cursors,
  endpoint: string,
  q: Static<typeof NamedListQuery>,
  load: (page: NamePage) => Promise<Row[]>,
) {
  const limit = q.limit ?? 25;
  const after = cursors.decode(endpoint, q.cursor, NAME_POSITION);
  const rows = await load({ nameContains: q.q, after, limit });
  return cursors.page(
    endpoint,
    rows,
    limit,
    (r) => r,
    (r) => ({ n: r.name, id: r.id }),
  );
}
