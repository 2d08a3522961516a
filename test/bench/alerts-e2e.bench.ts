import { loadConfig } from '../../infra/config.ts';
import { silentLogger } from '../../infra/logger.ts';
import { startService } from '../../infra/service.ts';
import { alertsRuntime } from '../../processors/alerts/alerts-pipeline.ts';
import type { Entity, Podcast } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { episodeEvents } from '../support/alerts.ts';
import { startReceiver } from '../support/receiver.ts';
import { tempDir } from '../support/temp-dir.ts';
import type { Bench, BenchResult } from './bench.ts';
import { percentile } from './bench.ts';

const ALERTS = 10_000;
const ENTITIES = 5_000;
const EPISODES = 60;
const MENTIONED_PER_EPISODE = 3;
const EPISODE_INTERVAL_MS = 250;

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'sa',
  'te',
  'vo',
  'zi',
  'qua',
  'bre',
  'dro',
  'fli',
  'gra',
  'plo',
  'sna',
  'tri',
  'vex',
  'xor',
  'yul',
];

/** A made-up company name per index: three syllables, no ordinary word. */
function companyName(i: number): string {
  const n = SYLLABLES.length;
  const word = SYLLABLES[i % n]! + SYLLABLES[Math.floor(i / n) % n]! + SYLLABLES[Math.floor(i / n / n) % n]!;
  return `${word[0]!.toUpperCase()}${word.slice(1)}`;
}

function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Alert latency end to end in one service process with every role on embedded engines and
 * 10,000 live alerts (1-3 companies each out of 5,000 in the catalog, every alert with a webhook
 * channel to a local receiver). Every 250 ms an episode is ingested — episode, clips, then its
 * transcript naming 3 of the companies — and goes through the whole pipeline: mention detection
 * and speaker identification, the matcher, the planner, the webhook sender. Each signed
 * alert.match.created the receiver gets is timed from the moment its transcript was appended.
 */
