import type { CatalogReader, PodcastRow } from '../../../projections/catalog/catalog-reader.ts';
import type { Queryable, StateStore } from '../../../projections/state/state-store.ts';
import type { MatchRelevance } from '../../../schemas/event-enums.ts';
import {
  type AlertFilters,
  channelKey,
  needsPopularity,
  type PopularityBadge,
  passesFilters,
  popularityBadge,
} from '../model.ts';
import { webhookConnectionUrls } from '../rules/alerts-store.ts';

/**
 * Reads of the match and delivery read models, shared by the REST API and the senders.
 *
 * For the senders (webhook, email, chat):
 *
 *   matchDocument(services, matchId, { audience: 'webhook' })   → the webhook `match` object
 *   matchDocuments(services, ids, { audience })                  → several, in the order asked
 *   digestSummary(doc)                                           → a digest `matches[]` item
 *   deliveryPageUrl(publicUrl, deliveryId)                       → the envelope's `url`
 *   sampleMatchDocument(services, alert, { audience })           → a real-shaped match for test sends
 *
 * `audience: 'rest'` is the REST single-match read: the match with `monitor_id` (deprecated, =
 * alert_id), `deliveries` (the deliveries that carried it) and an `episode` block holding the
 * podcast's popularity badge, its popularity percentile (`podcast_popularity`) and political
 * bias (`podcast_bias`). `audience: 'webhook'` is the same minus `deliveries`, `monitor_id` and
 * `podcast_popularity` (the badge stays). Timestamps are RFC 3339 strings. A digest item is the
 * match without `windows` and with one `clip_url` (the first window's).
 */

export interface AlertReadServices {
  state: StateStore;
  catalog: CatalogReader;
  /** Political bias of podcasts; `podcast_bias` is null without it. */
  podcastBias?: PodcastBiasReader;
}

export interface PodcastBias {
  bias: 'LEFT' | 'LEAN_LEFT' | 'CENTER' | 'LEAN_RIGHT' | 'RIGHT' | null;
  lean_score: number | null;
  is_political: boolean;
  political_context: string;
  evaluated_at: string;
}

export interface PodcastBiasReader {
  biasOf(podcastIds: string[]): Promise<Map<string, PodcastBias>>;
}

export interface MatchLineDoc {
  speaker: string;
  role: string | null;
  start_seconds: number;
  end_seconds: number;
  text: string;
  is_mention: boolean;
}

export interface MatchWindowDoc {
  start_seconds: number;
  end_seconds: number;
  lines: MatchLineDoc[];
  clip_url: string | null;
  clip_id?: string;
  clip_title?: string;
  clip_type?: string;
}

export interface EpisodeBlock {
  title: string;
  slug: string;
  published_at: string;
  podcast_id: string;
  podcast_title: string;
  podcast_slug: string;
  podcast_image_url: string | null;
  podcast_popularity_badge: PopularityBadge | null;
  podcast_popularity?: number | null;
  podcast_bias: PodcastBias | null;
}

export interface MatchDeliveryRef {
  id: string;
  cadence: string;
  created_at: string;
}

export interface MatchDocument {
  id: string;
  alert_id: string;
  monitor_id?: string;
  kind: string;
  entity_type: string;
  entity_id: string;
  source_type: string;
  source_id: string;
  detected_at: string;
  mention_count: number;
  /** mention alerts */
  mention_variants?: string[];
  relevance: MatchRelevance;
  /** speaker alerts */
  roles?: string[];
  is_backfilled: boolean;
  episode?: EpisodeBlock;
  windows: MatchWindowDoc[];
  deliveries?: MatchDeliveryRef[];
}

export type DigestMatch = Omit<MatchDocument, 'windows'> & { clip_url: string | null };

export type Audience = 'rest' | 'webhook';

/** The stored AlertMatched event (document column of alert_matches). */
interface StoredMatch {
  id: string;
  alert_id: string;
  kind: string;
  entity_type: string;
  entity_id: string;
  source_type: string;
  source_id: string;
  podcast_id: string;
  published_at: number;
  detected_at: number;
  mention_count: number;
  mention_variants: string[];
  relevance: MatchRelevance;
  roles: string[];
  is_backfilled: boolean;
  windows: {
    start_seconds: number;
    end_seconds: number;
    lines: (MatchLineDoc & { number: number })[];
    clip_url: string | null;
    clip_id: string | null;
    clip_title: string | null;
    clip_type: string | null;
  }[];
}

export interface MatchRow {
  id: string;
  alert_id: string;
  podcast_id: string;
  episode_id: string;
  relevance: string;
  detected_at: Date | string;
  document: StoredMatch;
}

