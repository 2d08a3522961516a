import type { Logger } from 'pino';
import type { EventProducer } from '../../../ingest/event-producer.ts';
import type { CatalogReader } from '../../../projections/catalog/catalog-reader.ts';
import type { StateStore } from '../../../projections/state/state-store.ts';
import { ChatApi } from './channels/chat-api.ts';
import { ChatSender } from './channels/chat-sender.ts';
import { EmailSender } from './channels/email-sender.ts';
import type { Mailer } from './channels/mailer.ts';
import { WebhookSender } from './channels/webhook-sender.ts';
import { type Clock, systemClock } from './clock.ts';
import { ChatConnections } from './connections/chat-connections.ts';
import { WebhookConnections } from './connections/webhook-connections.ts';
import type { DeliveryContent } from './content.ts';
import { DeliveryDispatcher } from './dispatcher.ts';
import { DeliveryJobs } from './jobs.ts';
import { OutboundGuard } from './outbound/outbound-guard.ts';
import { OutboundHttp } from './outbound/outbound-http.ts';
import type { RetrySchedule } from './retry-schedule.ts';
import { deliveryScheduler } from './scheduler-step.ts';
import { SecretBox, TokenSigner } from './secrets.ts';

export interface DeliverySettings {
  /** Public base URL of the API (alert-disable and verification links in mails). */
  publicUrl: string;
  /** Public address of the dashboard: the delivery page notifications link to (webhook `url`). */
  dashboardUrl: string;
  /** `EARSHOT_OUTBOUND_ALLOWLIST`. */
  outboundAllowlist: string;
  secretsKey: Buffer;
  chatApiUrl: string;
  schedule: RetrySchedule;
  /** End-to-end budget of one webhook or chat POST (30 s). */
  requestTimeoutMs: number;
  /** Deliveries attempted at once by one sender process. */
  concurrency: number;
  /** Most attempts in flight to one webhook connection (default 128; at most 64 connections per origin). */
  perConnection?: number;
}

/**
 * Everything the delivery side needs, built once per process: the outbound guard and HTTP
 * client, sealed-secret storage, link-token signers, the connection stores, the chat API client,
 * the mailer (absent without `SMTP_URL`) and the content port onto alert management.
 */
export interface DeliveryKit {
  settings: DeliverySettings;
  box: SecretBox;
  guard: OutboundGuard;
  http: OutboundHttp;
  webhooks: WebhookConnections;
  chat: ChatConnections;
  chatApi: ChatApi;
  mailer?: Mailer;
  /** Signs alert-disable links in mail footers. */
  disableTokens: TokenSigner;
  /** Signs notification-email verification links. */
  verifyTokens: TokenSigner;
  content: DeliveryContent;
  /** Called by the scheduler step when it has added jobs; wakes this process's dispatcher. */
  scheduled(): void;
  onScheduled(listener: () => void): void;
  close(): Promise<void>;
}

export function createDeliveryKit(input: {
  state: StateStore;
  settings: DeliverySettings;
  content: DeliveryContent;
  mailer?: Mailer;
}): DeliveryKit {
  const { settings } = input;
  const box = new SecretBox(settings.secretsKey);
  const guard = new OutboundGuard({ allowlist: settings.outboundAllowlist });
  // Connections per destination origin; attempts beyond that queue for a free connection.
  const http = new OutboundHttp(guard, { connections: Math.min(64, Math.max(8, settings.concurrency)) });
  const listeners: (() => void)[] = [];
  return {
    settings,
    box,
    guard,
    http,
    webhooks: new WebhookConnections(input.state, box),
    chat: new ChatConnections(input.state, box),
    chatApi: new ChatApi(settings.chatApiUrl, http, settings.requestTimeoutMs),
    mailer: input.mailer,
    disableTokens: new TokenSigner(box, 'alert-disable'),
    verifyTokens: new TokenSigner(box, 'email-verification'),
    content: input.content,
    scheduled() {
      for (const l of listeners) l();
    },
    onScheduled(listener) {
      listeners.push(listener);
    },
    async close() {
      await http.close();
      await input.mailer?.close();
    },
  };
}

/** Entity display names for mails and chat messages. */
export function entityNamesFrom(catalog: CatalogReader) {
  return async (ids: string[]): Promise<Map<string, string>> => {
    const rows = await catalog.entitiesByIds(ids);
    return new Map([...rows].map(([id, e]) => [id, e.name]));
  };
}

/** The senders step of the pipeline: `deliveries.requested` → the durable schedule. */
export function senderSchedulerStep(kit: DeliveryKit, state: StateStore, clock: Clock = systemClock) {
  return deliveryScheduler(new DeliveryJobs(state), clock, () => kit.scheduled());
}

/** The dispatcher of the senders role: works the durable schedule over the three channels. */
export function createDispatcher(input: {
  kit: DeliveryKit;
  state: StateStore;
  producer: EventProducer;
  catalog: CatalogReader;
  logger: Logger;
  clock?: Clock;
  /** True when this process is the state store's only user (embedded): stale leases are released at start. */
  exclusiveStore: boolean;
}): DeliveryDispatcher {
  const { kit, state } = input;
  const clock = input.clock ?? systemClock;
  const jobs = new DeliveryJobs(state);
  const common = {
    content: kit.content,
    publicUrl: kit.settings.publicUrl,
    dashboardUrl: kit.settings.dashboardUrl,
    now: () => clock.now(),
  };
  const entityNames = entityNamesFrom(input.catalog);
  const dispatcher = new DeliveryDispatcher({
    jobs,
    producer: input.producer,
    schedule: kit.settings.schedule,
    clock,
    logger: input.logger,
    concurrency: kit.settings.concurrency,
    releaseLeasesOnStart: input.exclusiveStore,
    senders: [
      new WebhookSender({
        ...common,
        connections: kit.webhooks,
        http: kit.http,
        timeoutMs: kit.settings.requestTimeoutMs,
        perConnection: kit.settings.perConnection,
      }),
      new EmailSender({
        ...common,
        db: state,
        mailer: kit.mailer,
        disableTokens: kit.disableTokens,
        entityNames,
      }),
      new ChatSender({ ...common, connections: kit.chat, api: kit.chatApi, entityNames }),
    ],
  });
  kit.onScheduled(() => dispatcher.wake());
  return dispatcher;
}
