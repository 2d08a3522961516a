import type { AlertKind } from '../../../schemas/event-enums.ts';
import type { AlertEntityRef } from '../model.ts';
import type { DigestMatch, MatchDocument } from '../presentation/match-document.ts';

/**
 * What the senders read about alerts and matches: the port onto alert management, so the
 * senders can be exercised on their own (tests pass a fixed implementation). The documents are
 * the module's one match document (presentation/match-document.ts) in its webhook audience.
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
  entities: AlertEntityRef[];
}

export interface DeliveryContent {
  alerts(ids: string[]): Promise<Map<string, AlertInfo>>;
  /** Match documents by id (webhook audience: full windows). Unknown ids are absent. */
  matches(ids: string[]): Promise<Map<string, MatchDocument>>;
  /** A match as a digest carries it: windows removed, one `clip_url`. */
  summarize(match: MatchDocument): DigestMatch;
  /** A real-shaped match for a test send: the alert's latest match, or a sample built for it. */
  sampleMatch(alert: AlertInfo): Promise<MatchDocument>;
}

/** Detection time of a match in Unix seconds. */
export function detectedSeconds(match: Pick<MatchDocument, 'detected_at'>): number {
  return Math.floor(Date.parse(match.detected_at) / 1000);
}
