import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readRecords } from '../../ingest/corpus/read-corpus.ts';
import { detectMentions, type EpisodeFacts } from '../../processors/mentions/detect.ts';
import { Gazetteer } from '../../processors/mentions/gazetteer.ts';
import { identifySpeakers } from '../../processors/speakers/identify.ts';
import { loadSchema, type SchemaName } from '../../schemas/avro-schemas.ts';
import type {
  Entity,
  EpisodePublished,
  MentionsDetected,
  Podcast,
  SpeakersIdentified,
  Transcript,
} from '../../schemas/generated/index.ts';
import type { Bench, BenchResult } from './bench.ts';

/**
 * Mention detection and speaker identification scored on a hand-labelled sample of a real,
 * diarized podcast corpus (see docs/understanding.md → "Real speech"). The corpus is not part of
 * the repository: its directory is given as an argument or in `EARSHOT_REAL_SPEECH_DIR`, laid out as
 *
 *   out/{podcasts,entities,episodes,transcripts}.ndjson   the corpus as ingest records
 *                                                         (real-speech/convert-seenunseen.ts)
 *   out/entity-variants.json                              known misspellings per entity id
 *   labels/mentions.ndjson                                optional: sampled lines, every entity they
 *                                                         name (else real-speech/mention-labels.ndjson)
 *   labels/speakers.ndjson                                optional: every diarization label of some
 *                                                         episodes (else real-speech/speaker-labels.ndjson)
 *
 * Mentions are scored over (line, entity) pairs of the sampled lines, detection running over the
 * whole episode (context crosses lines). Speakers: the host identified (the label the identifier
 * gives the credited host is one the host dominates), credited guests identified likewise,
 * labels given to someone else, and assignments to people who never spoke in the episode.
 *
 * Run: `node --import tsx test/bench/real-speech.bench.ts <dir> [--details]`, or
 * `EARSHOT_REAL_SPEECH_DIR=<dir> npm run bench -- real-speech`.
 */

/** Entities whose names are ambiguous in this corpus (the labelling guide's list). */
const AMBIGUOUS_PREFIXES = [
  'c-apple',
  'c-amazon',
  'c-meta',
  'k-inc',
  'k-us-congress',
  'k-partition',
  'k-emergency',
  'c-ibm',
  'c-ivm-podcasts',
  'p-mahatma-gandhi',
  'p-indira-gandhi',
  'p-rajiv-gandhi',
  'p-sonia-gandhi',
  'p-rahul-gandhi',
  'p-sanjay-gandhi',
  'p-narendra-modi',
  'c-the-hindu',
  'c-reliance',
  'k-supreme-court-',
];
const isAmbiguous = (id: string) =>
  AMBIGUOUS_PREFIXES.some((p) => (p.endsWith('-') ? id.startsWith(p) : id === p));

interface Occurrence {
  surface: string;
  char_start: number;
  char_end: number;
  form: 'name' | 'variant' | 'unlisted' | 'address';
}
interface MentionLabel {
  episode_id: string;
  line: number;
  stratum: string;
  entities: string[];
  mentions: { entity_id: string; occurrences: Occurrence[] }[];
  not_entity: { surface: string; char_start: number; char_end: number; sense: string }[];
}
interface SpeakerLabel {
  episode_id: string;
  credited_host: string;
  credited_guests: string[];
  spoke: string[];
  heard_in_recordings: string[];
  host_labels: string[];
  guest_labels: Record<string, string[]>;
  labels: {
    label: string;
    person_id: string | null;
    kind: 'person' | 'announcer' | 'mixed';
    also_heard: string[];
  }[];
}

export interface Counts {
  tp: number;
  fp: number;
  fn: number;
}
const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);
export const precision = (c: Counts) => ratio(c.tp, c.tp + c.fp);
export const recall = (c: Counts) => ratio(c.tp, c.tp + c.fn);

