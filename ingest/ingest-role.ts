import type { Logger } from 'pino';
import { loadDemoCorpusIfEmpty } from './corpus/demo.ts';
import type { EventLog } from './event-log/event-log.ts';
import type { EventProducer } from './event-producer.ts';
import { type FeedHttp, FeedPoller } from './feeds/feed-poller.ts';
import { FeedStore } from './feeds/feed-store.ts';
import { IngestState } from './loader/ingest-state.ts';

/**
 * The long-running part of the `ingest` role: on an empty data dir with EARSHOT_DEMO=on, the demo
 * corpus is generated and loaded (awaited, so the service counts it in what its consumers must
 * catch up with); then the feed poller runs until the service stops.
 */
export interface IngestRole {
  stop(): Promise<void>;
}

/** What the ingest role is told by the service's configuration. */
export interface IngestRoleSettings {
  /** The data directory: the demo corpus, the feed store and the ingest state live there. */
  dataDir: string;
  /** Generate and load the demo corpus on an empty data dir (`EARSHOT_DEMO=on`). */
  demo: boolean;
}

export async function startIngestRole(
  deps: {
    eventLog: EventLog;
    producer: EventProducer;
    ingestState?: IngestState;
    /** The guarded HTTP client feeds are fetched with (the outbound guard). */
    feedHttp: FeedHttp;
  },
  settings: IngestRoleSettings,
  logger: Logger,
): Promise<IngestRole> {
  if (settings.demo) {
    await loadDemoCorpusIfEmpty({
      dataDir: settings.dataDir,
      eventLog: deps.eventLog,
      producer: deps.producer,
      logger,
      ...(deps.ingestState ? { state: deps.ingestState } : {}),
    });
  }
  const store = FeedStore.inDataDir(settings.dataDir);
  const owned = deps.ingestState === undefined;
  const state = deps.ingestState ?? IngestState.inDataDir(settings.dataDir);
  const poller = new FeedPoller({ store, producer: deps.producer, logger, state, http: deps.feedHttp });
  poller.start();
  return {
    async stop() {
      await poller.stop();
      if (owned) await state.close();
      await store.close();
    },
  };
}
