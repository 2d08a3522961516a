import type { AnalyticsStore } from '../../projections/analytics/analytics-store.ts';
import type { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import type { StateStore } from '../../projections/state/state-store.ts';
import { NotificationEmails } from './delivery/channels/notification-emails.ts';
import type { DeliveryKit } from './delivery/kit.ts';
import { analyticsBiasReader, cachedBiasReader, type PodcastBiasReader } from './reads/bias.ts';
import { deliveriesPage, deliveryDocument } from './reads/deliveries.ts';
import {
  type AlertReadServices,
  type ListPosition,
  matchDocument,
  matchDocuments,
  matchesPage,
} from './reads/matches.ts';
import { AlertPreviews, analyticsMatchCounter } from './reads/preview.ts';
import { AlertManagement } from './rules/management.ts';

/**
 * What the alerting routes are given (api/app.ts builds it once and passes it to each route
 * plugin): alert management, the match and delivery reads, previews, the delivery kit
 * (connections, chat API, link tokens) and notification emails. Routes import only the
 * module's entry (index.ts) and speak HTTP; the rules and reads live here.
 */
export interface AlertApiServices {
  /** Alert management: plan policy and validation over the alerts store. */
  alerts: AlertManagement;
  /** Match and delivery reads, REST audience. */
  reads: AlertReads;
  /** Absent when no analytics store is configured: previews answer 503. */
  previews?: AlertPreviews;
  /** Webhook and team-chat connections, the chat API, the outbound guard, link tokens. */
  delivery: DeliveryKit;
  /** Notification emails and their verification mails. */
  notificationEmails: NotificationEmails;
}

/** What alert routes need beyond the state store and catalog (both from the analytics store). */
export interface AlertApiExtras {
  /** Absent when no analytics store is configured: previews answer 503. */
  previews?: AlertPreviews;
  podcastBias?: PodcastBiasReader;
}

/**
 * Previews counted in, and podcast bias read from, the analytics store (none without one). Bias
 * is cached for a minute, as the senders cache it: an evaluation changes rarely, and every
 * match document read (a delivery page, a match) would otherwise query the analytics store.
 */
export function alertApiExtras(state: StateStore, analytics: AnalyticsStore | undefined): AlertApiExtras {
  if (!analytics) return {};
  return {
    previews: new AlertPreviews(state, analyticsMatchCounter(analytics)),
    podcastBias: cachedBiasReader(analyticsBiasReader(analytics)),
  };
}

export function alertApiServices(input: {
  state: StateStore;
  catalog: CatalogReader;
  delivery: DeliveryKit;
  /** Default: from `analytics`. */
  extras?: AlertApiExtras;
  analytics?: AnalyticsStore;
}): AlertApiServices {
  const { state, catalog } = input;
  const extras = input.extras ?? alertApiExtras(state, input.analytics);
  return {
    alerts: new AlertManagement(state, catalog),
    reads: alertReads(
      { state, catalog, podcastBias: extras.podcastBias },
      input.delivery.settings.dashboardUrl,
    ),
    previews: extras.previews,
    delivery: input.delivery,
    notificationEmails: new NotificationEmails(state, {
      mailer: input.delivery.mailer,
      publicUrl: input.delivery.settings.publicUrl,
    }),
  };
}

export type AlertReads = ReturnType<typeof alertReads>;

/** The REST reads of matches and deliveries. */
function alertReads(services: AlertReadServices, dashboardUrl: string) {
  return {
    /** An alert's matches, newest first, its read-time filters applied. */
    matchesPage: (alert: Parameters<typeof matchesPage>[1], after: ListPosition | undefined, limit: number) =>
      matchesPage(services, alert, after, limit),
    /** An alert's deliveries, newest first. */
    deliveriesPage: (alertId: string, after: ListPosition | undefined, limit: number) =>
      deliveriesPage(services.state, alertId, after, limit, dashboardUrl),
    /** One match with its episode block and deliveries. */
    match: (id: string) => matchDocument(services, id, { audience: 'rest' }),
    /** Matches in the order asked. */
    matches: (ids: string[]) => matchDocuments(services, ids, { audience: 'rest' }),
    /** One delivery with its project and match ids. */
    delivery: (id: string) => deliveryDocument(services.state, id, dashboardUrl),
    /** The project a match belongs to. */
    async matchProject(id: string): Promise<string | undefined> {
      const [row] = await services.state.query<{ project_id: string }>(
        'SELECT project_id FROM alert_matches WHERE id = $1',
        [id],
      );
      return row?.project_id;
    },
  };
}