export interface RealSpeechEvaluation {
  mentions: {
    lines: number;
    overall: Counts;
    ambiguous: Counts;
    /** Recall over pairs that have at least one occurrence the catalog knows (name, alias, variant). */
    listed: Counts;
    notEntityOccurrences: number;
    notEntityTaken: number;
    errors: string[];
  };
  speakers: {
    episodes: number;
    hostIdentified: number;
    guests: number;
    guestsWithOwnLabel: number;
    guestsIdentified: number;
    /** Person assignments to a label dominated by someone else (mixed labels: not in also_heard). */
    wrong: number;
    /** Assignments of people who do not speak in the episode. */
    neverSpoke: number;
    /** Announcer and mixed labels given a person. */
    nonPersonNamed: number;
    errors: string[];
  };
  corpus: {
    episodes: number;
    /** The label literally named after the host assigned to the host. */
    hostLabelIsHost: number;
    episodesWithGuests: number;
    /** Episodes where every credited guest was assigned to some label. */
    allGuestsMatched: number;
    /** Assignments of a person who is not credited in the episode (host or guest). */
    uncredited: number;
    uncreditedExamples: string[];
    mentionSeconds: number;
    speakerSeconds: number;
    lines: number;
  };
}

/** Decodes a plain-JSON record through its Avro schema, so defaults fill what the file leaves out. */
function normalise<T>(schema: SchemaName, data: unknown): T {
  const type = loadSchema(schema).type;
  return type.fromBuffer(type.toBuffer(data)) as T;
}

async function readAllOf<T>(file: string, schema: SchemaName): Promise<T[]> {
  const out: T[] = [];
  for await (const r of readRecords<unknown>(file)) out.push(normalise<T>(schema, r));
  return out;
}

/**
 * The labels: `<dir>/labels/<kind>.ndjson` when present, else the judged set committed beside this
 * file (`real-speech/<kind>-labels.ndjson`: ids, line numbers, offsets and the names' spellings,
 * no transcript text), so losing an evaluation dir cannot lose the judgements.
 */
function labelsFile(dir: string, kind: 'mentions' | 'speakers'): string {
  const own = path.join(dir, 'labels', `${kind}.ndjson`);
  if (fs.existsSync(own)) return own;
  return fileURLToPath(new URL(`./real-speech/${kind.slice(0, -1)}-labels.ndjson`, import.meta.url));
}

function readNdjson<T>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as T);
}

