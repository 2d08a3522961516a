import type { StateStore } from '../state/state-store.ts';

export interface PublisherRow {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  website_url: string | null;
  image_url: string | null;
  updated_at: Date;
}

export interface PodcastRow {
  id: string;
  slug: string;
  directory_id: number | null;
  title: string;
  description: string | null;
  publisher_id: string | null;
  language: string;
  categories: { slug: string; name: string; parent_slug: string | null }[];
  hosts: string[];
  image_url: string | null;
  feed_url: string | null;
  website_url: string | null;
  content_advisory_rating: string | null;
  popularity: number | null;
  updated_at: Date;
}

export interface PersonFacts {
  title: string | null;
  company_id: string | null;
  occupation: { code: string; system: string; slug: string; title: string; group: string | null } | null;
  field: { code: string; slug: string; title: string } | null;
  standing: string | null;
  seniority: string | null;
  practicing: boolean | null;
}

export interface EntityRow {
  id: string;
  slug: string;
  kind: 'PERSON' | 'COMPANY' | 'KNOWLEDGE_GRAPH_ENTITY';
  name: string;
  description: string | null;
  wikipedia_url: string | null;
  image_url: string | null;
  category_slug: string;
  category_name: string;
  aliases: string[];
  nicknames: string[];
  handles: string[];
  context_terms: string[];
  company_domain: string | null;
  company_ticker: string | null;
  person: PersonFacts | null;
  updated_at: Date;
}

export interface EpisodeRow {
  id: string;
  slug: string;
  podcast_id: string;
  guid: string | null;
  title: string;
  description: string | null;
  published_at: Date;
  duration_seconds: number | null;
  audio_url: string | null;
  image_url: string | null;
  language: string | null;
  people: { name: string; role: string }[];
  source: string;
}

const TTL_MS = 30_000;

/** The catalog kinds whose slugs are unique, and their tables. */
export type SlugKind = 'publisher' | 'podcast' | 'entity' | 'episode';
const SLUG_TABLES: Record<SlugKind, string> = {
  publisher: 'catalog_publishers',
  podcast: 'catalog_podcasts',
  entity: 'catalog_entities',
  episode: 'catalog_episodes',
};

/**
 * Resolves references the way the API accepts them — podcasts by slug, id or numeric directory
 * id; companies by slug, domain or id; everything else by slug or id — and reads catalog rows
 * in bulk. Results are cached briefly; the catalog projector clears the cache when it writes.
 */
export class CatalogReader {
  private readonly cache = new Map<string, { value: unknown; until: number }>();

  constructor(private readonly state: StateStore) {}

  invalidate(): void {
    this.cache.clear();
  }

  private async cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && hit.until > now) return hit.value as T;
    const value = await load();
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(key, { value, until: now + TTL_MS });
    return value;
  }

  /**
   * Which id holds each of `slugs` in the catalog now (slug → id), for the kinds whose slugs are
   * unique. Not cached: ingest asks it to refuse a record whose slug another id holds.
   */
  async slugHolders(kind: SlugKind, slugs: string[]): Promise<Map<string, string>> {
    if (slugs.length === 0) return new Map();
    const rows = await this.state.query<{ slug: string; id: string }>(
      `SELECT slug, id FROM ${SLUG_TABLES[kind]} WHERE slug = ANY($1::text[])`,
      [slugs],
    );
    return new Map(rows.map((r) => [r.slug, r.id]));
  }

  async publisher(ref: string): Promise<PublisherRow | undefined> {
    return this.cached(`pub:${ref}`, async () => {
      const [row] = await this.state.query<PublisherRow>(
        'SELECT * FROM catalog_publishers WHERE id = $1 OR slug = $1 ORDER BY (id = $1) DESC LIMIT 1',
        [ref],
      );
      return row;
    });
  }

  async podcast(ref: string): Promise<PodcastRow | undefined> {
    return this.cached(`pod:${ref}`, async () => {
      const directoryId = /^\d{1,15}$/.test(ref) ? Number(ref) : null;
      const [row] = await this.state.query<PodcastRow>(
        `SELECT * FROM catalog_podcasts WHERE id = $1 OR slug = $1 OR directory_id = $2
         ORDER BY (id = $1) DESC, (slug = $1) DESC LIMIT 1`,
        [ref, directoryId],
      );
      return row;
    });
  }

  async entity(ref: string): Promise<EntityRow | undefined> {
    return this.cached(`ent:${ref}`, async () => {
      const [row] = await this.state.query<EntityRow>(
        'SELECT * FROM catalog_entities WHERE id = $1 OR slug = $1 ORDER BY (id = $1) DESC LIMIT 1',
        [ref],
      );
      return row;
    });
  }

  /** A company entity by id, slug or domain (`apple.com`, `www.apple.com` and `https://apple.com/` alike). */
  async company(ref: string): Promise<EntityRow | undefined> {
    return this.cached(`co:${ref}`, async () => {
      const domain = ref
        .trim()
        .toLowerCase()
        .replace(/^https?:\/\//, '')
        .replace(/^www\./, '')
        .replace(/\/.*$/, '');
      const [row] = await this.state.query<EntityRow>(
        `SELECT * FROM catalog_entities WHERE kind = 'COMPANY' AND (id = $1 OR slug = $1 OR lower(company_domain) = $2)
         ORDER BY (id = $1) DESC, (slug = $1) DESC LIMIT 1`,
        [ref, domain],
      );
      return row;
    });
  }

  async episode(ref: string): Promise<EpisodeRow | undefined> {
    return this.cached(`ep:${ref}`, async () => {
      const [row] = await this.state.query<EpisodeRow>(
        'SELECT * FROM catalog_episodes WHERE id = $1 OR slug = $1 ORDER BY (id = $1) DESC LIMIT 1',
        [ref],
      );
      return row;
    });
  }

  /** Entities for slugs or ids, in the order asked; references that resolve to nothing are left out. */
  async entities(refs: string[]): Promise<EntityRow[]> {
    if (refs.length === 0) return [];
    const rows = await this.state.query<EntityRow>(
      'SELECT * FROM catalog_entities WHERE id = ANY($1::text[]) OR slug = ANY($1::text[])',
      [refs],
    );
    const out: EntityRow[] = [];
    const seen = new Set<string>();
    for (const ref of refs) {
      const row = rows.find((r) => r.id === ref) ?? rows.find((r) => r.slug === ref);
      if (row && !seen.has(row.id)) {
        seen.add(row.id);
        out.push(row);
      }
    }
    return out;
  }

  async entitiesByIds(ids: string[]): Promise<Map<string, EntityRow>> {
    return this.byIds<EntityRow>('catalog_entities', ids);
  }

  async podcastsByIds(ids: string[]): Promise<Map<string, PodcastRow>> {
    return this.byIds<PodcastRow>('catalog_podcasts', ids);
  }

  async publishersByIds(ids: string[]): Promise<Map<string, PublisherRow>> {
    return this.byIds<PublisherRow>('catalog_publishers', ids);
  }

  async episodesByIds(ids: string[]): Promise<Map<string, EpisodeRow>> {
    return this.byIds<EpisodeRow>('catalog_episodes', ids);
  }

  private async byIds<T extends { id: string }>(table: string, ids: string[]): Promise<Map<string, T>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const rows = await this.state.query<T>(`SELECT * FROM ${table} WHERE id = ANY($1::text[])`, [unique]);
    return new Map(rows.map((r) => [r.id, r]));
  }
}
