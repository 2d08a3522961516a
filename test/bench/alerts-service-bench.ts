import path from 'node:path';
import { loadConfig } from '../../infra/config.ts';
import { silentLogger } from '../../infra/logger.ts';
import { startService } from '../../infra/service.ts';
import { Rng } from '../../ingest/corpus/rng.ts';
import { BatchIngest } from '../../ingest/loader/batch-ingest.ts';
import { IngestState } from '../../ingest/loader/ingest-state.ts';
import { validateIngestBatch } from '../../ingest/loader/validate.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { transcriptOf } from '../support/alerts.ts';
import { startReceiver } from '../support/receiver.ts';
import { tempDir } from '../support/temp-dir.ts';
import type { BenchResult } from './bench.ts';
import { percentile } from './bench.ts';

/**
 * Alerts measured the way they run: one service process with every role on embedded engines
 * (`startService`), 10,000 live REALTIME alerts each notifying a webhook connection to a local
 * receiver, and episodes that arrive through the ingest path (`validateIngestBatch` +
 * `BatchIngest.publish`, what the HTTP batch ingest runs: validation, the ingest state with the
 * batch's intent, the producer) as catalog records, an episode, its clips and its transcript —
 * no mentions or speakers appended by hand. Mention detection and speaker identification run
 * in the service, then the matcher, the planner, the match projection, the senders' schedule
 * and the dispatcher. Each signed alert.match.created the receiver gets is timed from the moment
 * its episode's records were handed to the ingest path.
 */
export interface AlertsServiceBenchOptions {
  bench: string;
  alerts: number;
  /** Companies in the catalog (made-up names, one alias each). */
  companies: number;
  /** Entities per alert: 1..maxEntitiesPerAlert. */
  maxEntitiesPerAlert: number;
  episodes: number;
  episodesPerSecond: number;
  /** Companies each episode's transcript names (each on two lines). */
  mentionedPerEpisode: number;
}

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

/**
 * A made-up company name per index, unique up to 160,000: three syllables (a fourth from 8,000
 * on), no ordinary word. Unique names matter: an alias shared by several entities is only
 * linked when the context tells them apart.
 */
export function companyName(i: number): string {
  const n = SYLLABLES.length;
  let word = SYLLABLES[i % n]! + SYLLABLES[Math.floor(i / n) % n]! + SYLLABLES[Math.floor(i / n / n) % n]!;
  const fourth = Math.floor(i / n / n / n);
  if (fourth > 0) word += SYLLABLES[(fourth - 1) % n]!;
  return `${word[0]!.toUpperCase()}${word.slice(1)}`;
}

const PODCAST_ID = 'pod_alerts_bench';

function episodeRecords(id: string, names: string[], publishedAt: number) {
  const lines: string[] = [
    'Welcome back to the show.',
    'Joining me today is our guest from the trading desk.',
  ];
  for (let i = 0; i < names.length; i += 2) {
    const pair = names.slice(i, i + 2);
    lines.push(
      pair.length === 2
        ? `Shares of ${pair[0]} rose this week while ${pair[1]} slipped.`
        : `Shares of ${pair[0]} rose this week.`,
    );
    lines.push('Why do you think that is?');
    lines.push(
      pair.length === 2
        ? `Analysts say ${pair[0]} and ${pair[1]} both beat earnings.`
        : `Analysts say ${pair[0]} beat earnings.`,
    );
  }
  lines.push('Thanks for listening.');
  return [
    {
      type: 'episode',
      data: {
        id,
        slug: `${id}-slug`,
        podcast_id: PODCAST_ID,
        guid: id,
        title: `Markets today (${id})`,
        description: null,
        published_at: publishedAt,
        duration_seconds: lines.length * 6,
        audio_url: `https://cdn.example/${id}.mp3`,
        image_url: null,
        language: null,
        people: [],
        source: 'feed',
      },
    },
    {
      type: 'clips',
      data: {
        episode_id: id,
        clips: [],
      },
    },
    { type: 'transcript', data: transcriptOf(id, lines) },
  ];
}

