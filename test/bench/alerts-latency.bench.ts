import { runAlertsServiceBench } from './alerts-service-bench.ts';
import type { Bench } from './bench.ts';

const ALERTS = 10_000;
const EPISODES = 120;
const EPISODES_PER_SECOND = 4;
const MENTIONED = 10;

/**
 * The latency figure: transcript ingested → webhook received, p99 ≤ 2 s with 10,000
 * active alerts (1-5 of 20,000 catalog companies each). One service process with every role on
 * embedded engines; 120 episodes at 4 a second go through the ingest path, each transcript
 * naming 10 of the companies (about 15 webhooks an episode); mention detection, speaker
 * identification, the matcher, the planner and the webhook sender all run as in production (see
 * alerts-service-bench.ts).
 */
export const alertsLatencyBench: Bench = {
  name: 'alerts-latency',
  description: `transcript ingested → webhook received, ${ALERTS.toLocaleString()} active alerts, ${EPISODES} episodes at ${EPISODES_PER_SECOND}/s naming ${MENTIONED} companies each (one process, embedded engines, real detection)`,
  run: (progress) =>
    runAlertsServiceBench(
      {
        bench: 'alerts-latency',
        alerts: ALERTS,
        companies: 20_000,
        maxEntitiesPerAlert: 5,
        episodes: EPISODES,
        episodesPerSecond: EPISODES_PER_SECOND,
        mentionedPerEpisode: MENTIONED,
      },
      progress,
    ),
};
