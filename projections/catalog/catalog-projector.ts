import { PermanentWriteError, type ProcessorDefinition } from '../../processors/consumer-runner.ts';
import { ok, skip } from '../../processors/step-result.ts';
import type { Entity, EpisodePublished, Podcast, Publisher } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { FOREIGN_KEY_VIOLATION, type StateStore, sqlState, UNIQUE_VIOLATION } from '../state/state-store.ts';

export type CatalogItem =
  | { kind: 'publisher'; value: Publisher }
  | { kind: 'podcast'; value: Podcast }
  | { kind: 'entity'; value: Entity }
  | { kind: 'episode'; value: EpisodePublished };

const KIND_BY_TOPIC: Record<string, CatalogItem['kind']> = {
  [TOPICS.publishers.name]: 'publisher',
  [TOPICS.podcasts.name]: 'podcast',
  [TOPICS.entities.name]: 'entity',
  [TOPICS.episodes.name]: 'episode',
};

/**
 * Upserts, one statement per kind and batch. Versioned records (with `updated_at`) only replace
 * an older version, so a replay or a late duplicate never rolls a record back.
 */
const UPSERTS: Record<CatalogItem['kind'], string> = {
  publisher: `
    INSERT INTO catalog_publishers (id, slug, name, description, website_url, image_url, updated_at)
    SELECT id, slug, name, description, website_url, image_url, to_timestamp(updated_at / 1000.0)
    FROM jsonb_to_recordset($1::jsonb) AS x(id text, slug text, name text, description text, website_url text,
      image_url text, updated_at float8)
    ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, name = excluded.name, description = excluded.description,
      website_url = excluded.website_url, image_url = excluded.image_url, updated_at = excluded.updated_at
    WHERE excluded.updated_at >= catalog_publishers.updated_at`,
  podcast: `
    INSERT INTO catalog_podcasts (id, slug, directory_id, title, description, publisher_id, language, categories, hosts,
      image_url, feed_url, website_url, content_advisory_rating, popularity, updated_at)
    SELECT id, slug, directory_id, title, description, publisher_id, language, categories, hosts, image_url, feed_url,
      website_url, content_advisory_rating, popularity, to_timestamp(updated_at / 1000.0)
    FROM jsonb_to_recordset($1::jsonb) AS x(id text, slug text, directory_id int8, title text, description text,
      publisher_id text, language text, categories jsonb, hosts text[], image_url text, feed_url text, website_url text,
      content_advisory_rating text, popularity float8, updated_at float8)
    ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, directory_id = excluded.directory_id, title = excluded.title,
      description = excluded.description, publisher_id = excluded.publisher_id, language = excluded.language,
      categories = excluded.categories, hosts = excluded.hosts, image_url = excluded.image_url,
      feed_url = excluded.feed_url, website_url = excluded.website_url,
      content_advisory_rating = excluded.content_advisory_rating, popularity = excluded.popularity,
      updated_at = excluded.updated_at
    WHERE excluded.updated_at >= catalog_podcasts.updated_at`,
  entity: `
    INSERT INTO catalog_entities (id, slug, kind, name, description, wikipedia_url, image_url, category_slug,
      category_name, aliases, nicknames, handles, context_terms, company_domain, company_ticker, person, updated_at)
    SELECT id, slug, kind, name, description, wikipedia_url, image_url, category->>'slug', category->>'name', aliases,
      nicknames, handles, context_terms, company->>'domain', company->>'ticker', person, to_timestamp(updated_at / 1000.0)
    FROM jsonb_to_recordset($1::jsonb) AS x(id text, slug text, kind text, name text, description text,
      wikipedia_url text, image_url text, category jsonb, aliases text[], nicknames text[], handles text[],
      context_terms text[], company jsonb, person jsonb, updated_at float8)
    ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, kind = excluded.kind, name = excluded.name,
      description = excluded.description, wikipedia_url = excluded.wikipedia_url, image_url = excluded.image_url,
      category_slug = excluded.category_slug, category_name = excluded.category_name, aliases = excluded.aliases,
      nicknames = excluded.nicknames, handles = excluded.handles, context_terms = excluded.context_terms,
      company_domain = excluded.company_domain, company_ticker = excluded.company_ticker, person = excluded.person,
      updated_at = excluded.updated_at
    WHERE excluded.updated_at >= catalog_entities.updated_at`,
  episode: `
    INSERT INTO catalog_episodes (id, slug, podcast_id, guid, title, description, published_at, duration_seconds,
      audio_url, image_url, language, people, source)
    SELECT id, slug, podcast_id, guid, title, description, to_timestamp(published_at / 1000.0), duration_seconds,
      audio_url, image_url, language, people, source
    FROM jsonb_to_recordset($1::jsonb) AS x(id text, slug text, podcast_id text, guid text, title text,
      description text, published_at float8, duration_seconds float8, audio_url text, image_url text, language text,
      people jsonb, source text)
    ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, podcast_id = excluded.podcast_id, guid = excluded.guid,
      title = excluded.title, description = excluded.description, published_at = excluded.published_at,
      duration_seconds = excluded.duration_seconds, audio_url = excluded.audio_url, image_url = excluded.image_url,
      language = excluded.language, people = excluded.people, source = excluded.source`,
};

/** The state store's tables the catalog projector writes (and a rebuild empties). */
export const CATALOG_TABLES = [
  'catalog_episodes',
  'catalog_entities',
  'catalog_podcasts',
  'catalog_publishers',
];

/** Projects the catalog topics into the state store's catalog tables. */
export function catalogProjector(
  state: StateStore,
  onWrite?: () => void,
): ProcessorDefinition<unknown, CatalogItem> {
  return {
    name: 'catalog-projector',
    groupId: 'projector.catalog',
    inputs: [TOPICS.publishers, TOPICS.podcasts, TOPICS.entities, TOPICS.episodes],
    handle(record) {
      const kind = KIND_BY_TOPIC[record.topic];
      if (!kind) return skip(`not a catalog topic: ${record.topic}`);
      return ok({ kind, value: record.value } as CatalogItem);
    },
    sink: {
      async probe() {
        await state.query('SELECT 1');
      },
      async write(items) {
        const byKind = new Map<CatalogItem['kind'], Map<string, unknown>>();
        for (const item of items) {
          const latest = byKind.get(item.kind) ?? new Map<string, unknown>();
          latest.set(item.value.id, item.value);
          byKind.set(item.kind, latest);
        }
        try {
          await state.transaction(async (tx) => {
            for (const kind of ['publisher', 'podcast', 'entity', 'episode'] as const) {
              const values = byKind.get(kind);
              if (values) await tx.query(UPSERTS[kind], [JSON.stringify([...values.values()])]);
            }
          });
        } catch (err) {
          const code = sqlState(err);
          if (code === UNIQUE_VIOLATION || code === FOREIGN_KEY_VIOLATION) {
            throw new PermanentWriteError((err as Error).message);
          }
          throw err;
        }
        onWrite?.();
      },
    },
  };
}
