import type { PodcastRow } from '../../../projections/catalog/catalog-reader.ts';
import type { AlertEntityType, AlertKind } from '../../../schemas/event-enums.ts';
import type { AlertMatched } from '../../../schemas/generated/index.ts';
import { type PopularityBadge, popularityBadge } from '../model.ts';

/**
 * A match as the service shows it: the REST reads, webhook bodies, and what emails and chat
 * messages are rendered from. One type for all of them; the audience decides a few fields.
 *
 * `audience: 'rest'` is the REST single-match read: the match with `monitor_id` (deprecated, =
 * alert_id), `deliveries` (the deliveries that carried it) and an `episode` block holding the
 * podcast's popularity badge, its popularity percentile (`podcast_popularity`) and political
 * bias (`podcast_bias`). `audience: 'webhook'` is the same minus `deliveries`, `monitor_id` and
 * `podcast_popularity` (the badge stays). Timestamps are RFC 3339 strings. A digest item
 * (`DigestMatch`) is the match without `windows` and with one `clip_url` (the first window's).
 *
 * Built from the stored `alerts.matched` event (schemas/avro/AlertMatched.avsc); the HTTP
 * response schemas of these documents are in http-schemas.ts.
 */
export type Audience = 'rest' | 'webhook';

export interface PodcastBias {
  bias: 'LEFT' | 'LEAN_LEFT' | 'CENTER' | 'LEAN_RIGHT' | 'RIGHT' | null;
  lean_score: number | null;
  is_political: boolean;
  political_context: string;
  evaluated_at: string;
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
  kind: AlertKind;
  /** PERSON, COMPANY or KNOWLEDGE_GRAPH_ENTITY */
  entity_type: string;
  entity_id: string;
  source_type: string;
  source_id: string;
  detected_at: string;
  mention_count: number;
  /** mention alerts */
  mention_variants?: string[];
  /** on_target or incidental */
  relevance: string;
  /** Written after the match (summaries/summarizer.ts); absent until then. */
  llm_summary?: string;
  /** speaker alerts */
  roles?: string[];
  is_backfilled: boolean;
  episode?: EpisodeBlock;
  windows: MatchWindowDoc[];
  deliveries?: MatchDeliveryRef[];
}

/** A match as a digest carries it: no `windows`, one `clip_url`. */
export type DigestMatch = Omit<MatchDocument, 'windows'> & { clip_url: string | null };

function windowsOf(m: AlertMatched): MatchWindowDoc[] {
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

/**
 * A match without its episode block (the matches list shape, `deliveries` added by the caller);
 * `summary` is its `llm_summary` when one has been written.
 */
export function matchCore(m: AlertMatched, audience: Audience, summary?: string | null): MatchDocument {
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
    ...(summary ? { llm_summary: summary } : {}),
    is_backfilled: m.is_backfilled,
    windows: windowsOf(m),
  };
  if (m.kind === 'ENTITY_MENTION') doc.mention_variants = m.mention_variants;
  else doc.roles = m.roles;
  if (audience === 'rest') doc.monitor_id = m.alert_id;
  return doc;
}

export function episodeBlock(
  m: AlertMatched,
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

/** A digest item: the match without `windows`, with one `clip_url` (the first window's). */
export function digestSummary(doc: MatchDocument): DigestMatch {
  const { windows, ...rest } = doc;
  return { ...rest, clip_url: windows.find((w) => w.clip_url)?.clip_url ?? null };
}

/**
 * The delivery page a notification links to (webhook envelope `url`, mail and chat "details",
 * the REST delivery reads' `url`): the dashboard's page of the delivery, whose data the REST
 * read `GET /v1/alerts/deliveries/{id}` also serves.
 */
export function deliveryPageUrl(dashboardUrl: string, deliveryId: string): string {
  return `${dashboardUrl.replace(/\/$/, '')}/deliveries/${encodeURIComponent(deliveryId)}`;
}

/**
 * A synthetic match for a test send of an alert that has none yet: on its first entity, with
 * id `match_test_…` and an example episode.
 */
export function syntheticMatch(
  alert: { id: string; kind: AlertKind; entities: { entity_type: AlertEntityType; entity_id: string }[] },
  audience: Audience,
  now: number,
): MatchDocument {
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
  if (audience === 'rest') {
    doc.monitor_id = alert.id;
    doc.episode!.podcast_popularity = null;
    doc.deliveries = [];
  }
  return doc;
}