function windowsOf(m: StoredMatch): MatchWindowDoc[] {
  return m.windows.map((w) => {
    const out: MatchWindowDoc = {
      start_seconds: w.start_seconds,
      end_seconds: w.end_seconds,
      lines: w.lines.map((l) => ({
        speaker: l.speaker,
        role: l.role,
        start_seconds: l.start_seconds,
        end_seconds: l.end_seconds,
        text: l.text,
        is_mention: l.is_mention,
      })),
      clip_url: w.clip_url,
    };
    if (w.clip_id !== null) out.clip_id = w.clip_id;
    if (w.clip_title !== null) out.clip_title = w.clip_title;
    if (w.clip_type !== null) out.clip_type = w.clip_type;
    return out;
  });
}

/** A match without its episode block (the matches list shape, `deliveries` added by the caller). */
export function matchCore(m: StoredMatch, audience: Audience): MatchDocument {
  const doc: MatchDocument = {
    id: m.id,
    alert_id: m.alert_id,
    kind: m.kind,
    entity_type: m.entity_type,
    entity_id: m.entity_id,
    source_type: m.source_type,
    source_id: m.source_id,
    detected_at: new Date(m.detected_at).toISOString(),
    mention_count: m.mention_count,
    relevance: m.relevance,
    is_backfilled: m.is_backfilled,
    windows: windowsOf(m),
  };
  if (m.kind === 'ENTITY_MENTION') doc.mention_variants = m.mention_variants;
  else doc.roles = m.roles;
  if (audience === 'rest') doc.monitor_id = m.alert_id;
  return doc;
}

function episodeBlock(
  m: StoredMatch,
  episode: { title: string; slug: string; published_at: Date | string } | undefined,
  podcast: PodcastRow | undefined,
  bias: PodcastBias | undefined,
  audience: Audience,
): EpisodeBlock {
  const block: EpisodeBlock = {
    title: episode?.title ?? '',
    slug: episode?.slug ?? m.source_id,
    published_at: new Date(episode?.published_at ?? m.published_at).toISOString(),
    podcast_id: m.podcast_id,
    podcast_title: podcast?.title ?? '',
    podcast_slug: podcast?.slug ?? m.podcast_id,
    podcast_image_url: podcast?.image_url ?? null,
    podcast_popularity_badge: popularityBadge(podcast?.popularity),
    podcast_bias: bias ?? null,
  };
  if (audience === 'rest') block.podcast_popularity = podcast?.popularity ?? null;
  return block;
}

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
    'SELECT id, alert_id, podcast_id, episode_id, relevance, detected_at, document FROM alert_matches WHERE id = ANY($1::text[])',
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
      const doc = matchCore(r.document, audience);
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

/** A digest item: the match without `windows`, with one `clip_url` (the first window's). */
export function digestSummary(doc: MatchDocument): DigestMatch {
  const { windows, ...rest } = doc;
  return { ...rest, clip_url: windows.find((w) => w.clip_url)?.clip_url ?? null };
}

/** The delivery page a notification links to: the delivery landing of the API. */
export function deliveryPageUrl(publicUrl: string, deliveryId: string): string {
  return `${publicUrl.replace(/\/$/, '')}/v1/alerts/deliveries/${encodeURIComponent(deliveryId)}`;
}

/**
 * A real-shaped match for a test send: the alert's newest match when it has one, else a
 * synthetic match on its first entity (id `match_test_…`, an example episode).
 */
export async function sampleMatchDocument(
  services: AlertReadServices,
  alert: { id: string; kind: string; entities: { entity_type: string; entity_id: string }[] },
  options: { audience: Audience },
  now = Date.now(),
): Promise<MatchDocument> {
  const [latest] = await services.state.query<{ id: string }>(
    'SELECT id FROM alert_matches WHERE alert_id = $1 ORDER BY detected_at DESC, id DESC LIMIT 1',
    [alert.id],
  );
  const found = latest ? await matchDocument(services, latest.id, options) : undefined;
  if (found) return found;
  const entity = alert.entities[0]!;
  const at = new Date(now).toISOString();
  const doc: MatchDocument = {
    id: `match_test_${alert.id}`,
    alert_id: alert.id,
    kind: alert.kind,
    entity_type: entity.entity_type,
    entity_id: entity.entity_id,
    source_type: 'PODCAST_EPISODE',
    source_id: 'ep_test',
    detected_at: at,
    mention_count: 1,
    ...(alert.kind === 'ENTITY_MENTION' ? { mention_variants: ['Example'] } : { roles: ['GUEST'] }),
    relevance: 'on_target',
    is_backfilled: false,
    episode: {
      title: 'Test episode',
      slug: 'test-episode',
      published_at: at,
      podcast_id: 'pod_test',
      podcast_title: 'Test podcast',
      podcast_slug: 'test-podcast',
      podcast_image_url: null,
      podcast_popularity_badge: null,
      podcast_bias: null,
    },
    windows: [
      {
        start_seconds: 0,
        end_seconds: 5,
        lines: [
          {
            speaker: 'Test Speaker',
            role: alert.kind === 'PODCAST_SPEAKER' ? 'GUEST' : 'HOST',
            start_seconds: 0,
            end_seconds: 5,
            text: 'This is a test delivery.',
            is_mention: true,
          },
        ],
        clip_url: null,
      },
    ],
  };
  if (options.audience === 'rest') {
    doc.monitor_id = alert.id;
    doc.episode!.podcast_popularity = null;
    doc.deliveries = [];
  }
  return doc;
}

