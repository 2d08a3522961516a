import type { Catalog, GenPerson, GenPodcast } from './catalog-types.ts';
import { speechTokens } from './episode-script.ts';
import type { GeneratedEpisode, PlantedMention, SpeakerTruth } from './episode-truth.ts';
import { hash32, type Rng } from './rng.ts';

/**
 * What real diarized speech-to-text does to a conversation, applied to a generated episode after
 * the fact (its ground truth follows every change):
 *
 * - generic labels: the host's label is the host's name, the guests' `Guest` / `Guest 1`…, the
 *   pre-recorded ad voice `Unknown`;
 * - public figures named right after a cue: "Thanks for having me, Dana. Marguerite Okafor said
 *   as much last week." — a name that must not become a speaker;
 * - merged turns: a stretch of a discussion (up to 150 lines, several hand-offs inside) comes out
 *   as one turn under the label of whoever speaks most in it;
 * - lower-case transcripts: a whole episode without capitals;
 * - consistent misspellings: some people's names are always written one wrong way (the catalog
 *   lists it among the entity's `variants`), others now and then another way it does not list,
 *   that sounds the same (for phonetic matching of multi-word names).
 *
 * A planted tail (realistic turn lengths) stays in the ground truth only while its line still
 * ends with it: a cue's appended figure or a merge that carries the turn on drops it.
 */
export const NOISE_RATES = {
  genericLabels: 0.5,
  figureAfterCue: 0.4,
  mergedTurns: 0.15,
  lowercase: 0.05,
  /** Episodes where a person with a listed misspelling is written that way. */
  listedMisspelling: 0.6,
  /** Episodes where a person's full name is written another way that sounds the same. */
  unlistedMisspelling: 0.1,
};
const MERGE_MAX = 150;

/** Share of people the catalog knows a misspelling for. */
const LISTED_SHARE = 0.2;

/**
 * A misspelling that sounds like the name (the phonetic key stays the same): v/w, ph/f, a doubled
 * consonant, ee/i, s/z, k/c, th/t. Deterministic; null when no rule applies.
 */
export function soundAlike(word: string, salt: number): string | null {
  const rules: [RegExp, string][] = [
    [/w/, 'v'],
    [/v/, 'w'],
    [/ph/, 'f'],
    [/([bdfgklmnprt])\1/, '$1'],
    [/ee/, 'i'],
    [/k(?!h)/, 'c'],
    [/s(?!h)/, 'z'],
    [/th/, 't'],
    [/([aeiou])([lmnrt])([aeiou])/, '$1$2$2$3'],
  ];
  for (let i = 0; i < rules.length; i++) {
    const [re, to] = rules[(i + salt) % rules.length]!;
    // Keep the first letter: transcribers hear that right.
    const head = word[0]!;
    const rest = word.slice(1).replace(re, to);
    if (rest !== word.slice(1)) return head + rest;
  }
  return null;
}

/** A person's name written wrong but sounding alike, the surname changed. */
export function misspelledName(p: GenPerson, salt: number): string | null {
  const name = p.entity.name;
  const at = name.lastIndexOf(p.last);
  if (at < 0) return null;
  const wrong = soundAlike(p.last, salt);
  return wrong ? `${name.slice(0, at)}${wrong}${name.slice(at + p.last.length)}` : null;
}

/** Gives a share of the catalog's people a known misspelling (`Entity.variants`). */
export function addKnownVariants(catalog: Catalog): void {
  for (const p of catalog.persons) {
    if ((hash32(`variant/${p.entity.id}`) % 1000) / 1000 >= LISTED_SHARE) continue;
    const v = misspelledName(p, 0);
    if (v && v !== p.entity.name) p.entity.variants = [v];
  }
}

interface Line {
  number: number;
  speaker: string;
  text: string;
}

export function addSpeechNoise(ep: GeneratedEpisode, show: GenPodcast, catalog: Catalog, rng: Rng): void {
  if (rng.chance(NOISE_RATES.figureAfterCue)) figureAfterCue(ep, show, catalog, rng);
  misspell(ep, catalog, rng);
  if (rng.chance(NOISE_RATES.mergedTurns)) mergeTurns(ep, rng);
  if (rng.chance(NOISE_RATES.lowercase)) lowercase(ep);
  if (rng.chance(NOISE_RATES.genericLabels)) genericLabels(ep, show);
  recount(ep);
  keepTails(ep);
}

/** Planted tails whose line still ends with them, with the line's length after the changes. */
function keepTails(ep: GeneratedEpisode): void {
  const kept = ep.tails.filter((t) => ep.transcript.lines[t.line_number - 1]?.text.endsWith(t.text));
  for (const t of kept) t.tokens = speechTokens(ep.transcript.lines[t.line_number - 1]!.text);
  ep.tails.splice(0, ep.tails.length, ...kept);
}

