import os from 'node:os';
import {
  evaluateMentions,
  evaluateSpeakers,
  factsFor,
  loadCorpusContext,
} from '../../ingest/corpus/evaluate.ts';
import { readRecords } from '../../ingest/corpus/read-corpus.ts';
import { Rng } from '../../ingest/corpus/rng.ts';
import { detectMentions } from '../../processors/mentions/detect.ts';
import type { Entity, Transcript } from '../../schemas/generated/index.ts';
import type { Bench, BenchResult } from './bench.ts';
import { benchCorpus } from './bench-corpus.ts';

/**
 * Mention detection: precision and recall against the bench corpus's ground truth (overall and
 * for the ambiguous names), relevance agreement, and single-core throughput with a gazetteer of
 * more than 100,000 aliases. Speaker identification: accuracy on the same corpus, hosts and
 * credited guests identified, and assignments to people who never spoke. The bench corpus
 * carries the noise of real speech-to-text (ingest/corpus/speech-noise.ts).
 */
const GAZETTEER_ALIASES = 100_000;
const THROUGHPUT_LINES = 300_000;

const SYLLABLES =
  'ka ro mi ten sol va dex lor qui ban tra zel mor nix pra vel hul cor ith ova sen gar tul bry fen osk'.split(
    ' ',
  );
const FIRST =
  'Ada Bram Cleo Dov Elin Farah Gus Hana Ivo Jory Kaia Lev Mira Nils Oona Pavel Rhea Soren Tova Ugo Vera Wim Xenia Yusuf Zora'.split(
    ' ',
  );

/** Synthetic companies and people, each with many aliases, until the gazetteer holds `aliases`. */
export function syntheticEntities(aliases: number): Entity[] {
  const rng = new Rng(2025);
  const out: Entity[] = [];
  const used = new Set<string>();
  let count = 0;
  for (let i = 0; count < aliases; i++) {
    const word = () => {
      for (;;) {
        const w = Array.from({ length: rng.int(3, 4) }, () => rng.pick(SYLLABLES)).join('');
        if (!used.has(w)) {
          used.add(w);
          return w[0]!.toUpperCase() + w.slice(1);
        }
      }
    };
    const base = {
      description: null,
      wikipedia_url: null,
      image_url: null,
      nicknames: [],
      context_terms: [],
      variants: [],
      person: null,
      updated_at: 0,
    };
    if (i % 3 === 2) {
      const last = word();
      const name = `${rng.pick(FIRST)} ${last}`;
      out.push({
        ...base,
        id: `bench_p_${i}`,
        slug: `bench-p-${i}`,
        kind: 'PERSON',
        name,
        category: { slug: 'people', name: 'People' },
        aliases: [last],
        handles: [`@${last.toLowerCase()}${i}`],
        company: null,
      });
      count += 3;
    } else {
      const brand = word();
      const ticker = `${brand.slice(0, 3).toUpperCase()}${String.fromCharCode(65 + (i % 26))}`;
      out.push({
        ...base,
        id: `bench_c_${i}`,
        slug: `bench-c-${i}`,
        kind: 'COMPANY',
        name: `${brand} ${rng.pick(['Systems', 'Capital', 'Foods', 'Motors', 'Health', 'Media'])}`,
        category: { slug: 'technology', name: 'Technology' },
        aliases: [brand],
        handles: [`@${brand}`],
        company: { domain: `${brand.toLowerCase()}.com`, ticker },
      });
      count += 6;
    }
  }
  return out;
}

