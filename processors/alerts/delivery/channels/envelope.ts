import type { MatchDocument } from '../../presentation/match-document.ts';
import { type AlertInfo, detectedSeconds } from '../content.ts';

/**
 * Webhook bodies. `delivery_id` is the attempt's id (new on every attempt, equal to the
 * `X-Webhook-ID` header); `timestamp` is the detection time of the match (or of the latest match
 * of a digest) in Unix seconds, not the send time; `url` links to the delivery's landing read;
 * `test` is present, and true, only on test sends.
 */
export interface WebhookEnvelope {
  event_type: 'alert.match.created' | 'alert.digest.created';
  delivery_id: string;
  timestamp: number;
  url: string;
  test?: true;
  alert: { id: string; title: string; kind: string };
  match?: MatchDocument;
  /** Digest items (`DigestMatch`: no windows, one `clip_url`). */
  matches?: Omit<MatchDocument, 'windows'>[];
}

export function matchEnvelope(input: {
  attemptId: string;
  url: string;
  alert: Pick<AlertInfo, 'id' | 'title' | 'kind'>;
  match: MatchDocument;
  test?: boolean;
}): WebhookEnvelope {
  return {
    event_type: 'alert.match.created',
    delivery_id: input.attemptId,
    timestamp: detectedSeconds(input.match),
    url: input.url,
    ...(input.test ? { test: true as const } : {}),
    alert: { id: input.alert.id, title: input.alert.title, kind: input.alert.kind },
    match: input.match,
  };
}

export function digestEnvelope(input: {
  attemptId: string;
  url: string;
  alert: Pick<AlertInfo, 'id' | 'title' | 'kind'>;
  /** Already summarized (`DigestMatch`), oldest first. */
  matches: Omit<MatchDocument, 'windows'>[];
}): WebhookEnvelope {
  const latest = input.matches.reduce((max, m) => Math.max(max, detectedSeconds(m)), 0);
  return {
    event_type: 'alert.digest.created',
    delivery_id: input.attemptId,
    timestamp: latest,
    url: input.url,
    alert: { id: input.alert.id, title: input.alert.title, kind: input.alert.kind },
    matches: input.matches,
  };
}