// ---------------------------------------------------------------------------------------------
// Lists.

export interface MatchPosition {
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
  after: MatchPosition | undefined,
  limit: number,
): Promise<{ data: MatchDocument[]; next?: MatchPosition }> {
  const chunk = Math.max(limit + 1, 100);
  const kept: MatchRow[] = [];
  let cursor = after;
  for (;;) {
    const rows = await services.state.query<MatchRow>(
      `SELECT id, alert_id, podcast_id, episode_id, relevance, detected_at, document FROM alert_matches
       WHERE alert_id = $1 AND ($2::timestamptz IS NULL OR (detected_at, id) < ($2::timestamptz, $3::text))
       ORDER BY detected_at DESC, id DESC LIMIT $4`,
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
    ...matchCore(r.document, 'rest'),
    deliveries: deliveries.get(r.id) ?? [],
  }));
  const last = page.at(-1);
  return {
    data,
    next:
      kept.length > limit && last ? { d: new Date(last.detected_at).toISOString(), i: last.id } : undefined,
  };
}

export type ChannelStatus = 'PENDING' | 'RETRYING' | 'DELIVERED' | 'ABANDONED';
export type DeliveryStatus = 'PENDING' | 'DELIVERING' | 'DELIVERED' | 'PARTIALLY_DELIVERED' | 'ABANDONED';

export interface DeliveryChannelDoc {
  type: string;
  email?: string;
  webhook_connection_id?: string;
  chat_connection_id?: string;
  chat_channel_id?: string;
  status: ChannelStatus;
  attempts: number;
  status_code: number | null;
  error: string | null;
  last_attempt_at: string | null;
}

export interface DeliveryDoc {
  id: string;
  alert_id: string;
  cadence: string;
  status: DeliveryStatus;
  window_start: string | null;
  window_end: string | null;
  match_count: number;
  channels: DeliveryChannelDoc[];
  created_at: string;
  url: string;
}

interface DeliveryRow {
  id: string;
  alert_id: string;
  project_id: string;
  cadence: string;
  window_start: Date | string | null;
  window_end: Date | string | null;
  match_ids: string[];
  requested_at: Date | string;
}

interface ChannelRow {
  delivery_id: string;
  channel_key: string;
  type: string;
  email: string | null;
  webhook_connection_id: string | null;
  chat_connection_id: string | null;
  chat_channel_id: string | null;
}

