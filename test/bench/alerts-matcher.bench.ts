import path from 'node:path';
import { silentLogger } from '../../infra/logger.ts';
import { Rng } from '../../ingest/corpus/rng.ts';
import { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';
import { EventProducer } from '../../ingest/event-producer.ts';
import { AvroCodec } from '../../ingest/schema-registry/avro-codec.ts';
import { LmdbSchemaRegistry } from '../../ingest/schema-registry/lmdb-schema-registry.ts';
import { AlertsRuntime } from '../../processors/alerts/runtime.ts';
import { ConsumerRunner } from '../../processors/consumer-runner.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { Accounts } from '../../projections/state/accounts.ts';
import { migrate } from '../../projections/state/migrations.ts';
import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { allTopicSpecs, TOPICS } from '../../schemas/topics.ts';
import { episodeEvents } from '../support/alerts.ts';
import { tempDir } from '../support/temp-dir.ts';
import type { Bench, BenchResult } from './bench.ts';

const ALERTS = 10_000;
const ENTITIES = 20_000;
const EPISODES = 4_000;
const ENTITIES_PER_EPISODE = 10;
const MENTIONS_PER_ENTITY = 3;
const LINES = 120;

/**
 * The alert matcher with 10,000 live alerts (1-5 entities each over 20,000 entities; one in ten
 * a speaker alert): 4,000 episodes' transcripts, speakers and clips are loaded first, then their
 * mentions.detected events (10 entities × 3 mentions each) are consumed, matched against the
 * in-memory index, rendered into alerts.matched events with windows and produced — through the
 * consumer runner on the embedded log, commits included.
 */
export const alertsMatcherBench: Bench = {
  name: 'alerts-matcher',
  description: `matcher: ${EPISODES.toLocaleString()} mentions.detected events (${(EPISODES * ENTITIES_PER_EPISODE * MENTIONS_PER_ENTITY).toLocaleString()} mentions) against ${ALERTS.toLocaleString()} alerts, embedded log`,
  async run(progress) {
    const tmp = tempDir('earshot-bench-alerts-');
    const log = new LmdbEventLog(path.join(tmp.dir, 'log'));
    const registry = new LmdbSchemaRegistry(path.join(tmp.dir, 'registry'));
    const codec = new AvroCodec(registry);
    const producer = new EventProducer(log, codec);
    const state = new PgliteStateStore();
    const logger = silentLogger();
    let rt: AlertsRuntime | undefined;
    try {
      const specs = allTopicSpecs();
      await log.createTopics(specs);
      for (const s of specs) await codec.registerTopic(s.name, s.valueSchema);
      await migrate(state);
      const accounts = new Accounts(state);
      const org = await accounts.createOrganization({ name: 'Bench' });
      const project = await accounts.createProject({
        organizationId: org.id,
        name: 'bench',
        plan: 'enterprise',
      });

      const seeded = new Rng(42);
      const random = () => seeded.float();
      const entity = () => `ent_${Math.floor(random() * ENTITIES)}`;
      const alerts = Array.from({ length: ALERTS }, (_, i) => {
        const speaker = i % 10 === 0;
        const n = 1 + Math.floor(random() * 5);
        return {
          id: `alrt_bench_${i}`,
          project_id: project.id,
          title: `alert ${i}`,
          kind: speaker ? 'PODCAST_SPEAKER' : 'ENTITY_MENTION',
          delivery_cadence: 'REALTIME',
          entities: Array.from({ length: n }, () => ({
            entity_type: speaker ? 'PERSON' : 'COMPANY',
            entity_id: entity(),
          })),
          notifications: [{ type: 'WEBHOOK', webhook_connection_id: 'whc_bench' }],
        };
      });
      await state.query(
        `INSERT INTO alerts (id, project_id, title, kind, delivery_cadence, entities, notifications, activated_at)
         SELECT id, project_id, title, kind, delivery_cadence, entities, notifications, now() - interval '1 day'
         FROM jsonb_to_recordset($1::jsonb) AS x(id text, project_id text, title text, kind text,
           delivery_cadence text, entities jsonb, notifications jsonb)`,
        [JSON.stringify(alerts)],
      );
      progress(`${ALERTS.toLocaleString()} alerts stored`);

      const now = Date.now();
      const facts: { key: string; value: unknown }[][] = [[], [], [], []];
      const mentions: { key: string; value: unknown }[] = [];
      let mentionCount = 0;
      for (let i = 0; i < EPISODES; i++) {
        const id = `ep_bench_${i}`;
        const ev = episodeEvents({ id, podcastId: 'pod_bench', publishedAt: now - 3_600_000, at: now });
        const texts = ev.transcript.lines.map((l) => l.text);
        ev.transcript.lines = Array.from({ length: LINES }, (_, n) => ({
          number: n + 1,
          speaker: n % 2 ? 'SPEAKER_1' : 'SPEAKER_2',
          role: null,
          start_seconds: n * 5,
          end_seconds: n * 5 + 5,
          text: `${texts[n % texts.length]} (${n})`,
          words: null,
        }));
        ev.speakers.speakers[1]!.person_id = entity();
        const ids = new Set<string>();
        while (ids.size < ENTITIES_PER_EPISODE) ids.add(entity());
        ev.mentions.mentions = [...ids].flatMap((entityId) =>
          Array.from({ length: MENTIONS_PER_ENTITY }, () => {
            const line = 1 + Math.floor(random() * LINES);
            return {
              entity_id: entityId,
              line_number: line,
              speaker: line % 2 ? 'SPEAKER_2' : 'SPEAKER_1',
              start_seconds: (line - 1) * 5,
              end_seconds: line * 5,
              variant: entityId,
              char_start: 0,
              char_end: 5,
              in_ad: false,
              matched: null,
              match: null,
            };
          }),
        );
        ev.mentions.entities = [...ids].map((entityId, k) => ({
          entity_id: entityId,
          relevance: k < 3 ? 'on_target' : 'incidental',
          mention_count: MENTIONS_PER_ENTITY,
          variants: [entityId],
        }));
        mentionCount += ev.mentions.mentions.length;
        facts[0]!.push({ key: id, value: ev.episode });
        facts[1]!.push({ key: id, value: ev.transcript });
        facts[2]!.push({ key: id, value: ev.speakers });
        facts[3]!.push({ key: id, value: ev.clips });
        mentions.push({ key: id, value: ev.mentions });
      }
      const send = async (
        topic: (typeof TOPICS)[keyof typeof TOPICS],
        events: { key: string; value: unknown }[],
      ) => {
        for (let i = 0; i < events.length; i += 500) await producer.send(topic, events.slice(i, i + 500));
      };
      await send(TOPICS.episodes, facts[0]!);
      await send(TOPICS.transcripts, facts[1]!);
      await send(TOPICS.speakers, facts[2]!);
      await send(TOPICS.clips, facts[3]!);

      rt = new AlertsRuntime({
        state,
        catalog: new CatalogReader(state),
        producer,
        logger,
        dir: path.join(tmp.dir, 'matcher'),
        indexPollMs: 60_000,
      });
      const t0 = performance.now();
      await rt.matcher.start();
      const loadMs = performance.now() - t0;
      progress(`index of ${rt.index.size.toLocaleString()} alerts loaded in ${Math.round(loadMs)} ms`);
      const options = { maxBatchItems: 2000, maxBatchWaitMs: 50 };
      const runner = () => new ConsumerRunner(rt!.matcher.definition(), log, producer, logger, options);
      const caughtUp = async (r: ConsumerRunner<unknown, unknown>) =>
        (await r.lag()).every((p) => p.lag === 0);
      const loader = runner();
      await loader.start();
      while (!(await caughtUp(loader))) await new Promise((r) => setTimeout(r, 20));
      await loader.stop();
      const speakerMatches = rt.matcher.stats.matches;
      progress(`episode facts loaded; ${speakerMatches.toLocaleString()} speaker matches`);

      // The mentions wait in the log; the clock runs from the consumer's start to its last commit.
      await send(TOPICS.mentions, mentions);
      const matcher = runner();
      const t1 = performance.now();
      const cpu0 = process.cpuUsage();
      await matcher.start();
      while (!(await caughtUp(matcher))) await new Promise((r) => setTimeout(r, 5));
      const seconds = (performance.now() - t1) / 1000;
      const cpu = process.cpuUsage(cpu0);
      const cpuSeconds = (cpu.user + cpu.system) / 1e6;
      await matcher.stop();
      const mentionMatches = rt.matcher.stats.matches - speakerMatches;
      progress(
        `${mentionMatches.toLocaleString()} mention matches in ${seconds.toFixed(2)} s (${cpuSeconds.toFixed(2)} s of CPU in this process)`,
      );
      const result = (
        metric: string,
        value: number,
        unit: string,
        extra: Partial<BenchResult> = {},
      ): BenchResult => ({
        bench: 'alerts-matcher',
        metric,
        value: Math.round(value),
        unit,
        ...extra,
      });
      return [
        result('mention events matched, 10,000 alerts', mentionCount / seconds, 'mentions/s', {
          target: { op: '>=', value: 20_000 },
          note: `${EPISODES} mentions.detected records of ${ENTITIES_PER_EPISODE * MENTIONS_PER_ENTITY} mentions; consume + match + produce + commit; ${cpuSeconds.toFixed(2)} s CPU over ${seconds.toFixed(2)} s`,
        }),
        result(
          'mention events matched per CPU second of this process',
          mentionCount / cpuSeconds,
          'mentions/s',
          {
            note: 'what one core sustains when the process is not waiting for a core (the machine is shared)',
          },
        ),
        result('mentions.detected records matched', EPISODES / seconds, 'records/s'),
        result('alerts.matched produced', mentionMatches / seconds, 'matches/s', {
          note: `${mentionMatches} matches with windows`,
        }),
        result('alert index load (10,000 alerts)', loadMs, 'ms'),
      ];
    } finally {
      await rt?.matcher.stop();
      await rt?.tasks()[0]?.stop();
      await log.close();
      await registry.close();
      await state.close();
      tmp.remove();
    }
  },
};
