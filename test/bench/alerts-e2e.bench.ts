import { runAlertsServiceBench } from './alerts-service-bench.ts';
import type { Bench } from './bench.ts';

const ALERTS = 10_000;
const EPISODES = 60;
const EPISODES_PER_SECOND = 4;
const MENTIONED = 3;

/**
 * Alerts end to end with a light fan-out: 60 episodes at 4 a second through the ingest path,
 * each naming 3 of 5,000 catalog companies (about a dozen webhooks an episode), 10,000 active
 * alerts, every role in one process on embedded engines (see alerts-service-bench.ts). Reports
 * where the time goes: ingest → detection, detection → match, and the webhook latency.
 */
export const alertsE2eBench: Bench = {
  name: 'alerts-e2e',
  description: `transcript ingested → webhook received, ${ALERTS.toLocaleString()} active alerts, ${EPISODES} episodes naming ${MENTIONED} companies each (one process, embedded engines, real detection)`,
  run: (progress) =>
    runAlertsServiceBench(
      {
        bench: 'alerts-e2e',
        alerts: ALERTS,
        companies: 5_000,
        maxEntitiesPerAlert: 3,
        episodes: EPISODES,
        episodesPerSecond: EPISODES_PER_SECOND,
        mentionedPerEpisode: MENTIONED,
      },
      progress,
    ),
};
