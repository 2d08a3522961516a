import type { StateStore } from '../state/state-store.ts';
import type { EntityRow, PodcastRow, PublisherRow } from './catalog-reader.ts';

/**
 * The catalog as pages: podcasts by popularity, publishers and entities by name, entity
 * categories, podcast counts. Each page is read past a position and one row longer than asked
 * (the caller knows from it whether there is more). The API's list routes are given this service.
 */
export class CatalogLists {
  constructor(private readonly state: StateStore) {}

  /** Podcasts, most popular first (`popularity` null counts as -1), past `after`. */
  podcasts(p: {
    /** Publisher id; null for any. */
    publisherId: string | null;
    /** Primary language subtag, lower case; null for any. */
    language: string | null;
    /** Category slug; null for any. */
    category: string | null;
    after: { p: number; id: string } | undefined;
    limit: number;
  }): Promise<PodcastRow[]> {
    return this.state.query<PodcastRow>(
      `SELECT * FROM catalog_podcasts
         WHERE ($1::text IS NULL OR publisher_id = $1)
           AND ($2::text IS NULL OR lower(split_part(replace(language, '_', '-'), '-', 1)) = $2)
           AND ($3::text IS NULL OR categories @> jsonb_build_array(jsonb_build_object('slug', $3::text)))
           AND ($4::float8 IS NULL OR coalesce(popularity, -1) < $4 OR (coalesce(popularity, -1) = $4 AND id > $5))
         ORDER BY coalesce(popularity, -1) DESC, id ASC LIMIT $6`,
      [p.publisherId, p.language, p.category, p.after?.p ?? null, p.after?.id ?? '', p.limit + 1],
    );
  }

  /** Publishers by name (`nameContains`: a case-insensitive part of it), past `after`. */
  publishers(p: NamePage): Promise<PublisherRow[]> {
    return this.state.query<PublisherRow>(
      `SELECT * FROM catalog_publishers
         WHERE ($1::text IS NULL OR name ILIKE '%' || $1 || '%') AND ($2::text IS NULL OR (name, id) > ($2, $3))
         ORDER BY name, id LIMIT $4`,
      [likeText(p.nameContains), p.after?.n ?? null, p.after?.id ?? '', p.limit + 1],
    );
  }

  /** Companies or people by name, past `after`. */
  entities(kind: 'COMPANY' | 'PERSON', p: NamePage): Promise<EntityRow[]> {
    return this.state.query<EntityRow>(
      `SELECT * FROM catalog_entities
       WHERE kind = $1 AND ($2::text IS NULL OR name ILIKE '%' || $2 || '%') AND ($3::text IS NULL OR (name, id) > ($3, $4))
       ORDER BY name, id LIMIT $5`,
      [kind, likeText(p.nameContains), p.after?.n ?? null, p.after?.id ?? '', p.limit + 1],
    );
  }

  /** How many podcasts each publisher has (publishers with none are absent). */
  async podcastCounts(publisherIds: string[]): Promise<Map<string, number>> {
    const counts = await this.state.query<{ publisher_id: string; n: number }>(
      'SELECT publisher_id, count(*)::int AS n FROM catalog_podcasts WHERE publisher_id = ANY($1::text[]) GROUP BY publisher_id',
      [publisherIds],
    );
    return new Map(counts.map((c) => [c.publisher_id, Number(c.n)]));
  }

  /** How many podcasts one publisher has. */
  async podcastCount(publisherId: string): Promise<number> {
    const [count] = await this.state.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM catalog_podcasts WHERE publisher_id = $1',
      [publisherId],
    );
    return Number(count?.n ?? 0);
  }

  /**
   * Entity categories (their slugs) in slug order past `after`, with the entities each holds;
   * every category when `limit` is absent.
   */
  async entityTypes(
    after: string | undefined,
    limit: number | undefined,
  ): Promise<{ slug: string; name: string; entity_count: number }[]> {
    const rows = await this.state.query<{ slug: string; name: string; entity_count: number }>(
      `SELECT category_slug AS slug, min(category_name) AS name, count(*)::int AS entity_count
         FROM catalog_entities WHERE ($1::text IS NULL OR category_slug > $1)
         GROUP BY category_slug ORDER BY category_slug ${limit ? 'LIMIT $2' : ''}`,
      limit ? [after ?? null, limit + 1] : [after ?? null],
    );
    return rows.map((r) => ({ ...r, entity_count: Number(r.entity_count) }));
  }
}

/** A page of rows in name order. */
export interface NamePage {
  /** A case-insensitive part of the name; undefined for any. */
  nameContains: string | undefined;
  after: { n: string; id: string } | undefined;
  limit: number;
}

/** `nameContains` as ILIKE text: its `\`, `%` and `_` match themselves. */
function likeText(nameContains: string | undefined): string | null {
  return nameContains !== undefined ? nameContains.replace(/[\\%_]/g, (c) => `\\${c}`) : null;
}