export async function evaluateRealSpeech(
  dir: string,
  progress: (msg: string) => void = () => {},
): Promise<RealSpeechEvaluation> {
  const out = (f: string) => path.join(dir, 'out', f);
  const variantsFile = out('entity-variants.json');
  const known: Record<string, string[]> = fs.existsSync(variantsFile)
    ? JSON.parse(fs.readFileSync(variantsFile, 'utf8'))
    : {};
  const entities = new Map<string, Entity>();
  const gazetteer = new Gazetteer();
  for await (const raw of readRecords<Record<string, unknown>>(out('entities.ndjson'))) {
    const e = normalise<Entity>('Entity', raw);
    const withVariants = { ...e, variants: known[e.id] ?? [] } as Entity;
    entities.set(e.id, withVariants);
    gazetteer.add(withVariants);
  }
  const podcasts = new Map(
    (await readAllOf<Podcast>(out('podcasts.ndjson'), 'Podcast')).map((p) => [p.id, p]),
  );
  const episodes = new Map(
    (await readAllOf<EpisodePublished>(out('episodes.ndjson'), 'EpisodePublished')).map((e) => [e.id, e]),
  );
  const mentionLabels = readNdjson<MentionLabel>(labelsFile(dir, 'mentions'));
  const speakerLabels = new Map(
    readNdjson<SpeakerLabel>(labelsFile(dir, 'speakers')).map((s) => [s.episode_id, s]),
  );
  const sampled = new Map<string, MentionLabel[]>();
  for (const m of mentionLabels) {
    const list = sampled.get(m.episode_id) ?? [];
    list.push(m);
    sampled.set(m.episode_id, list);
  }
  progress(
    `${entities.size} entities, ${episodes.size} episodes; ${mentionLabels.length} labelled lines, ${speakerLabels.size} labelled episodes`,
  );

  const m: RealSpeechEvaluation['mentions'] = {
    lines: mentionLabels.length,
    overall: { tp: 0, fp: 0, fn: 0 },
    ambiguous: { tp: 0, fp: 0, fn: 0 },
    listed: { tp: 0, fp: 0, fn: 0 },
    notEntityOccurrences: 0,
    notEntityTaken: 0,
    errors: [],
  };
  const s: RealSpeechEvaluation['speakers'] = {
    episodes: speakerLabels.size,
    hostIdentified: 0,
    guests: 0,
    guestsWithOwnLabel: 0,
    guestsIdentified: 0,
    wrong: 0,
    neverSpoke: 0,
    nonPersonNamed: 0,
    errors: [],
  };
  const c: RealSpeechEvaluation['corpus'] = {
    episodes: 0,
    hostLabelIsHost: 0,
    episodesWithGuests: 0,
    allGuestsMatched: 0,
    uncredited: 0,
    uncreditedExamples: [],
    mentionSeconds: 0,
    speakerSeconds: 0,
    lines: 0,
  };
  const nameOf = (id: string | null) => (id ? (entities.get(id)?.name ?? id) : 'nobody');

  for await (const raw of readRecords<unknown>(out('transcripts.ndjson'))) {
    const transcript = normalise<Transcript>('Transcript', raw);
    const episode = episodes.get(transcript.episode_id);
    if (!episode) continue;
    const podcast = podcasts.get(episode.podcast_id) ?? null;
    c.episodes++;
    c.lines += transcript.lines.length;
    if (c.episodes % 50 === 0) progress(`${c.episodes} episodes`);

    const facts: EpisodeFacts = {
      episode,
      podcastCategories: podcast?.categories.map((x) => x.slug) ?? [],
      hostIds: podcast?.hosts ?? [],
      adReads: [],
    };
    let t0 = performance.now();
    const detected = detectMentions(transcript, facts, gazetteer, 0);
    c.mentionSeconds += (performance.now() - t0) / 1000;
    t0 = performance.now();
    const speakers = identifySpeakers(
      transcript,
      { episode, podcast, adReads: [] },
      { gazetteer, entity: (id) => entities.get(id), identifiedAt: 0 },
    );
    c.speakerSeconds += (performance.now() - t0) / 1000;

    scoreMentions(sampled.get(episode.id) ?? [], detected, m, isAmbiguous, nameOf);
    const label = speakerLabels.get(episode.id);
    if (label) scoreSpeakers(label, speakers, s, nameOf);

    // Whole corpus: the figures the issue reported, without hand labels.
    const hostId = podcast?.hosts[0];
    const credited = new Set<string>(hostId ? [hostId] : []);
    const guests: string[] = [];
    for (const p of episode.people) {
      const id = [...entities.values()].find((e) => e.name === p.name)?.id;
      if (!id) continue;
      credited.add(id);
      if (p.role === 'guest') guests.push(id);
    }
    const hostLabel = speakers.speakers.find((x) => hostId && x.label === nameOf(hostId));
    if (hostLabel?.person_id === hostId) c.hostLabelIsHost++;
    if (guests.length > 0) {
      c.episodesWithGuests++;
      if (guests.every((g) => speakers.speakers.some((x) => x.person_id === g))) c.allGuestsMatched++;
    }
    for (const x of speakers.speakers) {
      if (x.person_id && !credited.has(x.person_id)) {
        c.uncredited++;
        if (c.uncreditedExamples.length < 30)
          c.uncreditedExamples.push(`${episode.id} ${x.label} → ${nameOf(x.person_id)}`);
      }
    }
  }
  return { mentions: m, speakers: s, corpus: c };
}