export async function runAlertsServiceBench(
  o: AlertsServiceBenchOptions,
  progress: (msg: string) => void,
): Promise<BenchResult[]> {
  const tmp = tempDir(`earshot-bench-${o.bench}-`);
  const rx = await startReceiver(() => ({ status: 204 }));
  const config = loadConfig(
    {},
    {
      EARSHOT_DATA_DIR: path.join(tmp.dir, 'data'),
      EARSHOT_DEMO: 'off',
      EARSHOT_EMBEDDINGS_FETCH: 'off',
      PORT: 0,
      MCP_PORT: 0,
      LOG_LEVEL: 'silent',
      EARSHOT_OUTBOUND_ALLOWLIST: '127.0.0.1/32',
    },
  );
  const service = await startService(config, silentLogger());
  const ingestState = new IngestState(path.join(tmp.dir, 'ingest-state'));
  try {
    const { platform } = service;
    const batches = new BatchIngest({
      producer: platform.producer,
      log: platform.eventLog,
      state: ingestState,
      logger: silentLogger(),
    });
    const ingest = async (records: unknown[]) => {
      const checked = validateIngestBatch(records, ingestState);
      if (!checked.ok) throw new Error(`ingest refused: ${JSON.stringify(checked.errors.slice(0, 3))}`);
      await batches.publish({ records: checked.records });
    };
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
    const seeded = new Rng(7);
    const random = () => seeded.float();
    const entityIndex = () => Math.floor(random() * o.companies);
    const entityId = (i: number) => `ent_bench_${i}`;

    // The catalog, through the ingest path.
    await ingest([
      {
        type: 'podcast',
        data: {
          id: PODCAST_ID,
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
        },
      },
    ]);
    for (let i = 0; i < o.companies; i += 1000) {
      await ingest(
        Array.from({ length: Math.min(1000, o.companies - i) }, (_, k) => ({
          type: 'entity',
          data: {
            id: entityId(i + k),
            slug: `bench-${i + k}`,
            kind: 'COMPANY',
            name: companyName(i + k),
            description: null,
            wikipedia_url: null,
            image_url: null,
            category: { slug: 'technology', name: 'Technology' },
            aliases: [],
            nicknames: [],
            handles: [],
            context_terms: ['shares', 'earnings'],
            company: null,
            person: null,
            updated_at: Date.now(),
          },
        })),
      );
    }

    // The alerts, written straight into the state store (10,000 API calls would measure the API).
    const alerts = Array.from({ length: o.alerts }, (_, i) => ({
      id: `alrt_${o.bench}_${i}`,
      project_id: project.id,
      title: `alert ${i}`,
      kind: 'ENTITY_MENTION',
      delivery_cadence: 'REALTIME',
      entities: [
        ...new Set(Array.from({ length: 1 + Math.floor(random() * o.maxEntitiesPerAlert) }, entityIndex)),
      ].map((n) => ({ entity_type: 'COMPANY', entity_id: entityId(n) })),
      notifications: [{ type: 'WEBHOOK', webhook_connection_id: connection.id }],
    }));
    await platform.state.query(
      `INSERT INTO alerts (id, project_id, title, kind, delivery_cadence, entities, notifications, activated_at)
       SELECT id, project_id, title, kind, delivery_cadence, entities, notifications, now()
       FROM jsonb_to_recordset($1::jsonb) AS x(id text, project_id text, title text, kind text,
         delivery_cadence text, entities jsonb, notifications jsonb)`,
      [JSON.stringify(alerts)],
    );
    const index = platform.alerting.alerts.index;
    const deadline = Date.now() + 180_000;
    const caughtUp = async () => {
      for (const r of service.runners) if ((await r.lag()).some((p) => p.lag > 0)) return false;
      return true;
    };
    while ((index.size < o.alerts || !(await caughtUp())) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    progress(
      `${index.size.toLocaleString()} alerts indexed, ${o.companies.toLocaleString()} companies in the catalog`,
    );

    // Episodes at a steady rate, each through the ingest path.
    const ingestedAt = new Map<string, number>();
    let expected = 0;
    const sends: Promise<unknown>[] = [];
    const t0 = Date.now();
    for (let i = 0; i < o.episodes; i++) {
      const due = t0 + (i * 1000) / o.episodesPerSecond;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const id = `ep_${o.bench}_${i}`;
      const picked = new Set<number>();
      while (picked.size < o.mentionedPerEpisode) picked.add(entityIndex());
      const mentioned = new Set([...picked].map(entityId));
      expected += alerts.filter((a) => a.entities.some((e) => mentioned.has(e.entity_id))).length;
      const records = episodeRecords(id, [...picked].map(companyName), Date.now());
      ingestedAt.set(id, Date.now());
      sends.push(ingest(records));
      if (i % 40 === 39) progress(`${i + 1} episodes ingested, ${rx.received.length} webhooks received`);
    }
    await Promise.all(sends);
    progress(`${o.episodes} episodes ingested; waiting for ${expected} webhooks`);
    const until = Date.now() + 120_000;
    while (rx.received.length < expected && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    const latencies = rx.received
      .map((r) => {
        const body = r.body as { match?: { source_id?: string } };
        const at = ingestedAt.get(body.match?.source_id ?? '');
        return at === undefined ? undefined : r.at - at;
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
    const eps = [...ingestedAt.keys()];
    const detectors = stage(
      eps.map((e) => Math.max(mentionsAt.get(e)!, speakersAt.get(e)!) - ingestedAt.get(e)!),
    );
    const matcher = stage(
      eps.map((e) => matchedAt.get(e)! - Math.max(mentionsAt.get(e)!, speakersAt.get(e)!)),
    );
    const delivery = stage(
      rx.received.map((r) => {
        const body = r.body as { match?: { source_id?: string } };
        return r.at - (matchedAt.get(body.match?.source_id ?? '') ?? Number.NaN);
      }),
    );
    progress(`ingested → mentions and speakers detected: ${detectors}`);
    progress(`detected → first alerts.matched: ${matcher}`);
    progress(`first alerts.matched → webhook received: ${delivery}`);
    const result = (
      metric: string,
      value: number,
      unit: string,
      extra: Partial<BenchResult> = {},
    ): BenchResult => ({ bench: o.bench, metric, value: Math.round(value), unit, ...extra });
    return [
      result('transcript ingested → webhook received, p99', percentile(latencies, 99), 'ms', {
        target: { op: '<=', value: 2000 },
        note:
          `${latencies.length} of ${expected} webhooks (${o.episodes} episodes at ${o.episodesPerSecond}/s, ` +
          `${o.mentionedPerEpisode} companies named in each, ${o.alerts} active alerts); ` +
          `p50 ${percentile(latencies, 50)} ms, max ${latencies.at(-1)} ms; detectors ${detectors}; matcher ${matcher}; ` +
          `match → webhook ${delivery}`,
      }),
      result('transcript ingested → webhook received, p50', percentile(latencies, 50), 'ms'),
      result('webhooks received', latencies.length, 'count', { target: { op: '>=', value: expected } }),
    ];
  } finally {
    await service.stop();
    await ingestState.close();
    await rx.close();
    tmp.remove();
  }
}
