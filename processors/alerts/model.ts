import { createHash } from 'node:crypto';
import {
  type AlertEntityType,
  type AlertKind,
  type Cadence,
  SPEAKER_ROLES,
  type SpeakerRole,
} from '../../schemas/event-enums.ts';

/**
 * The alert model shared by the API, the matcher, the delivery planner and the senders:
 * the alert and its filters, and the one function that applies the read- and delivery-time filters, the
 * popularity rule and badges, language matching, and the deterministic ids of matches and
 * deliveries.
 */

/** Roles a PODCAST_SPEAKER alert fires on when `filters.speaker_roles` is not set (hosts excluded). */
export const DEFAULT_SPEAKER_ROLES: readonly SpeakerRole[] = SPEAKER_ROLES.filter((r) => r !== 'HOST');

export const RELEVANCE_FILTERS = ['EVERYTHING', 'RELEVANT'] as const;
export const POPULARITY_FILTERS = ['ANY', 'POPULAR'] as const;

export const ALERT_LIMITS = { entities: 100, notifications: 20, languages: 50 } as const;
/** The one-time backfill at creation covers episodes published in this many previous days. */
export const BACKFILL_DAYS = 7;
export const DAY_MS = 86_400_000;
/**
 * Realtime horizon: a match is delivered only when its episode was published at most this long
 * before it was matched. An older episode arriving now (an archive load, a feed's back catalog,
 * a replay) is matched as history — `is_backfilled: true`, listed, never delivered — not
 * notified as if it had just aired.
 */
export const REALTIME_HORIZON_MS = 2 * DAY_MS;

export interface AlertEntityRef {
  entity_type: AlertEntityType;
  entity_id: string;
}

/** A notification channel as stored: exactly the fields of its type. */
export type Channel =
  | { type: 'EMAIL'; email: string }
  | { type: 'CHAT'; chat_connection_id: string; chat_channel_id: string }
  | { type: 'WEBHOOK'; webhook_connection_id: string };

/** Filters as stored: only the axes that were set. Unset axes take their defaults. */
export interface AlertFilters {
  languages?: string[];
  relevance?: (typeof RELEVANCE_FILTERS)[number];
  source_popularity?: (typeof POPULARITY_FILTERS)[number];
  speaker_roles?: SpeakerRole[];
}

export interface Alert {
  id: string;
  project_id: string;
  title: string;
  description: string | null;
  kind: AlertKind;
  delivery_cadence: Cadence;
  entities: AlertEntityRef[];
  notifications: Channel[];
  filters: AlertFilters;
  is_active: boolean;
  surface: string;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  /** When the alert last became active (creation or resume). */
  activated_at: Date | null;
  version: number;
}

// ---------------------------------------------------------------------------------------------
// Popularity: `catalog_podcasts.popularity` is the podcast's global popularity percentile among
// currently charting podcasts (0-100, null when it does not chart).

/** `source_popularity: POPULAR` keeps podcasts in the top 5% of currently charting podcasts. */
export const POPULAR_MIN_PERCENTILE = 95;

export type PopularityBadge = 'Top Podcast' | 'Very Popular' | 'Popular';

/** Top 1% → `Top Podcast`, top 5% → `Very Popular`, top 20% → `Popular`; otherwise no badge. */
export function popularityBadge(popularity: number | null | undefined): PopularityBadge | null {
  if (popularity === null || popularity === undefined) return null;
  if (popularity >= 99) return 'Top Podcast';
  if (popularity >= POPULAR_MIN_PERCENTILE) return 'Very Popular';
  if (popularity >= 80) return 'Popular';
  return null;
}

export function isPopular(popularity: number | null | undefined): boolean {
  return popularity !== null && popularity !== undefined && popularity >= POPULAR_MIN_PERCENTILE;
}

/**
 * THE read- and delivery-time filter: `relevance` and `source_popularity`. The matches list,
 * realtime deliveries and digests all call this, so the three always agree. `popularity` is the
 * podcast's current percentile (null when not charting).
 */
/** Whether `passesFilters` can drop a match under these filters (else it keeps every one). */
export function filtersCanDrop(filters: AlertFilters): boolean {
  return filters.relevance === 'RELEVANT' || filters.source_popularity === 'POPULAR';
}

