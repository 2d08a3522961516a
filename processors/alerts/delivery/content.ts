import type { AlertKind } from '../../../schemas/event-enums.ts';

/**
 * What the senders read about alerts and matches. The alert side (alerts, match documents,
 * digest summaries) is owned by alert management; this port is the senders' view of it, so
 * the senders can be exercised on their own (tests pass a fixed implementation).
 */

export interface AlertInfo {
  id: string;
  project_id: string;
  organization_id: string;
  title: string;
  kind: AlertKind;
  is_active: boolean;
  deleted: boolean;
  /** Webhook connections the alert's notifications name (for test sends). */
  webhook_connection_ids: string[];
  entities: { entity_type: string; entity_id: string }[];
}

export interface MatchLine {
  speaker: string;
  role: string | null;
  start_seconds: number;
  end_seconds: number;
  text: string;
  is_mention: boolean;
}

export interface MatchWindow {
  start_seconds: number;
  end_seconds: number;
  lines: MatchLine[];
  clip_url: string | null;
  [extra: string]: unknown;
}

export interface MatchEpisode {
  title: string;
  slug: string;
  published_at: string;
  podcast_id: string;
  podcast_title: string;
  podcast_slug: string;
  podcast_image_url: string | null;
  podcast_popularity_badge?: string | null;
  [extra: string]: unknown;
}

/**
 * A match as webhooks carry it: the REST single-match read minus `deliveries`, `monitor_id` and
 * the raw popularity percentile. Fields beyond those named here pass through untouched.
 */
export interface MatchDocument {
  id: string;
  alert_id: string;
  kind: AlertKind;
  entity_type: string;
  entity_id: string;
  source_type: string;
  source_id: string;
  detected_at: string;
  mention_count: number;
  mention_variants?: string[];
  relevance: string;
  is_backfilled: boolean;
  episode?: MatchEpisode;
  windows?: MatchWindow[];
  clip_url?: string | null;
  [extra: string]: unknown;
}

export interface DeliveryContent {
  alerts(ids: string[]): Promise<Map<string, AlertInfo>>;
  /** Match documents by id (webhook audience: full windows). Unknown ids are absent. */
  matches(ids: string[]): Promise<Map<string, MatchDocument>>;
  /** A match as a digest carries it: windows removed, one `clip_url`. */
  summarize(match: MatchDocument): MatchDocument;
  /** A real-shaped match for a test send: the alert's latest match, or a sample built for it. */
  sampleMatch(alert: AlertInfo): Promise<MatchDocument>;
}

/** The digest summary of a match when alert management offers none: windows out, first clip in. */
export function summarizeMatch(match: MatchDocument): MatchDocument {
  const { windows, ...rest } = match;
  const clip = windows?.find((w) => w.clip_url)?.clip_url ?? match.clip_url ?? null;
  return { ...rest, clip_url: clip };
}

/** Detection time of a match in Unix seconds. */
export function detectedSeconds(match: Pick<MatchDocument, 'detected_at'>): number {
  return Math.floor(Date.parse(match.detected_at) / 1000);
}