/** Replaces text [start, end) of a line, moving the planted mentions after it. */
function edit(ep: GeneratedEpisode, line: Line, start: number, end: number, text: string): void {
  const shift = text.length - (end - start);
  line.text = line.text.slice(0, start) + text + line.text.slice(end);
  for (const m of ep.mentions) {
    if (m.line_number !== line.number || m.char_start < end) continue;
    m.char_start += shift;
    m.char_end += shift;
  }
}

function plant(ep: GeneratedEpisode, line: Line, start: number, text: string, entityId: string): void {
  ep.mentions.push({
    episode_id: ep.episode.id,
    line_number: line.number,
    entity_id: entityId,
    variant: text,
    char_start: start,
    char_end: start + text.length,
    sense: 'entity',
    in_ad: false,
    ambiguous: false,
  });
}

/** "Thanks for having me, Dana. Marguerite Okafor said as much last week." */
function figureAfterCue(ep: GeneratedEpisode, show: GenPodcast, catalog: Catalog, rng: Rng): void {
  const inEpisode = new Set(ep.speakers.map((s) => s.person_id));
  const figures = catalog.publicFigures.filter((p) => p.lang === show.lang && !inEpisode.has(p.entity.id));
  if (figures.length === 0) return;
  const cue = /^(?:thanks|thank you|merci|danke|gracias|joining|my guest|let['’]s go to|with me)/i;
  const tails: Record<string, string[]> = {
    en: [
      ' {f} said as much last week.',
      ' {f} would not agree, of course.',
      ' As {f} put it, nobody saw this coming.',
    ],
    fr: [' {f} l’a dit la semaine dernière.'],
    de: [' {f} hat das letzte Woche auch gesagt.'],
    es: [' {f} lo dijo la semana pasada.'],
  };
  for (const line of ep.transcript.lines) {
    if (!cue.test(line.text) || !rng.chance(0.7)) continue;
    const f = rng.pick(figures);
    const tail = rng.pick(tails[show.lang] ?? tails.en!);
    const at = tail.indexOf('{f}');
    const start = line.text.length + at;
    line.text += tail.replace('{f}', f.entity.name);
    plant(ep, line, start, f.entity.name, f.entity.id);
    countMention(ep, f.entity.id);
  }
}

function countMention(ep: GeneratedEpisode, entityId: string): void {
  const e = ep.entities.find((x) => x.entity_id === entityId);
  if (e) e.mention_count++;
  else
    ep.entities.push({
      entity_id: entityId,
      relevance: 'incidental',
      mention_count: 1,
      non_ad_lines: 1,
      pinned: false,
    });
}

/** Misspells people's full names: the catalog's known variant, or now and then a sound-alike. */
function misspell(ep: GeneratedEpisode, catalog: Catalog, rng: Rng): void {
  const people = new Map(catalog.persons.map((p) => [p.entity.id, p]));
  const chosen = new Map<string, string>();
  for (const m of ep.mentions) {
    if (m.sense !== 'entity' || chosen.has(m.entity_id)) continue;
    const p = people.get(m.entity_id);
    if (!p || m.variant !== p.entity.name) continue;
    const listed = p.entity.variants[0];
    if (listed && rng.chance(NOISE_RATES.listedMisspelling)) chosen.set(p.entity.id, listed);
    else if (!listed && p.lang === 'en' && rng.chance(NOISE_RATES.unlistedMisspelling)) {
      const v = misspelledName(p, 1 + (hash32(ep.episode.id) % 7));
      if (v && v !== p.entity.name && !p.entity.variants.includes(v)) chosen.set(p.entity.id, v);
    }
  }
  if (chosen.size === 0) return;
  const byLine = new Map(ep.transcript.lines.map((l) => [l.number, l]));
  // Right to left within a line, so earlier offsets stay put.
  const targets = ep.mentions
    .filter((m) => chosen.has(m.entity_id) && m.sense === 'entity' && !m.in_ad)
    .sort((a, b) => a.line_number - b.line_number || b.char_start - a.char_start);
  for (const m of targets) {
    const line = byLine.get(m.line_number)!;
    if (line.text.slice(m.char_start, m.char_end) !== m.variant) continue;
    const wrong = chosen.get(m.entity_id)!;
    const { char_start: start, char_end: end } = m;
    edit(ep, line, start, end, wrong);
    m.char_start = start;
    m.char_end = start + wrong.length;
    m.variant = wrong;
  }
}

/** One stretch of a discussion comes out as a single turn, labelled by whoever speaks most in it. */
function mergeTurns(ep: GeneratedEpisode, rng: Rng): void {
  const lines = ep.transcript.lines;
  const adLines = new Set<number>();
  for (const a of ep.adReads.ad_reads)
    if (a.first_line !== null && a.last_line !== null)
      for (let n = a.first_line; n <= a.last_line; n++) adLines.add(n);
  const segs = ep.segments.segments.filter(
    (s) =>
      (s.type === 'TOPIC_DISCUSSION' || s.type === 'INTERVIEW') &&
      s.first_line !== null &&
      s.last_line !== null &&
      s.last_line - s.first_line >= 5,
  );
  if (segs.length === 0) return;
  const seg = rng.pick(segs);
  const from = seg.first_line! + rng.int(0, 2);
  const to = Math.min(seg.last_line!, from + rng.int(5, MERGE_MAX));
  for (let n = from; n <= to; n++)
    if (adLines.has(n) || ep.mentions.some((m) => m.line_number === n && m.in_ad)) return;
  const run = lines.slice(from - 1, to);
  const words = new Map<string, number>();
  for (const l of run) words.set(l.speaker, (words.get(l.speaker) ?? 0) + l.text.split(/\s+/).length);
  const label = [...words].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
  // Offsets of each line's text inside the merged one.
  const offset = new Map<number, number>();
  let text = '';
  for (const l of run) {
    if (text.length > 0) text += ' ';
    offset.set(l.number, text.length);
    text += l.text;
  }
  const merged = {
    ...run[0]!,
    speaker: label,
    text,
    end_seconds: run.at(-1)!.end_seconds,
    words: run.every((l) => l.words) ? run.flatMap((l) => l.words!) : null,
  };
  const removed = to - from;
  const renumber = (n: number) => (n < from ? n : n <= to ? from : n - removed);
  for (const m of ep.mentions) {
    const at = offset.get(m.line_number);
    if (at !== undefined) {
      m.char_start += at;
      m.char_end += at;
    }
    m.line_number = renumber(m.line_number);
  }
  for (const t of ep.tails) t.line_number = renumber(t.line_number);
  const concepts = [...new Set(ep.lineConcepts.slice(from - 1, to).flat())];
  ep.lineConcepts.splice(from - 1, to - from + 1, concepts);
  lines.splice(from - 1, to - from + 1, merged);
  lines.forEach((l, i) => {
    l.number = i + 1;
  });
  for (const s of ep.segments.segments) {
    if (s.first_line !== null) s.first_line = renumber(s.first_line);
    if (s.last_line !== null) s.last_line = renumber(s.last_line);
  }
  for (const a of ep.adReads.ad_reads) {
    if (a.first_line !== null) a.first_line = renumber(a.first_line);
    if (a.last_line !== null) a.last_line = renumber(a.last_line);
  }
}

/** The whole transcript without capitals (kept only where lower-casing keeps every length). */
function lowercase(ep: GeneratedEpisode): void {
  const lines = ep.transcript.lines;
  if (lines.some((l) => l.text.toLowerCase().length !== l.text.length)) return;
  for (const l of lines) l.text = l.text.toLowerCase();
  for (const m of ep.mentions) m.variant = m.variant.toLowerCase();
  for (const t of ep.tails) t.text = t.text.toLowerCase();
}

/** The host's label is the host's name, guests are "Guest" / "Guest 1"…, the ad voice "Unknown". */
function genericLabels(ep: GeneratedEpisode, show: GenPodcast): void {
  const hosts = new Set(show.hosts.map((h) => h.entity.id));
  const rename = new Map<string, string>();
  const guests = ep.speakers.filter((s) => s.role === 'GUEST' || s.role === 'PANELIST');
  let n = 0;
  for (const s of ep.speakers) {
    if (s.person_id && hosts.has(s.person_id) && s.name) rename.set(s.label, s.name);
    else if (s.role === 'GUEST' || s.role === 'PANELIST')
      rename.set(s.label, guests.length === 1 ? 'Guest' : `Guest ${++n}`);
    else if (s.role === 'SOUNDBITE_SPEAKER' && !s.person_id) rename.set(s.label, 'Unknown');
  }
  for (const l of ep.transcript.lines) l.speaker = rename.get(l.speaker) ?? l.speaker;
  for (const s of ep.speakers) s.label = rename.get(s.label) ?? s.label;
  for (const c of ep.clips.clips) if (c.speaker) c.speaker = rename.get(c.speaker) ?? c.speaker;
}

/** Speakers' line counts and entities' lines after the changes. */
function recount(ep: GeneratedEpisode): void {
  const count = new Map<string, number>();
  for (const l of ep.transcript.lines) count.set(l.speaker, (count.get(l.speaker) ?? 0) + 1);
  const speakers: SpeakerTruth[] = [];
  for (const s of ep.speakers) {
    const c = count.get(s.label) ?? 0;
    if (c > 0) speakers.push({ ...s, line_count: c });
  }
  ep.speakers.splice(0, ep.speakers.length, ...speakers);
  const lines = new Map<string, Set<number>>();
  const mentions = new Map<string, number>();
  for (const m of ep.mentions as PlantedMention[]) {
    if (m.sense !== 'entity') continue;
    mentions.set(m.entity_id, (mentions.get(m.entity_id) ?? 0) + 1);
    if (m.in_ad) continue;
    const set = lines.get(m.entity_id) ?? new Set();
    set.add(m.line_number);
    lines.set(m.entity_id, set);
  }
  for (const e of ep.entities) {
    e.mention_count = mentions.get(e.entity_id) ?? 0;
    e.non_ad_lines = lines.get(e.entity_id)?.size ?? 0;
    e.relevance = e.pinned || e.non_ad_lines >= 3 ? 'on_target' : 'incidental';
  }
}