function scoreMentions(
  labels: MentionLabel[],
  detected: MentionsDetected,
  m: RealSpeechEvaluation['mentions'],
  ambiguous: (id: string) => boolean,
  nameOf: (id: string) => string,
): void {
  for (const label of labels) {
    const found = detected.mentions.filter((x) => x.line_number === label.line);
    const got = new Set(found.map((x) => x.entity_id));
    const want = new Set(label.entities);
    const listed = new Set(
      label.mentions.filter((x) => x.occurrences.some((o) => o.form !== 'unlisted')).map((x) => x.entity_id),
    );
    const where = `${label.episode_id}:${label.line}`;
    for (const id of new Set([...got, ...want])) {
      const hit = got.has(id) && want.has(id);
      const add = (k: Counts) => {
        if (hit) k.tp++;
        else if (got.has(id)) k.fp++;
        else k.fn++;
      };
      add(m.overall);
      if (ambiguous(id)) add(m.ambiguous);
      if (!want.has(id) || listed.has(id)) add(m.listed);
      if (!hit) {
        const surface = got.has(id)
          ? found
              .filter((x) => x.entity_id === id)
              .map((x) => x.variant)
              .join('|')
          : label.mentions
              .find((x) => x.entity_id === id)
              ?.occurrences.map((o) => `${o.surface}/${o.form}`)
              .join('|');
        m.errors.push(`${got.has(id) ? 'FP' : 'FN'} ${where} ${nameOf(id)} «${surface}»`);
      }
    }
    // An occurrence judged not to be the entity it could be is taken when a mention covers it
    // that the labels do not give to that very span (IVM for "IBM" is right, IBM is not).
    const labelled = (id: string, start: number, end: number) =>
      label.mentions.some(
        (x) => x.entity_id === id && x.occurrences.some((o) => o.char_start < end && o.char_end > start),
      );
    for (const n of label.not_entity) {
      m.notEntityOccurrences++;
      const taken = found.some(
        (x) =>
          x.char_start < n.char_end &&
          x.char_end > n.char_start &&
          !labelled(x.entity_id, x.char_start, x.char_end),
      );
      if (taken) {
        m.notEntityTaken++;
        m.errors.push(`TAKEN ${where} «${n.surface}» (${n.sense})`);
      }
    }
  }
}

function scoreSpeakers(
  label: SpeakerLabel,
  result: SpeakersIdentified,
  s: RealSpeechEvaluation['speakers'],
  nameOf: (id: string | null) => string,
): void {
  const byLabel = new Map(result.speakers.map((x) => [x.label, x]));
  const hostLabel = result.speakers.find((x) => x.person_id === label.credited_host);
  if (hostLabel && label.host_labels.includes(hostLabel.label)) s.hostIdentified++;
  else
    s.errors.push(
      `host ${label.episode_id}: given ${hostLabel?.label ?? 'no label'}, dominates ${label.host_labels.join('/')}`,
    );
  for (const g of label.credited_guests) {
    s.guests++;
    const own = label.guest_labels[g] ?? [];
    if (own.length > 0) s.guestsWithOwnLabel++;
    const got = result.speakers.find((x) => x.person_id === g);
    if (got && own.includes(got.label)) s.guestsIdentified++;
    else if (own.length > 0)
      s.errors.push(
        `guest ${label.episode_id} ${nameOf(g)}: given ${got?.label ?? 'no label'}, dominates ${own.join('/')}`,
      );
  }
  const spoke = new Set([...label.spoke, ...label.heard_in_recordings]);
  for (const truth of label.labels) {
    const got = byLabel.get(truth.label);
    if (!got?.person_id) continue;
    if (!spoke.has(got.person_id)) {
      s.neverSpoke++;
      s.errors.push(`never spoke ${label.episode_id} ${truth.label} → ${nameOf(got.person_id)}`);
    }
    if (truth.kind === 'person') {
      if (got.person_id !== truth.person_id) {
        s.wrong++;
        s.errors.push(
          `wrong ${label.episode_id} ${truth.label} → ${nameOf(got.person_id)}, is ${nameOf(truth.person_id)}`,
        );
      }
    } else {
      s.nonPersonNamed++;
      if (truth.kind === 'announcer' || !truth.also_heard.includes(got.person_id)) {
        s.wrong++;
        s.errors.push(`wrong ${label.episode_id} ${truth.label} (${truth.kind}) → ${nameOf(got.person_id)}`);
      }
    }
  }
}

const round = (v: number) => Math.round(v * 10_000) / 10_000;

