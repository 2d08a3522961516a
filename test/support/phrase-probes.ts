import fs from 'node:fs';
import path from 'node:path';
import { analyze } from '../../projections/search/text-analysis.ts';
import { waitFor } from './wait-for.ts';

/** An exact phrase and every indexed line of a corpus that holds it. */
export interface PhraseProbe {
  phrase: string;
  /** `<episode id>:<line number>`, sorted. */
  lines: string[];
}

interface CorpusLine {
  id: string;
  words: string[];
}

function ndjson<T>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => (JSON.parse(l) as { data: T }).data);
}

/** Lines of a generated corpus directory that the search index holds (those inside a segment). */
function indexedLines(corpusDir: string): CorpusLine[] {
  const spans = new Map<string, { first_line: number; last_line: number }[]>();
  for (const s of ndjson<{ episode_id: string; segments: { first_line: number; last_line: number }[] }>(
    path.join(corpusDir, 'segments.ndjson'),
  )) {
    spans.set(s.episode_id, s.segments);
  }
  const out: CorpusLine[] = [];
  for (const t of ndjson<{ episode_id: string; lines: { number: number; text: string }[] }>(
    path.join(corpusDir, 'transcripts.ndjson'),
  )) {
    const segments = spans.get(t.episode_id) ?? [];
    for (const l of t.lines) {
      if (!segments.some((s) => l.number >= s.first_line && l.number <= s.last_line)) continue;
      out.push({ id: `${t.episode_id}:${l.number}`, words: analyze(l.text) });
    }
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function holds(words: string[], phrase: string[]): boolean {
  for (let i = 0; i + phrase.length <= words.length; i++) {
    if (phrase.every((w, k) => words[i + k] === w)) return true;
  }
  return false;
}

/**
 * Phrase probes drawn deterministically from a generated corpus: each of `extra`, then `count`
 * phrases of `words` words from the middle of lines spread evenly over the corpus (a phrase held by
 * more than `maxLines` lines is passed over for the next line), each with every line holding it,
 * found with the analyser both engines index with.
 */
export function phraseProbes(
  corpusDir: string,
  options: { count: number; words?: number; extra?: string[]; maxLines?: number },
): PhraseProbe[] {
  const lines = indexedLines(corpusDir);
  const size = options.words ?? 3;
  const maxLines = options.maxLines ?? 40;
  const probe = (phrase: string[]): PhraseProbe => ({
    phrase: phrase.join(' '),
    lines: lines.filter((l) => holds(l.words, phrase)).map((l) => l.id),
  });
  const out = (options.extra ?? []).map((p) => ({ ...probe(analyze(p)), phrase: p }));
  const seen = new Set(out.map((p) => analyze(p.phrase).join(' ')));
  const wanted = out.length + options.count;
  // Lines 0, step, 2·step, …, then 1, step + 1, …: evenly spread first, every line in the end.
  const step = Math.max(1, Math.floor(lines.length / options.count));
  const order: CorpusLine[] = [];
  for (let r = 0; r < step; r++) for (let i = r; i < lines.length; i += step) order.push(lines[i]!);
  for (const line of order) {
    if (out.length >= wanted) break;
    if (line.words.length < size) continue;
    const from = Math.floor((line.words.length - size) / 2);
    const phrase = line.words.slice(from, from + size);
    if (seen.has(phrase.join(' '))) continue;
    const p = probe(phrase);
    if (p.lines.length > maxLines) continue;
    seen.add(p.phrase);
    out.push(p);
  }
  return out;
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read field by field
type Json = any;

/**
 * Asks dialogue search for each probe's phrase in quotes (every page) and returns the lines it did
 * not mark as matching, as `"<phrase>" <episode id>:<line number>`.
 */
export async function missedPhraseLines(
  get: (pathAndQuery: string) => Promise<{ status: number; body: Json }>,
  probes: PhraseProbe[],
): Promise<string[]> {
  const missed: string[] = [];
  for (const probe of probes) {
    const found = new Set<string>();
    let cursor: string | undefined;
    do {
      const q = new URLSearchParams({ keyword_search: `"${probe.phrase}"`, limit: '100' });
      if (cursor) q.set('cursor', cursor);
      const res = await get(`/v1/podcasts/episodes/search?${q}`);
      if (res.status !== 200) throw new Error(`"${probe.phrase}": ${res.status} ${JSON.stringify(res.body)}`);
      for (const result of res.body.data) {
        for (const w of result.windows) {
          for (const l of w.lines) if (l.is_match) found.add(`${result.episode.id}:${l.number}`);
        }
      }
      cursor = res.body.cursor;
    } while (cursor);
    for (const id of probe.lines) if (!found.has(id)) missed.push(`"${probe.phrase}" ${id}`);
  }
  return missed;
}

/**
 * The demo corpus's probes (`count` phrases drawn from its lines, and "back to The", a phrase in
 * many of them) asked of a running service: the lines each phrase missed, and how long it took.
 */
export async function demoPhraseCheck(
  url: string,
  apiKey: string,
  dataDir: string,
  count = 30,
): Promise<{ probes: PhraseProbe[]; missed: string[]; ms: number }> {
  const probes = phraseProbes(path.join(dataDir, 'demo-corpus'), { count, extra: ['back to The'] });
  const started = Date.now();
  const missed = await missedPhraseLines(async (p) => {
    const res = await fetch(`${url}${p}`, { headers: { 'x-api-key': apiKey } });
    return { status: res.status, body: await res.json() };
  }, probes);
  return { probes, missed, ms: Date.now() - started };
}

interface SearchInfo {
  semantic_state: string;
  vector_backlog?: { passages: number; clips: number; embedded: number; total: number };
}

/**
 * Waits until the service's vector filler has written some of the backlog it had at the first
 * look (or finished it), so that what follows runs while vectors are being written. Returns
 * `/readyz`'s search info at that moment.
 */
export async function vectorsUnderWay(url: string, timeoutMs = 180_000): Promise<SearchInfo> {
  const look = async () =>
    ((await (await fetch(`${url}/readyz`)).json()) as { info: { search: SearchInfo } }).info.search;
  const first = await look();
  const total = (b?: SearchInfo['vector_backlog']) => (b ? b.passages + b.clips : Number.POSITIVE_INFINITY);
  let now = first;
  await waitFor(
    async () => {
      now = await look();
      return now.semantic_state === 'ready' || total(now.vector_backlog) < total(first.vector_backlog);
    },
    { timeoutMs, stepMs: 250, what: 'the vector filler writing' },
  );
  return now;
}