export const alertsE2eBench: Bench = {
  name: 'alerts-e2e',
  description: `transcript appended → webhook received, ${ALERTS.toLocaleString()} active alerts, one process, embedded engines`,
  async run(progress) {
    const tmp = tempDir('earshot-bench-e2e-');
    const rx = await startReceiver(() => ({ status: 204 }));
    const config = loadConfig(
      {},
      {
        EARSHOT_DATA_DIR: tmp.dir,
        EARSHOT_DEMO: 'off',
        PORT: 0,
        LOG_LEVEL: 'silent',
        EARSHOT_OUTBOUND_ALLOWLIST: '127.0.0.1/32',
      },
    );
    const service = await startService(config, silentLogger());
    try {
      const { platform } = service;
      const org = await platform.accounts.createOrganization({ name: 'Bench' });
      const project = await platform.accounts.createProject({
        organizationId: org.id,
        name: 'bench',
        plan: 'enterprise',
      });
      const { connection } = await platform.delivery.webhooks.create({
        projectId: project.id,
        url: `${rx.url}/hook`,
      });
      const random = rng(7);
      const entityIndex = () => Math.floor(random() * ENTITIES);
      const entityId = (i: number) => `ent_e2e_${i}`;
      const { producer } = platform;
      const entities: Entity[] = Array.from({ length: ENTITIES }, (_, i) => ({
        id: entityId(i),
        slug: `e2e-${i}`,
        kind: 'COMPANY',
        name: companyName(i),
        description: null,
        wikipedia_url: null,
        image_url: null,
        category: { slug: 'technology', name: 'Technology' },
        aliases: [],
        nicknames: [],
        handles: [],
        context_terms: [],
        company: null,
        person: null,
        updated_at: Date.now(),
      }));
      for (let i = 0; i < entities.length; i += 1000) {
        await producer.send(
          TOPICS.entities,
          entities.slice(i, i + 1000).map((e) => ({ key: e.id, value: e })),
        );
      }
      const alerts = Array.from({ length: ALERTS }, (_, i) => ({
        id: `alrt_e2e_${i}`,
        project_id: project.id,
        title: `alert ${i}`,
        kind: 'ENTITY_MENTION',
        delivery_cadence: 'REALTIME',
        entities: [...new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, entityIndex))].map(
          (n) => ({
            entity_type: 'COMPANY',
            entity_id: entityId(n),
          }),
        ),
        notifications: [{ type: 'WEBHOOK', webhook_connection_id: connection.id }],
      }));
      await platform.state.query(
        `INSERT INTO alerts (id, project_id, title, kind, delivery_cadence, entities, notifications, activated_at)
         SELECT id, project_id, title, kind, delivery_cadence, entities, notifications, now()
         FROM jsonb_to_recordset($1::jsonb) AS x(id text, project_id text, title text, kind text,
           delivery_cadence text, entities jsonb, notifications jsonb)`,
        [JSON.stringify(alerts)],
      );
      const index = alertsRuntime(platform).index;
      const deadline = Date.now() + 120_000;
      const caughtUp = async () => {
        for (const r of service.runners) if ((await r.lag()).some((p) => p.lag > 0)) return false;
        return true;
      };
      while ((index.size < ALERTS || !(await caughtUp())) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
      }
      progress(
        `${index.size.toLocaleString()} alerts indexed, ${ENTITIES.toLocaleString()} companies in the catalog`,
      );
      const byEntity = new Map<string, number>();
      for (const a of alerts)
        for (const e of a.entities) byEntity.set(e.entity_id, (byEntity.get(e.entity_id) ?? 0) + 1);

      const podcast: Podcast = {
        id: 'pod_e2e_bench',
        slug: 'bench-hour',
        directory_id: null,
        title: 'Bench Hour',
        description: null,
        publisher_id: null,
        language: 'en-US',
        categories: [],
        hosts: [],
        image_url: null,
        feed_url: null,
        website_url: null,
        content_advisory_rating: null,
        popularity: 90,
        updated_at: Date.now(),
      };
      await producer.send(TOPICS.podcasts, [{ key: podcast.id, value: podcast }]);

      const appendedAt = new Map<string, number>();
      let expected = 0;
      const sends: Promise<unknown>[] = [];
      for (let i = 0; i < EPISODES; i++) {
        const id = `ep_e2e_${i}`;
        const picked = new Set<number>();
        while (picked.size < MENTIONED_PER_EPISODE) picked.add(entityIndex());
        const mentioned = new Set([...picked].map(entityId));
        const matching = new Set(
          alerts.filter((a) => a.entities.some((e) => mentioned.has(e.entity_id))).map((a) => a.id),
        );
        expected += matching.size;
        const ev = episodeEvents({ id, podcastId: podcast.id, publishedAt: Date.now() });
        const [a, b, c] = [...picked].map(companyName);
        ev.transcript.lines[2]!.text = `Shares of ${a} rose this week while ${b} slipped.`;
        ev.transcript.lines[4]!.text = `Meanwhile ${c} kept quiet about its plans.`;
        sends.push(
          (async () => {
            await producer.send(TOPICS.episodes, [{ key: id, value: ev.episode }]);
            await producer.send(TOPICS.clips, [{ key: id, value: ev.clips }]);
            appendedAt.set(id, Date.now());
            await producer.send(TOPICS.transcripts, [{ key: id, value: ev.transcript }]);
          })(),
        );
        await new Promise((r) => setTimeout(r, EPISODE_INTERVAL_MS));
      }
      await Promise.all(sends);
      progress(`${EPISODES} episodes ingested; waiting for ${expected} webhooks`);
      const until = Date.now() + 120_000;
      while (rx.received.length < expected && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      const latencies = rx.received
        .map((r) => {
          const body = r.body as { match?: { source_id?: string } };
          const t0 = appendedAt.get(body.match?.source_id ?? '');
          return t0 === undefined ? undefined : r.at - t0;
        })
        .filter((x): x is number => x !== undefined)
        .sort((a, b) => a - b);
      progress(`${latencies.length} of ${expected} webhooks received`);
      // Where the time goes: append time of the first record of each hop, per episode.
      const log = platform.eventLog as unknown as {
        read(t: string, p: number, from: number, n: number): { timestamp: number; value: Buffer | null }[];
      };
      const firstAt = async (
        topic: (typeof TOPICS)[keyof typeof TOPICS],
        episodeOf: (v: Record<string, unknown>) => string,
      ) => {
        const out = new Map<string, number>();
        for (let part = 0; part < topic.partitions; part++) {
          for (const r of log.read(topic.name, part, 0, 1_000_000)) {
            const ep = episodeOf(await platform.codec.decode<Record<string, unknown>>(topic.name, r.value));
            if (!out.has(ep) || out.get(ep)! > r.timestamp) out.set(ep, r.timestamp);
          }
        }
        return out;
      };
      const mentionsAt = await firstAt(TOPICS.mentions, (v) => String(v.episode_id));
      const speakersAt = await firstAt(TOPICS.speakers, (v) => String(v.episode_id));
      const matchedAt = await firstAt(TOPICS.alertMatches, (v) => String(v.source_id));
      const stage = (values: number[]) => {
        const sorted = values.filter((x) => Number.isFinite(x)).sort((x, y) => x - y);
        return `p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms`;
      };
      const eps = [...appendedAt.keys()];
      const detectors = stage(
        eps.map((e) => Math.max(mentionsAt.get(e)!, speakersAt.get(e)!) - appendedAt.get(e)!),
      );
      const matcher = stage(
        eps.map((e) => matchedAt.get(e)! - Math.max(mentionsAt.get(e)!, speakersAt.get(e)!)),
      );
      progress(`transcript → mentions and speakers detected: ${detectors}`);
      progress(`detected → first alerts.matched: ${matcher}`);
      const result = (
        metric: string,
        value: number,
        unit: string,
        extra: Partial<BenchResult> = {},
      ): BenchResult => ({
        bench: 'alerts-e2e',
        metric,
        value,
        unit,
        ...extra,
      });
      return [
        result('transcript appended → webhook received, p99', percentile(latencies, 99), 'ms', {
          target: { op: '<=', value: 2000 },
          note: `${latencies.length} of ${expected} webhooks (${EPISODES} episodes, one every ${EPISODE_INTERVAL_MS} ms); p50 ${percentile(latencies, 50)} ms, max ${latencies.at(-1)} ms; detectors ${detectors}; matcher ${matcher}`,
        }),
        result('transcript appended → webhook received, p50', percentile(latencies, 50), 'ms'),
        result('webhooks received', latencies.length, 'count', { target: { op: '>=', value: expected } }),
      ];
    } finally {
      await service.stop();
      await rx.close();
      tmp.remove();
    }
  },
};
