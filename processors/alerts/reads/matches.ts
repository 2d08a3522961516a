import type { CatalogReader } from '../../../projections/catalog/catalog-reader.ts';
import type { Queryable, StateStore } from '../../../projections/state/state-store.ts';
import type { AlertMatched } from '../../../schemas/generated/index.ts';
import { type AlertFilters, filtersCanDrop, needsPopularity, passesFilters } from '../model.ts';
import {
  type Audience,
  episodeBlock,
  type MatchDeliveryRef,
  type MatchDocument,
  matchCore,
  type PodcastBias,
  syntheticMatch,
} from '../presentation/match-document.ts';
import type { PodcastBiasReader } from './bias.ts';

/**
 * Reads of the match read model (`alert_matches`), shared by the REST API and the senders:
 *
 *   matchDocument(services, matchId, { audience: 'webhook' })   → the webhook `match` object
 *   matchDocuments(services, ids, { audience })                  → several, in the order asked
 *   sampleMatchDocument(services, alert, { audience })           → a real-shaped match for test sends
 *   matchesPage(services, alert, after, limit)                   → an alert's matches, newest first
 *
 * The documents are shaped in presentation/match-document.ts (audiences, digest items).
 */

export interface AlertReadServices {
  state: StateStore;
  catalog: CatalogReader;
  /** Political bias of podcasts; `podcast_bias` is null without it. */
  podcastBias?: PodcastBiasReader;
}

export interface MatchRow {
  id: string;
  alert_id: string;
  podcast_id: string;
  episode_id: string;
  relevance: string;
  detected_at: Date | string;
  /** The stored `alerts.matched` event. */
  document: AlertMatched;
  /** From `alert_match_summaries`; null until the summarizer has written it. */
  llm_summary: string | null;
}

/** The columns of a match row, `m` being `alert_matches` joined with its summary `s`. */
const MATCH_COLUMNS = `m.id, m.alert_id, m.podcast_id, m.episode_id, m.relevance, m.detected_at, m.document,
  s.summary AS llm_summary`;
const MATCH_FROM = 'alert_matches m LEFT JOIN alert_match_summaries s ON s.match_id = m.id';

async function deliveriesOf(db: Queryable, matchIds: string[]): Promise<Map<string, MatchDeliveryRef[]>> {
  const out = new Map<string, MatchDeliveryRef[]>();
  if (matchIds.length === 0) return out;
  const rows = await db.query<{ match_id: string; id: string; cadence: string; requested_at: Date | string }>(
    `SELECT dm.match_id, d.id, d.cadence, d.requested_at FROM delivery_matches dm
     JOIN deliveries d ON d.id = dm.delivery_id WHERE dm.match_id = ANY($1::text[])
     ORDER BY d.requested_at, d.id`,
    [matchIds],
  );
  for (const r of rows) {
    const list = out.get(r.match_id) ?? [];
    list.push({ id: r.id, cadence: r.cadence, created_at: new Date(r.requested_at).toISOString() });
    out.set(r.match_id, list);
  }
  return out;
}

/** Full match documents (with episode block) for ids, in the order asked; unknown ids are left out. */
export async function matchDocuments(
  services: AlertReadServices,
  ids: string[],
  { audience }: { audience: Audience },
): Promise<MatchDocument[]> {
  if (ids.length === 0) return [];
  const rows = await services.state.query<MatchRow>(
    `SELECT ${MATCH_COLUMNS} FROM ${MATCH_FROM} WHERE m.id = ANY($1::text[])`,
    [ids],
  );
  return renderRows(services, rows, audience, ids);
}

/**
 * Political bias of the rows' podcasts. For notifications (`audience: 'webhook'`) a failing bias
 * read leaves `podcast_bias` null rather than holding the delivery back; REST reads fail loudly.
 */
async function biasOf(
  services: AlertReadServices,
  rows: MatchRow[],
  audience: Audience,
): Promise<Map<string, PodcastBias>> {
  if (!services.podcastBias || rows.length === 0) return new Map();
  const read = services.podcastBias.biasOf([...new Set(rows.map((r) => r.podcast_id))]);
  return audience === 'webhook' ? read.catch(() => new Map<string, PodcastBias>()) : read;
}

