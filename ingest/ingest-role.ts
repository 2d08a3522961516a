import type { Logger } from 'pino';
import type { Config } from '../infra/config.ts';
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

export async function startIngestRole(
  deps: {
    eventLog: EventLog;
    producer: EventProducer;
    ingestState?: IngestState;
    /** The guarded HTTP client feeds are fetched with (the outbound guard). */
    feedHttp: FeedHttp;
  },
  config: Config,
  logger: Logger,
): Promise<IngestRole> {
  if (config.env.EARSHOT_DEMO === 'on') {
    await loadDemoCorpusIfEmpty({
      dataDir: config.dataDir,
      eventLog: deps.eventLog,
      producer: deps.producer,
      logger,
    });
  }
  const store = FeedStore.inDataDir(config.dataDir);
  const owned = deps.ingestState === undefined;
  const state = deps.ingestState ?? IngestState.inDataDir(config.dataDir);
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
