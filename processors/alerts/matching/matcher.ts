import type { Logger } from 'pino';
import { partitionOf } from '../../../ingest/event-log/partition-of.ts';
import type { OutputEvent } from '../../../ingest/event-producer.ts';
import type { AlertMatched } from '../../../schemas/generated/index.ts';
import type { ProcessorDefinition } from '../../consumer-runner.ts';
import { type Alert, BACKFILL_DAYS, DAY_MS, REALTIME_HORIZON_MS } from '../model.ts';
import type { AlertIndex, IndexedAlert } from './alert-index.ts';
import { type FactItem, MATCHER_INPUTS, mergeFact, toFact } from './facts.ts';
import { mentionMatch, mentionReady, speakerMatch, speakerReady } from './match-builder.ts';
import { type FactLine, type MatcherFacts, type MatcherStore, publishedAt } from './matcher-facts.ts';
import { EpisodeRenderer } from './windows.ts';

/**
 * The alert matcher: turns what is known about each episode into `alerts.matched` events, one
 * per alert and episode (the match id derives from both, so replays and retries repeat it).
 *
 * - handle (pure): each input record becomes a compact fact about one episode (facts.ts).
 * - sink: merges the facts into the episode store (any arrival order), and once an episode is
 *   ready (transcript + mentions, and speakers or a short wait for them; transcript + speakers
 *   for speaker alerts) matches it against the in-memory alert index, produces the matches,
 *   then records the episode. Offsets are committed after that, so a crash repeats, never
 *   loses, a match.
 * - backfill: when the index reports an alert this store has never swept (a new alert, or one
 *   first activated), its entities' episodes of the previous 7 days are matched at once.
 *   Episodes that were ready before the alert became active are `is_backfilled` (never
 *   delivered); those that became ready after it are ordinary matches (the alert was live, the
 *   index had not caught up yet).
 * - archive: an episode published more than the realtime horizon (REALTIME_HORIZON_MS, 2 days)
 *   before it is matched — a bulk load of old episodes, a feed's back catalog — is matched as
 *   history (`is_backfilled: true`: listed with the matches, never delivered on any channel,
 *   never in a digest), live or in a sweep.
 * - episodes waiting for speakers are re-examined on a timer once their wait is over.
 *
 * Sink writes, sweeps and the timer run one at a time.
 *
 * Several members: the matcher's group is co-partitioned (partition p of every input to one
 * member), its facts are in the state store (state-matcher-facts.ts), and the timer and the
 * backfill touch only episodes of the partitions this member holds (`partitions`); a backfill is
 * recorded per alert and partition, and run again for partitions a member gains. A match id
 * derives from (alert, episode), so a match repeated by a crash or a rebalance is the same match:
 * the match projection and the delivery planner keep the first.
 */
export type MatcherOutput = OutputEvent<'matches', AlertMatched>;

/** Episodes matched and produced at a time within one sink write. */
const EVALUATE_SLICE = 200;

export interface MatcherOptions {
  index: AlertIndex;
  /** Opened on first use (only processes running the matcher open it). */
  store: () => MatcherStore;
  /** Partitions of the (co-partitioned) episode topics; 6. */
  partitions?: number;
  output: { write(items: MatcherOutput[]): Promise<void> };
  logger: Logger;
  clock?: () => number;
  /** How long mention matching waits for speakers.identified after mentions.detected. */
  speakerGraceMs?: number;
  /** Episodes untouched for this long are dropped from the store. */
  retentionDays?: number;
  /** Episodes published longer than this before they are matched are history (never delivered). */
  realtimeHorizonMs?: number;
  timerMs?: number;
}

interface Work {
  facts: MatcherFacts;
  previous?: MatcherFacts;
  lines?: FactLine[];
  renderer?: EpisodeRenderer;
}

export interface MatcherStats {
  facts: number;
  matches: number;
  backfilled: number;
  /** Matches of episodes older than the realtime horizon (recorded as history). */
  archived: number;
  sweeps: number;
}