async function renderRows(
  services: AlertReadServices,
  rows: MatchRow[],
  audience: Audience,
  order?: string[],
): Promise<MatchDocument[]> {
  const [episodes, podcasts, bias, deliveries] = await Promise.all([
    services.catalog.episodesByIds(rows.map((r) => r.episode_id)),
    services.catalog.podcastsByIds(rows.map((r) => r.podcast_id)),
    biasOf(services, rows, audience),
    audience === 'rest'
      ? deliveriesOf(
          services.state,
          rows.map((r) => r.id),
        )
      : new Map<string, MatchDeliveryRef[]>(),
  ]);
  const byId = new Map(
    rows.map((r) => {
      const doc = matchCore(r.document, audience, r.llm_summary);
      const { windows, ...rest } = doc;
      const full: MatchDocument = {
        ...rest,
        episode: episodeBlock(
          r.document,
          episodes.get(r.episode_id),
          podcasts.get(r.podcast_id),
          bias.get(r.podcast_id),
          audience,
        ),
        windows,
      };
      if (audience === 'rest') full.deliveries = deliveries.get(r.id) ?? [];
      return [r.id, full];
    }),
  );
  const ids = order ?? rows.map((r) => r.id);
  return ids.map((id) => byId.get(id)).filter((d): d is MatchDocument => d !== undefined);
}

/** One match with its episode block, or undefined. */
export async function matchDocument(
  services: AlertReadServices,
  id: string,
  options: { audience: Audience },
): Promise<MatchDocument | undefined> {
  return (await matchDocuments(services, [id], options))[0];
}

/**
 * A real-shaped match for a test send: the alert's newest match when it has one, else a
 * synthetic match on its first entity (id `match_test_…`, an example episode).
 */
export async function sampleMatchDocument(
  services: AlertReadServices,
  alert: Parameters<typeof syntheticMatch>[0],
  options: { audience: Audience },
  now = Date.now(),
): Promise<MatchDocument> {
  const [latest] = await services.state.query<{ id: string }>(
    'SELECT id FROM alert_matches WHERE alert_id = $1 ORDER BY detected_at DESC, id DESC LIMIT 1',
    [alert.id],
  );
  const found = latest ? await matchDocument(services, latest.id, options) : undefined;
  if (found) return found;
  return syntheticMatch(alert, options.audience, now);
}

// ---------------------------------------------------------------------------------------------
// Lists.

/** A keyset position in a list read newest first: detection (or request) time and id. */
export interface ListPosition {
  d: string;
  i: string;
}

/**
 * A page of an alert's matches, newest first, with the alert's read-time filters applied by
 * `passesFilters` (the same function the delivery planner and the digests use). Rows are read
 * in chunks until `limit + 1` pass. The episode block is omitted.
 */
export async function matchesPage(
  services: AlertReadServices,
  alert: { id: string; filters: AlertFilters },
  after: ListPosition | undefined,
  limit: number,
): Promise<{ data: MatchDocument[]; next?: ListPosition }> {
  // Without a read-time filter every row is kept: one page is read. With one, larger chunks.
  const chunk = filtersCanDrop(alert.filters) ? Math.max(limit + 1, 100) : limit + 1;
  const kept: MatchRow[] = [];
  let cursor = after;
  for (;;) {
    const rows = await services.state.query<MatchRow>(
      `SELECT ${MATCH_COLUMNS} FROM ${MATCH_FROM}
       WHERE m.alert_id = $1 AND ($2::timestamptz IS NULL OR (m.detected_at, m.id) < ($2::timestamptz, $3::text))
       ORDER BY m.detected_at DESC, m.id DESC LIMIT $4`,
      [alert.id, cursor?.d ?? null, cursor?.i ?? '', chunk],
    );
    const popularity = needsPopularity(alert.filters)
      ? await services.catalog.podcastsByIds(rows.map((r) => r.podcast_id))
      : undefined;
    for (const r of rows) {
      if (
        passesFilters(alert.filters, {
          relevance: r.relevance,
          popularity: popularity?.get(r.podcast_id)?.popularity,
        })
      ) {
        kept.push(r);
        if (kept.length > limit) break;
      }
    }
    if (kept.length > limit || rows.length < chunk) break;
    const last = rows.at(-1)!;
    cursor = { d: new Date(last.detected_at).toISOString(), i: last.id };
  }
  const page = kept.slice(0, limit);
  const deliveries = await deliveriesOf(
    services.state,
    page.map((r) => r.id),
  );
  const data = page.map((r) => ({
    ...matchCore(r.document, 'rest', r.llm_summary),
    deliveries: deliveries.get(r.id) ?? [],
  }));
  const last = page.at(-1);
  return {
    data,
    next:
      kept.length > limit && last ? { d: new Date(last.detected_at).toISOString(), i: last.id } : undefined,
  };
}