export function passesFilters(
  filters: AlertFilters,
  match: { relevance: string; popularity: number | null | undefined },
): boolean {
  if (filters.relevance === 'RELEVANT' && match.relevance !== 'on_target') return false;
  if (filters.source_popularity === 'POPULAR' && !isPopular(match.popularity)) return false;
  return true;
}

/** Whether a filter needs podcast popularity (callers skip the lookup otherwise). */
export function needsPopularity(filters: AlertFilters): boolean {
  return filters.source_popularity === 'POPULAR';
}

// ---------------------------------------------------------------------------------------------
// Languages: a filter tag matches an episode language equal to it or starting with it and a
// hyphen, case-insensitively (`fr` covers `fr-FR` and `fr-CA`; `fr-CA` covers only `fr-CA`).

export function languageMatches(filterLanguages: readonly string[] | undefined, language: string): boolean {
  if (!filterLanguages || filterLanguages.length === 0) return true;
  const lang = language.toLowerCase();
  for (const tag of filterLanguages) {
    const t = tag.toLowerCase();
    if (lang === t || lang.startsWith(`${t}-`)) return true;
  }
  return false;
}

/** The speaker roles a PODCAST_SPEAKER alert fires on. */
export function speakerRolesOf(filters: AlertFilters): readonly string[] {
  return filters.speaker_roles && filters.speaker_roles.length > 0
    ? filters.speaker_roles
    : DEFAULT_SPEAKER_ROLES;
}

// ---------------------------------------------------------------------------------------------
// Deterministic ids: a replay or a retry yields the same match and the same deliveries.

function digest(text: string, length = 24): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** One match per alert and episode. */
export function matchId(alertId: string, episodeId: string): string {
  return `match_${digest(`${alertId}/${episodeId}`)}`;
}

/** A realtime delivery carries one match. */
export function realtimeDeliveryId(match: string): string {
  return `dlv_${digest(`REALTIME/${match}`)}`;
}

/** A digest delivery covers one window of one alert. */
export function digestDeliveryId(alertId: string, cadence: Cadence, windowStart: number): string {
  return `dlv_${digest(`${cadence}/${alertId}/${new Date(windowStart).toISOString()}`)}`;
}

/**
 * Identifies a channel within a delivery: the address for EMAIL (lower case), the connection id
 * for WEBHOOK, `connection/channel` for CHAT.
 */
export function channelKey(channel: {
  type: string;
  email?: string | null;
  webhook_connection_id?: string | null;
  chat_connection_id?: string | null;
  chat_channel_id?: string | null;
}): string {
  switch (channel.type) {
    case 'EMAIL':
      return `EMAIL:${(channel.email ?? '').toLowerCase()}`;
    case 'WEBHOOK':
      return `WEBHOOK:${channel.webhook_connection_id ?? ''}`;
    default:
      return `CHAT:${channel.chat_connection_id ?? ''}/${channel.chat_channel_id ?? ''}`;
  }
}

/** The same as the event schema's DeliveryChannel (every field present, null when unused). */
export function wireChannel(channel: Channel) {
  return {
    type: channel.type,
    email: channel.type === 'EMAIL' ? channel.email : null,
    webhook_connection_id: channel.type === 'WEBHOOK' ? channel.webhook_connection_id : null,
    chat_connection_id: channel.type === 'CHAT' ? channel.chat_connection_id : null,
    chat_channel_id: channel.type === 'CHAT' ? channel.chat_channel_id : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Digest windows, in UTC: DAILY [00:00, next 00:00), WEEKLY [Monday 00:00, next Monday 00:00).

export function periodStart(cadence: 'DAILY' | 'WEEKLY', at: number): number {
  const day = Math.floor(at / DAY_MS) * DAY_MS;
  if (cadence === 'DAILY') return day;
  const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday = 0
  return day - weekday * DAY_MS;
}

export function periodLength(cadence: 'DAILY' | 'WEEKLY'): number {
  return cadence === 'DAILY' ? DAY_MS : 7 * DAY_MS;
}
