import { randomBytes } from 'node:crypto';
import type { Mailer } from '../../processors/alerts/delivery/channels/mailer.ts';
import type { AlertInfo, DeliveryContent } from '../../processors/alerts/delivery/content.ts';
import {
  createDeliveryKit,
  type DeliveryKit,
  type DeliverySettings,
} from '../../processors/alerts/delivery/kit.ts';
import { RetrySchedule } from '../../processors/alerts/delivery/retry-schedule.ts';
import { StateDeliveryContent } from '../../processors/alerts/delivery/state-content.ts';
import { digestSummary, type MatchDocument } from '../../processors/alerts/presentation/match-document.ts';
import type { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import type { StateStore } from '../../projections/state/state-store.ts';

export interface TestDeliveryOptions {
  settings?: Partial<DeliverySettings>;
  mailer?: Mailer;
  content?: DeliveryContent;
}

/** A delivery kit for tests: loopback allowlisted (so local receivers are reachable over http), fresh secrets key. */
export function testDeliveryKit(
  state: StateStore,
  catalog: CatalogReader,
  options: TestDeliveryOptions = {},
): DeliveryKit {
  return createDeliveryKit({
    state,
    content: options.content ?? new StateDeliveryContent({ state, catalog }),
    mailer: options.mailer,
    settings: {
      publicUrl: 'http://127.0.0.1:8080',
      dashboardUrl: 'http://127.0.0.1:8080/dashboard',
      outboundAllowlist: '127.0.0.1/32,::1/128',
      secretsKey: randomBytes(32),
      chatApiUrl: 'http://127.0.0.1:9/api',
      schedule: new RetrySchedule([0, 50, 50, 50, 50]),
      requestTimeoutMs: 5_000,
      concurrency: 32,
      ...options.settings,
    },
  });
}

/** A content port over fixed alerts and matches (senders tested apart from alert management). */
export function fixedContent(
  alerts: AlertInfo[],
  matches: MatchDocument[],
): DeliveryContent & { alerts_: Map<string, AlertInfo>; matches_: Map<string, MatchDocument> } {
  const a = new Map(alerts.map((x) => [x.id, x]));
  const m = new Map(matches.map((x) => [x.id, x]));
  return {
    alerts_: a,
    matches_: m,
    async alerts(ids) {
      return new Map(ids.filter((id) => a.has(id)).map((id) => [id, a.get(id)!]));
    },
    async matches(ids) {
      return new Map(ids.filter((id) => m.has(id)).map((id) => [id, m.get(id)!]));
    },
    summarize: digestSummary,
    async sampleMatch(alert) {
      return (
        [...m.values()].find((x) => x.alert_id === alert.id) ?? sampleMatchDocument(alert.id, 'match_sample')
      );
    },
  };
}

export function sampleAlert(overrides: Partial<AlertInfo> = {}): AlertInfo {
  return {
    id: 'alrt_test',
    project_id: 'proj_test',
    organization_id: 'org_test',
    title: 'Acme watch',
    kind: 'ENTITY_MENTION',
    is_active: true,
    deleted: false,
    webhook_connection_ids: [],
    entities: [{ entity_type: 'COMPANY', entity_id: 'ent_acme' }],
    ...overrides,
  };
}

export function sampleMatchDocument(
  alertId: string,
  id: string,
  overrides: Partial<MatchDocument> = {},
): MatchDocument {
  return {
    id,
    alert_id: alertId,
    kind: 'ENTITY_MENTION',
    entity_type: 'COMPANY',
    entity_id: 'ent_acme',
    source_type: 'PODCAST_EPISODE',
    source_id: `ep_${id}`,
    detected_at: new Date(Date.now() - 1000).toISOString(),
    mention_count: 2,
    mention_variants: ['Acme'],
    relevance: 'on_target',
    roles: [],
    is_backfilled: false,
    episode: {
      title: `Episode about ${id}`,
      slug: `episode-${id}`,
      published_at: new Date(Date.now() - 3_600_000).toISOString(),
      podcast_id: 'pod_1',
      podcast_title: 'The Market Hour',
      podcast_slug: 'the-market-hour',
      podcast_image_url: null,
      podcast_popularity_badge: 'Popular',
      podcast_bias: null,
    },
    windows: [
      {
        start_seconds: 61,
        end_seconds: 75.5,
        lines: [
          {
            speaker: 'Dana',
            role: 'HOST',
            start_seconds: 61,
            end_seconds: 66,
            text: 'Welcome back.',
            is_mention: false,
          },
          {
            speaker: 'Marcus',
            role: 'GUEST',
            start_seconds: 66,
            end_seconds: 75.5,
            text: 'Acme shares moved <a lot> & then some.',
            is_mention: true,
          },
        ],
        clip_url: 'https://cdn.example/audio/1.mp3#t=61,75.5',
      },
    ],
    ...overrides,
  };
}