export function realSpeechResults(r: RealSpeechEvaluation): BenchResult[] {
  const { mentions: m, speakers: s, corpus: c } = r;
  const bench = 'real-speech';
  return [
    {
      bench,
      metric: 'mention precision',
      value: round(precision(m.overall)),
      unit: 'ratio',
      target: { op: '>=', value: 0.95 },
      note: `${m.overall.tp} tp, ${m.overall.fp} fp over ${m.lines} labelled lines`,
    },
    {
      bench,
      metric: 'mention recall',
      value: round(recall(m.overall)),
      unit: 'ratio',
      target: { op: '>=', value: 0.95 },
      note: `${m.overall.fn} fn`,
    },
    {
      bench,
      metric: 'mention recall, catalog-known forms only',
      value: round(recall(m.listed)),
      unit: 'ratio',
      note: `${m.listed.fn} fn; pairs named only by misspellings the catalog does not list are left out`,
    },
    {
      bench,
      metric: 'mention precision, ambiguous names',
      value: round(precision(m.ambiguous)),
      unit: 'ratio',
      target: { op: '>=', value: 0.9 },
      note: `${m.ambiguous.tp} tp, ${m.ambiguous.fp} fp; ${m.notEntityTaken} of ${m.notEntityOccurrences} other-sense occurrences taken`,
    },
    {
      bench,
      metric: 'mention recall, ambiguous names',
      value: round(recall(m.ambiguous)),
      unit: 'ratio',
      target: { op: '>=', value: 0.9 },
      note: `${m.ambiguous.fn} fn`,
    },
    {
      bench,
      metric: 'host identified',
      value: round(ratio(s.hostIdentified, s.episodes)),
      unit: 'ratio',
      target: { op: '>=', value: 0.95 },
      note: `${s.hostIdentified} of ${s.episodes} labelled episodes`,
    },
    {
      bench,
      metric: 'credited guests identified',
      value: round(ratio(s.guestsIdentified, s.guests)),
      unit: 'ratio',
      target: { op: '>=', value: 0.9 },
      note: `${s.guestsIdentified} of ${s.guests} (${s.guestsWithOwnLabel} have a label of their own)`,
    },
    {
      bench,
      metric: 'assignments to people who never spoke',
      value: s.neverSpoke,
      unit: 'labels',
      target: { op: '<=', value: 0 },
    },
    {
      bench,
      metric: 'labels given to the wrong person',
      value: s.wrong,
      unit: 'labels',
      note: `${s.nonPersonNamed} announcer or mixed labels named`,
    },
    {
      bench,
      metric: 'whole corpus: host-named label is the host',
      value: c.hostLabelIsHost,
      unit: 'episodes',
      note: `of ${c.episodes}`,
    },
    {
      bench,
      metric: 'whole corpus: every credited guest assigned',
      value: c.allGuestsMatched,
      unit: 'episodes',
      note: `of ${c.episodesWithGuests}`,
    },
    {
      bench,
      metric: 'whole corpus: assignments to uncredited people',
      value: c.uncredited,
      unit: 'labels',
    },
    {
      bench,
      metric: 'detection throughput (real turns)',
      value: Math.round(c.lines / c.mentionSeconds),
      unit: 'lines/s',
      note: `${c.lines.toLocaleString()} turns, mean 218 words`,
    },
  ];
}

export const realSpeechBench: Bench = {
  name: 'real-speech',
  description:
    'mentions and speakers on a hand-labelled real podcast corpus (EARSHOT_REAL_SPEECH_DIR; skipped when unset)',
  async run(progress) {
    const dir = process.env.EARSHOT_REAL_SPEECH_DIR;
    if (!dir) {
      progress('EARSHOT_REAL_SPEECH_DIR is not set: skipped (see docs/understanding.md → Real speech)');
      return [];
    }
    return realSpeechResults(await evaluateRealSpeech(dir, progress));
  },
};

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? process.env.EARSHOT_REAL_SPEECH_DIR;
  if (!dir) {
    console.error(
      'usage: node --import tsx test/bench/real-speech.bench.ts <evaluation-set dir> [--details]',
    );
    process.exit(2);
  }
  const r = await evaluateRealSpeech(dir, (msg) => console.error(msg));
  if (process.argv.includes('--details')) {
    for (const e of r.mentions.errors) console.log(e);
    for (const e of r.speakers.errors) console.log(e);
    for (const e of r.corpus.uncreditedExamples) console.log(`uncredited ${e}`);
  }
  console.table(
    realSpeechResults(r).map((x) => ({
      metric: x.metric,
      value: x.value,
      unit: x.unit,
      target: x.target ? `${x.target.op} ${x.target.value}` : '',
      note: x.note ?? '',
    })),
  );
}