export class AlertMatcher {
  readonly stats: MatcherStats = { facts: 0, matches: 0, backfilled: 0, archived: 0, sweeps: 0 };
  private readonly clock: () => number;
  private readonly graceMs: number;
  private readonly retentionMs: number;
  private readonly horizonMs: number;
  private queue: Promise<unknown> = Promise.resolve();
  /** episode id → when its wait for speakers is over */
  private pending?: Map<string, number>;
  private timer?: NodeJS.Timeout;
  private lastPrune = 0;
  private unsubscribe?: () => void;
  private started?: Promise<void>;
  /** The partitions this member holds, once the runner started its consumer (else: all). */
  private assignment?: () => { topic: string; partition: number }[];
  /** Partitions held at the last check (a change runs the backfill for the ones gained). */
  private held = '';

  constructor(private readonly opts: MatcherOptions) {
    this.clock = opts.clock ?? Date.now;
    this.graceMs = opts.speakerGraceMs ?? 5000;
    this.retentionMs = (opts.retentionDays ?? BACKFILL_DAYS + 1) * DAY_MS;
    this.horizonMs = opts.realtimeHorizonMs ?? REALTIME_HORIZON_MS;
  }

  /** Published before the realtime horizon: matched as history, never delivered. */
  private isArchive(f: MatcherFacts, now: number): boolean {
    const published = publishedAt(f);
    return published !== undefined && published < now - this.horizonMs;
  }

  definition(): ProcessorDefinition<unknown, FactItem> {
    return {
      name: 'alert-matcher',
      groupId: 'processor.alert-matcher',
      inputs: MATCHER_INPUTS,
      handle: toFact,
      sink: { write: (items) => this.ingest(items) },
      started: (consumer) => {
        this.assignment = () => consumer.assignment();
      },
    };
  }

  private get store(): MatcherStore {
    return this.opts.store();
  }

  /** Partitions this member holds; undefined while it holds them all (no consumer, or one store user). */
  private heldPartitions(): Set<number> | undefined {
    if (!this.assignment || !this.store.shared) return undefined;
    return new Set(this.assignment().map((p) => p.partition));
  }