interface OutcomeRow {
  delivery_id: string;
  channel_type: string;
  destination: string;
  status: ChannelStatus;
  attempts: number;
  status_code: number | null;
  error: string | null;
  last_attempt_at: Date | string | null;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/**
 * Pairs senders' outcomes with a delivery's channels: by channel key (`EMAIL:addr`,
 * `WEBHOOK:whc_…`, `CHAT:conn/channel`) or the bare address / connection id / `conn/channel`;
 * for webhooks also by the connection's url; and a lone channel of a type takes the lone
 * outcome of that type.
 */
function pairOutcomes(
  channels: ChannelRow[],
  outcomes: OutcomeRow[],
  urls: Map<string, string>,
): Map<string, OutcomeRow> {
  const paired = new Map<string, OutcomeRow>();
  const used = new Set<OutcomeRow>();
  for (const c of channels) {
    const names = new Set([c.channel_key, c.channel_key.slice(c.channel_key.indexOf(':') + 1)]);
    if (c.type === 'WEBHOOK' && c.webhook_connection_id && urls.has(c.webhook_connection_id)) {
      names.add(urls.get(c.webhook_connection_id)!);
    }
    const o = outcomes.find(
      (x) =>
        !used.has(x) &&
        x.channel_type === c.type &&
        names.has(c.type === 'EMAIL' ? x.destination.toLowerCase() : x.destination),
    );
    if (o) {
      paired.set(c.channel_key, o);
      used.add(o);
    }
  }
  for (const type of new Set(channels.map((c) => c.type))) {
    const open = channels.filter((c) => c.type === type && !paired.has(c.channel_key));
    const left = outcomes.filter((o) => o.channel_type === type && !used.has(o));
    if (open.length === 1 && left.length === 1 && channels.filter((c) => c.type === type).length === 1) {
      paired.set(open[0]!.channel_key, left[0]!);
    }
  }
  return paired;
}

function overall(channels: DeliveryChannelDoc[]): DeliveryStatus {
  if (channels.length === 0) return 'PENDING';
  const final = channels.every((c) => c.status === 'DELIVERED' || c.status === 'ABANDONED');
  if (!final)
    return channels.some((c) => c.attempts > 0 || c.status === 'RETRYING') ? 'DELIVERING' : 'PENDING';
  const delivered = channels.filter((c) => c.status === 'DELIVERED').length;
  if (delivered === channels.length) return 'DELIVERED';
  return delivered === 0 ? 'ABANDONED' : 'PARTIALLY_DELIVERED';
}

async function deliveryDocs(
  services: AlertReadServices,
  rows: DeliveryRow[],
  publicUrl: string,
): Promise<DeliveryDoc[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [channels, outcomes] = await Promise.all([
    services.state.query<ChannelRow>(
      'SELECT * FROM delivery_channels WHERE delivery_id = ANY($1::text[]) ORDER BY channel_key',
      [ids],
    ),
    services.state.query<OutcomeRow>('SELECT * FROM delivery_outcomes WHERE delivery_id = ANY($1::text[])', [
      ids,
    ]),
  ]);
  const urls = await webhookConnectionUrls(
    services.state,
    channels.filter((c) => c.webhook_connection_id).map((c) => c.webhook_connection_id!),
  );
  return rows.map((r) => {
    const mine = channels.filter((c) => c.delivery_id === r.id);
    const paired = pairOutcomes(
      mine,
      outcomes.filter((o) => o.delivery_id === r.id),
      urls,
    );
    const docs: DeliveryChannelDoc[] = mine.map((c) => {
      const o = paired.get(c.channel_key);
      const doc: DeliveryChannelDoc = {
        type: c.type,
        status: o?.status ?? 'PENDING',
        attempts: o?.attempts ?? 0,
        status_code: o?.status_code ?? null,
        error: o?.error ?? null,
        last_attempt_at: iso(o?.last_attempt_at ?? null),
      };
      if (c.email !== null) doc.email = c.email;
      if (c.webhook_connection_id !== null) doc.webhook_connection_id = c.webhook_connection_id;
      if (c.chat_connection_id !== null) doc.chat_connection_id = c.chat_connection_id;
      if (c.chat_channel_id !== null) doc.chat_channel_id = c.chat_channel_id;
      return doc;
    });
    return {
      id: r.id,
      alert_id: r.alert_id,
      cadence: r.cadence,
      status: overall(docs),
      window_start: iso(r.window_start),
      window_end: iso(r.window_end),
      match_count: r.match_ids.length,
      channels: docs,
      created_at: new Date(r.requested_at).toISOString(),
      url: deliveryPageUrl(publicUrl, r.id),
    };
  });
}

export interface DeliveryPosition {
  d: string;
  i: string;
}

/** A page of an alert's deliveries, newest first. */
export async function deliveriesPage(
  services: AlertReadServices,
  alertId: string,
  after: DeliveryPosition | undefined,
  limit: number,
  publicUrl: string,
): Promise<{ data: DeliveryDoc[]; next?: DeliveryPosition }> {
  const rows = await services.state.query<DeliveryRow>(
    `SELECT * FROM deliveries WHERE alert_id = $1
       AND ($2::timestamptz IS NULL OR (requested_at, id) < ($2::timestamptz, $3::text))
     ORDER BY requested_at DESC, id DESC LIMIT $4`,
    [alertId, after?.d ?? null, after?.i ?? '', limit + 1],
  );
  const page = rows.slice(0, limit);
  const data = await deliveryDocs(services, page, publicUrl);
  const last = page.at(-1);
  return {
    data,
    next:
      rows.length > limit && last ? { d: new Date(last.requested_at).toISOString(), i: last.id } : undefined,
  };
}

/** One delivery with its project, or undefined. */
export async function deliveryDocument(
  services: AlertReadServices,
  id: string,
  publicUrl: string,
): Promise<{ delivery: DeliveryDoc; projectId: string; matchIds: string[] } | undefined> {
  const [row] = await services.state.query<DeliveryRow>('SELECT * FROM deliveries WHERE id = $1', [id]);
  if (!row) return undefined;
  const [delivery] = await deliveryDocs(services, [row], publicUrl);
  return { delivery: delivery!, projectId: row.project_id, matchIds: row.match_ids };
}

/** The channel key of a channel, re-exported for senders that record outcomes. */
export { channelKey };