export const mentionsBench: Bench = {
  name: 'mentions',
  description:
    'mention detection: precision/recall on the bench corpus (≥ 1M lines); lines/s with a 100,000-alias gazetteer on one core',
  async run(progress) {
    const { dir } = await benchCorpus(progress);
    const ctx = await loadCorpusContext(dir);
    progress(`scoring against the ground truth (${ctx.gazetteer.size.toLocaleString()} corpus aliases)`);
    const quality = await evaluateMentions(dir, ctx);

    for (const e of syntheticEntities(GAZETTEER_ALIASES)) ctx.gazetteer.add(e);
    progress(`throughput with ${ctx.gazetteer.size.toLocaleString()} aliases`);
    const sample: Transcript[] = [];
    let sampleLines = 0;
    for await (const t of readRecords<Transcript>(`${dir}/transcripts.ndjson`)) {
      sample.push(t);
      sampleLines += t.lines.length;
      if (sampleLines >= 100_000) break;
    }
    // One pass to warm up (compiled code, caches), then the measured passes: wall clock, and the
    // CPU time of this process (what one core spends, whatever else the machine is running).
    for (const t of sample) detectMentions(t, factsFor(ctx, t.episode_id)!, ctx.gazetteer, 0);
    let lines = 0;
    let mentions = 0;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    while (lines < THROUGHPUT_LINES) {
      for (const t of sample) {
        mentions += detectMentions(t, factsFor(ctx, t.episode_id)!, ctx.gazetteer, 0).mentions.length;
        lines += t.lines.length;
      }
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const results: BenchResult[] = [
      {
        bench: 'mentions',
        metric: 'precision',
        value: round(quality.overall.precision),
        unit: 'ratio',
        target: { op: '>=', value: 0.95 },
        note: `${quality.overall.tp} tp, ${quality.overall.fp} fp over ${quality.lines.toLocaleString()} lines`,
      },
      {
        bench: 'mentions',
        metric: 'recall',
        value: round(quality.overall.recall),
        unit: 'ratio',
        target: { op: '>=', value: 0.95 },
        note: `${quality.overall.fn} fn`,
      },
      {
        bench: 'mentions',
        metric: 'precision, ambiguous names',
        value: round(quality.ambiguous.precision),
        unit: 'ratio',
        target: { op: '>=', value: 0.95 },
        note: `${quality.ambiguous.otherSenseTaken} of ${quality.ambiguous.otherSenseOccurrences} ordinary-word uses taken for the entity`,
      },
      {
        bench: 'mentions',
        metric: 'recall, ambiguous names',
        value: round(quality.ambiguous.recall),
        unit: 'ratio',
        target: { op: '>=', value: 0.95 },
        note: `${quality.ambiguous.tp + quality.ambiguous.fn} entity-sense occurrences`,
      },
      {
        bench: 'mentions',
        metric: 'on_target/incidental agreement',
        value: round(quality.relevance.accuracy),
        unit: 'ratio',
        note: `${quality.relevance.compared} episode-entity pairs`,
      },
      {
        bench: 'mentions',
        metric: 'gazetteer aliases (throughput run)',
        value: ctx.gazetteer.size,
        unit: 'aliases',
        target: { op: '>=', value: GAZETTEER_ALIASES },
      },
      {
        bench: 'mentions',
        metric: 'detection throughput, one core',
        value: Math.round(lines / seconds),
        unit: 'lines/s',
        target: { op: '>=', value: 100_000 },
        note: `${lines.toLocaleString()} lines, ${mentions.toLocaleString()} mentions, wall clock after a warm-up pass`,
      },
      {
        bench: 'mentions',
        metric: 'detection throughput, per CPU second',
        value: Math.round(lines / cpuSeconds),
        unit: 'lines/s',
        target: { op: '>=', value: 100_000 },
        note: `${cpuSeconds.toFixed(2)} s of CPU in ${seconds.toFixed(2)} s (the machine's load: ${os.loadavg()[0]!.toFixed(1)})`,
      },
    ];
    return results;
  },
};

export const speakersBench: Bench = {
  name: 'speakers',
  description: 'speaker identification: labels mapped to the right person and role on the bench corpus',
  async run(progress) {
    const { dir } = await benchCorpus(progress);
    const ctx = await loadCorpusContext(dir);
    const t0 = performance.now();
    const r = await evaluateSpeakers(dir, ctx);
    const seconds = (performance.now() - t0) / 1000;
    const results: BenchResult[] = [
      {
        bench: 'speakers',
        metric: 'accuracy (person and role)',
        value: round(r.accuracy),
        unit: 'ratio',
        note: `${r.correct} of ${r.labels} labels in ${r.episodes} episodes`,
      },
      { bench: 'speakers', metric: 'role accuracy', value: round(r.roleAccuracy), unit: 'ratio' },
      {
        bench: 'speakers',
        metric: 'host identified',
        value: round(r.hostIdentified / r.hostEpisodes),
        unit: 'ratio',
        target: { op: '>=', value: 0.95 },
        note: `${r.hostIdentified} of ${r.hostEpisodes} episodes`,
      },
      {
        bench: 'speakers',
        metric: 'credited guests identified',
        value: round(r.creditedIdentified / r.creditedGuests),
        unit: 'ratio',
        target: { op: '>=', value: 0.9 },
        note: `${r.creditedIdentified} of ${r.creditedGuests} (guests, panelists, correspondents)`,
      },
      {
        bench: 'speakers',
        metric: 'assignments to people who never spoke',
        value: r.neverSpoke,
        unit: 'labels',
        target: { op: '<=', value: 0 },
      },
      { bench: 'speakers', metric: 'person accuracy', value: round(r.personAccuracy), unit: 'ratio' },
      {
        bench: 'speakers',
        metric: 'episodes identified per second (incl. reading)',
        value: Math.round(r.episodes / seconds),
        unit: 'episodes/s',
      },
    ];
    for (const [role, c] of Object.entries(r.byRole)) {
      results.push({
        bench: 'speakers',
        metric: `accuracy ${role}`,
        value: round(c.correct / c.labels),
        unit: 'ratio',
        note: `${c.labels} labels`,
      });
    }
    return results;
  },
};

function round(v: number): number {
  return Math.round(v * 10_000) / 10_000;
}