  private partitionOf(episodeId: string): number {
    return partitionOf(episodeId, this.opts.partitions ?? 6);
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Loads the index, sweeps alerts never swept, and starts the timers. Idempotent. */
  start(): Promise<void> {
    this.started ??= (async () => {
      this.unsubscribe = this.opts.index.onChange((changed) =>
        this.onAlertsChanged(changed).catch((err: unknown) => {
          this.opts.logger.warn({ err }, 'alert backfill failed; retried on the timer');
          this.held = '';
        }),
      );
      await this.opts.index.ready();
      await this.onAlertsChanged([...this.opts.index.all()].map((e) => e.alert)).catch((err: unknown) => {
        this.opts.logger.warn({ err }, 'alert backfill failed; retried on the timer');
        this.held = '';
      });
      this.opts.index.start();
      const tick = () => {
        this.timer = setTimeout(async () => {
          try {
            await this.tick();
          } catch (err) {
            this.opts.logger.warn({ err }, 'alert matcher timer failed; retrying');
          }
          if (this.timer) tick();
        }, this.opts.timerMs ?? 250);
        this.timer.unref?.();
      };
      tick();
    })();
    return this.started;
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
    this.opts.index.stop();
    await this.queue;
  }

  /** The sink: merge facts, match what became ready, produce, record. */
  async ingest(items: FactItem[]): Promise<void> {
    await this.start();
    await this.exclusive(async () => {
      const now = this.clock();
      const work = new Map<string, Work>();
      await this.store.load(items.map((i) => i.episode_id));
      for (const item of items) {
        let w = work.get(item.episode_id);
        if (!w) {
          const previous = this.store.get(item.episode_id);
          w = {
            previous,
            // Shallow: merging replaces whole parts, never edits them in place.
            facts: previous ? { ...previous } : { episode_id: item.episode_id, matched: [], touched_at: now },
          };
          work.set(item.episode_id, w);
        }
        const lines = mergeFact(w.facts, item, now);
        if (lines) w.lines = lines;
        this.stats.facts++;
      }
      await this.evaluateAndWrite([...work.values()], now);
    });
  }

  /**
   * Matches the episodes of `work` and produces the matches, a slice of episodes at a time (so
   * the rendered windows of one slice are garbage before the next), then records the episodes.
   */
  private async evaluateAndWrite(work: Work[], now: number): Promise<void> {
    const setMeta: [string, string, number][] = [];
    const removeMeta: [string, string][] = [];
    const pending = await this.pendingMap();
    for (let i = 0; i < work.length; i += EVALUATE_SLICE) {
      const outputs: MatcherOutput[] = [];
      for (const w of work.slice(i, i + EVALUATE_SLICE)) {
        for (const m of this.evaluate(w, now)) outputs.push({ output: 'matches', key: m.alert_id, value: m });
        w.renderer = undefined;
        const f = w.facts;
        const waiting = Boolean(f.has_lines && f.mentions && !f.speakers && f.mention_ready_at === undefined);
        if (waiting && !pending.has(f.episode_id)) {
          const due = f.mentions!.received_at + this.graceMs;
          pending.set(f.episode_id, due);
          setMeta.push(['pending', f.episode_id, due]);
        } else if (!waiting && pending.has(f.episode_id)) {
          pending.delete(f.episode_id);
          removeMeta.push(['pending', f.episode_id]);
        }
      }
      if (outputs.length > 0) await this.opts.output.write(outputs);
      this.stats.matches += outputs.length;
    }
    await this.store.write(work, { set: setMeta, remove: removeMeta });
  }

  private renderer(w: Work): EpisodeRenderer {
    w.renderer ??= new EpisodeRenderer(w.facts, w.lines ?? this.store.linesOf(w.facts.episode_id) ?? []);
    return w.renderer;
  }

  /** Matches a ready episode against every live alert not yet matched on it. */
  private evaluate(w: Work, now: number): AlertMatched[] {
    const f = w.facts;
    const matched = new Set(f.matched);
    const out: AlertMatched[] = [];
    let renderer: EpisodeRenderer | undefined;
    const ctx = { detectedAt: now, isBackfilled: this.isArchive(f, now) };
    if (mentionReady(f, now, this.graceMs)) {
      f.mention_ready_at ??= now;
      const seen = new Set<IndexedAlert>();
      for (const e of f.mentions!.entities) {
        for (const entry of this.opts.index.mentionAlerts(e.entity_id) ?? []) {
          if (seen.has(entry) || matched.has(entry.alert.id)) continue;
          seen.add(entry);
          renderer ??= this.renderer(w);
          const m = mentionMatch(entry, renderer, ctx);
          if (m) {
            out.push(m);
            matched.add(m.alert_id);
          }
        }
      }
    }
    if (speakerReady(f)) {
      f.speaker_ready_at ??= now;
      const seen = new Set<IndexedAlert>();
      for (const s of f.speakers!.list) {
        if (!s.person_id) continue;
        for (const entry of this.opts.index.speakerAlerts(s.person_id) ?? []) {
          if (seen.has(entry) || matched.has(entry.alert.id)) continue;
          seen.add(entry);
          renderer ??= this.renderer(w);
          const m = speakerMatch(entry, renderer, ctx);
          if (m) {
            out.push(m);
            matched.add(m.alert_id);
          }
        }
      }
    }
    if (out.length > 0) f.matched = [...matched];
    if (ctx.isBackfilled) this.stats.archived += out.length;
    return out;
  }

  private async pendingMap(): Promise<Map<string, number>> {
    if (!this.pending) {
      this.pending = new Map((await this.store.metaEntries('pending')).map((e) => [e.key, e.value]));
    }
    return this.pending;
  }

  /**
   * Episodes whose wait for speakers is over are matched; old episodes are pruned hourly. With a
   * shared store, only episodes of the partitions this member holds, and the waits are read
   * again each time (another member may have recorded them before the partition moved here).
   */
  async tick(): Promise<void> {
    const now = this.clock();
    const held = this.heldPartitions();
    const heldKey = held ? [...held].sort().join(',') : 'all';
    if (heldKey !== this.held) {
      // Partitions gained (or a backfill that failed): sweep the alerts not swept on them.
      await this.onAlertsChanged([...this.opts.index.all()].map((e) => e.alert));
      this.held = heldKey;
    }
    if (this.store.shared) this.pending = undefined;
    const pending = await this.pendingMap();
    const due = [...pending]
      .filter(([id, at]) => at <= now && (!held || held.has(this.partitionOf(id))))
      .map(([id]) => id);
    if (due.length > 0) {
      await this.exclusive(async () => {
        const work: Work[] = [];
        await this.store.load(due);
        for (const id of due) {
          const previous = this.store.get(id);
          if (!previous) {
            pending.delete(id);
            await this.store.write([], { remove: [['pending', id]] });
            continue;
          }
          work.push({ previous, facts: { ...previous } });
        }
        await this.evaluateAndWrite(work, now);
      });
    }
    if (now - this.lastPrune > 3_600_000) {
      this.lastPrune = now;
      await this.exclusive(async () => {
        const removed = await this.store.prune(now - this.retentionMs);
        if (removed > 0) this.opts.logger.info({ removed }, 'alert matcher pruned old episodes');
      });
    }
  }

  /** The `backfilled` keys of an alert: one per held partition with a shared store, else one. */
  private sweepKeys(alertId: string, held: Set<number> | undefined): string[] {
    return held ? [...held].map((p) => `${alertId}@${p}`) : [alertId];
  }

  private async onAlertsChanged(changed: Alert[]): Promise<void> {
    const held = this.heldPartitions();
    const toSweep: string[] = [];
    for (const a of changed) {
      if (this.opts.index.get(a.id) === undefined) continue;
      for (const key of this.sweepKeys(a.id, held)) {
        if ((await this.store.metaGet('backfilled', key)) === undefined) {
          toSweep.push(a.id);
          break;
        }
      }
    }
    if (toSweep.length > 0) await this.exclusive(() => this.sweep(toSweep, held));
  }

  /** The one-time backfill of alerts over the episodes of the previous BACKFILL_DAYS days. */
  private async sweep(alertIds: string[], held: Set<number> | undefined): Promise<void> {
    const now = this.clock();
    const since = now - BACKFILL_DAYS * DAY_MS;
    const work = new Map<string, Work>();
    const outputs: MatcherOutput[] = [];
    const done: [string, string, number][] = [];
    for (const id of alertIds) {
      const entry = this.opts.index.get(id);
      if (!entry) continue;
      const { alert } = entry;
      const activatedAt = (alert.activated_at ?? alert.created_at).getTime();
      const kind = alert.kind === 'ENTITY_MENTION' ? 'm' : 's';
      const episodes = new Set<string>();
      for (const entityId of entry.entities.keys()) {
        for (const ep of await this.store.episodesFor(kind, entityId)) {
          if (!held || held.has(this.partitionOf(ep))) episodes.add(ep);
        }
      }
      await this.store.load([...episodes].filter((ep) => !work.has(ep)));
      for (const ep of episodes) {
        let w = work.get(ep);
        if (!w) {
          const previous = this.store.get(ep);
          if (!previous) continue;
          w = { previous, facts: { ...previous } };
          work.set(ep, w);
        }
        const f = w.facts;
        if (f.matched.includes(id) || (publishedAt(f) ?? 0) < since) continue;
        const readyAt = kind === 'm' ? f.mention_ready_at : f.speaker_ready_at;
        // Not ready yet: it is matched like any other episode when it is.
        if (readyAt === undefined) continue;
        const ctx = { detectedAt: now, isBackfilled: readyAt < activatedAt || this.isArchive(f, now) };
        const renderer = this.renderer(w);
        const m = kind === 'm' ? mentionMatch(entry, renderer, ctx) : speakerMatch(entry, renderer, ctx);
        if (!m) continue;
        f.matched = [...f.matched, id];
        outputs.push({ output: 'matches', key: m.alert_id, value: m });
        if (m.is_backfilled) this.stats.backfilled++;
      }
      for (const key of this.sweepKeys(id, held)) done.push(['backfilled', key, now]);
    }
    if (outputs.length > 0) await this.opts.output.write(outputs);
    this.stats.matches += outputs.length;
    this.stats.sweeps += done.length;
    const changed = [...work.values()].filter((w) => w.facts.matched.length !== w.previous?.matched.length);
    await this.store.write(changed, { set: done });
    if (outputs.length > 0) {
      this.opts.logger.info({ alerts: alertIds.length, matches: outputs.length }, 'alert backfill swept');
    }
  }
}
