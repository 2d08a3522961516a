// Converts the seenunseen-whisper corpus (corpus/: metadata.json, transcripts_chat, transcripts_vtt at
// commit 3e2af32f8c2a50d6d3e26683e32ca69f9aca5082) into Earshot ingest records in out/:
// publishers, podcasts, episodes, transcripts (NDJSON, {"type","data"} per line), and, from the
// hand-written catalog committed beside this file, entities, entity-variants.json and the credits
// (episode `people`, the podcast's `hosts`).
//
// Run:  node --import tsx test/bench/real-speech/convert-seenunseen.ts <evaluation dir>   (the dir holding corpus/)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

if (!process.argv[2]) {
  console.error('usage: node --import tsx test/bench/real-speech/convert-seenunseen.ts <evaluation dir>');
  process.exit(2);
}
const dir = path.resolve(process.argv[2]);
const corpus = path.join(dir, 'corpus');
const outDir = path.join(dir, 'out');
fs.mkdirSync(outDir, { recursive: true });

/** The corpus commit's date (git log -1 3e2af32…): 2023-01-09 23:09:54 +0530. */
const COMMIT_MS = Date.parse('2023-01-09T23:09:54+05:30');
const PUBLISHER_ID = 'pub_ivm_podcasts';
const PODCAST_ID = 'pod_seen_and_unseen';
/** Speaking rate used to estimate the end of an episode's last line when there is no VTT. */
const WORDS_PER_SECOND = 2.5;
/** Share of Devanagari letters above which an episode counts as Hindi. */
const HINDI_SHARE = 0.5;

interface Meta {
  epnum: number;
  title: string;
  url: string;
  description: string;
  date_published: string;
}
interface Chat {
  speaker: string;
  time: string;
  message: string;
}

const seconds = (t: string): number => {
  const [h, m, s] = t.split(':');
  return Number(h) * 3600 + Number(m) * 60 + Number(s);
};
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const episodeId = (n: number) => `seenunseen_e${String(n).padStart(3, '0')}`;

/**
 * The hand-written catalog (docs/understanding.md → Real speech): entity records, the misspellings
 * read off the episode introductions, and who each episode credits. Ours, not the corpus's.
 */
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const CATALOG = {
  entities: here('./catalog.ndjson'),
  variants: here('./entity-variants.json'),
  credits: here('./credits.ndjson'),
};
const HOST_ID = 'p-amit-varma';
const readNdjson = <T>(file: string): T[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
const entityRecords = readNdjson<{ type: 'entity'; data: { id: string; name: string } }>(CATALOG.entities);
const entityNames = new Set(entityRecords.map((r) => r.data.name));
const credits = new Map(
  readNdjson<{ episode_id: string; people: { name: string; role: string }[] }>(CATALOG.credits).map((c) => [
    c.episode_id,
    c.people,
  ]),
);
for (const [id, people] of credits)
  for (const p of people)
    if (!entityNames.has(p.name)) throw new Error(`credits of ${id}: ${p.name} is no entity of the catalog`);

function devanagariShare(texts: string[]): number {
  let dev = 0;
  let letters = 0;
  for (const t of texts)
    for (const ch of t) {
      if (!/\p{L}/u.test(ch)) continue;
      letters++;
      if (/\p{Script=Devanagari}/u.test(ch)) dev++;
    }
  return letters === 0 ? 0 : dev / letters;
}

/** End of the last cue of a VTT file, or undefined. */
function lastCueEnd(file: string): number | undefined {
  if (!fs.existsSync(file)) return undefined;
  const cues = [
    ...fs.readFileSync(file, 'utf8').matchAll(/^(\d+:\d\d:\d\d\.\d+) --> (\d+:\d\d:\d\d\.\d+)/gm),
  ];
  const last = cues.at(-1);
  return last ? seconds(last[2]!) : undefined;
}

const metadata = JSON.parse(fs.readFileSync(path.join(corpus, 'metadata.json'), 'utf8')) as Meta[];
const metaByNum = new Map(metadata.map((m) => [m.epnum, m]));
const files = fs
  .readdirSync(path.join(corpus, 'transcripts_chat'))
  .filter((f) => /^E\d+\.json$/.test(f))
  .map((f) => ({ file: f, num: Number(f.slice(1, -5)) }))
  .sort((a, b) => a.num - b.num);

const write = (name: string, records: unknown[]) =>
  fs.writeFileSync(path.join(outDir, name), records.map((r) => JSON.stringify(r)).join('\n') + '\n');

write('publishers.ndjson', [
  {
    type: 'publisher',
    data: {
      id: PUBLISHER_ID,
      slug: 'ivm-podcasts',
      name: 'IVM Podcasts',
      description: null,
      website_url: 'https://ivmpodcasts.com',
      image_url: null,
      updated_at: COMMIT_MS,
    },
  },
]);
write('podcasts.ndjson', [
  {
    type: 'podcast',
    data: {
      id: PODCAST_ID,
      slug: 'the-seen-and-the-unseen',
      directory_id: null,
      title: 'The Seen and the Unseen',
      description:
        'A weekly podcast on economics, politics and behavioural science hosted by Amit Varma (transcripts: seenunseen-whisper, whisper large-v2 and pyannote).',
      publisher_id: PUBLISHER_ID,
      language: 'en',
      categories: [],
      hosts: [HOST_ID],
      image_url: null,
      feed_url: null,
      website_url: 'https://seenunseen.in',
      content_advisory_rating: null,
      popularity: null,
      updated_at: COMMIT_MS,
    },
  },
]);

const episodes: unknown[] = [];
const transcripts: unknown[] = [];
const report = {
  entities: entityRecords.length,
  episodes: 0,
  lines: 0,
  hindi: [] as string[],
  noMetadata: [] as string[],
  noVtt: [] as string[],
  noCredits: [] as string[],
  outOfOrderStarts: [] as string[],
};
for (const { file, num } of files) {
  const id = episodeId(num);
  const chat = JSON.parse(fs.readFileSync(path.join(corpus, 'transcripts_chat', file), 'utf8')) as Chat[];
  const starts = chat.map((c) => seconds(c.time));
  const vttEnd = lastCueEnd(path.join(corpus, 'transcripts_vtt', `E${String(num).padStart(2, '0')}.mp3.vtt`));
  if (vttEnd === undefined) report.noVtt.push(id);
  const lastWords = chat.at(-1)!.message.split(/\s+/).filter(Boolean).length;
  const lastStart = starts.at(-1)!;
  const episodeEnd = Math.max(vttEnd ?? lastStart + lastWords / WORDS_PER_SECOND, lastStart);
  const lines = chat.map((c, i) => {
    const start = starts[i]!;
    // A line ends where the next starts; a few whisper timestamps go backwards (E104, E124):
    // such a line ends where it starts rather than before.
    const next = i + 1 < chat.length ? starts[i + 1]! : episodeEnd;
    if (next < start) report.outOfOrderStarts.push(`${id}:${i + 1}`);
    return {
      number: i + 1,
      speaker: c.speaker,
      role: null,
      start_seconds: round3(start),
      end_seconds: round3(Math.max(start, next)),
      text: c.message,
    };
  });
  const language = devanagariShare(chat.map((c) => c.message)) > HINDI_SHARE ? 'hi' : 'en';
  if (language === 'hi') report.hindi.push(id);

  if (!credits.has(id)) report.noCredits.push(id);
  const meta = metaByNum.get(num);
  if (!meta) report.noMetadata.push(id);
  // Episode 311 is in transcripts_chat but not in metadata.json: title from its introduction
  // ("My guest today is Shanta Gokhale"), published date unknown — the corpus commit's date.
  const title = meta?.title ?? `Episode ${num}: Shanta Gokhale`;
  const slug = meta
    ? (meta.url.replace(/\/+$/, '').split('/').at(-1) ?? `episode-${num}`)
    : `episode-${num}-shanta-gokhale`;
  const published = meta ? Date.parse(`${meta.date_published} 00:00:00 UTC`) : COMMIT_MS;
  if (Number.isNaN(published)) throw new Error(`${id}: unreadable date ${meta?.date_published}`);
  episodes.push({
    type: 'episode',
    data: {
      id,
      slug,
      podcast_id: PODCAST_ID,
      guid: meta?.url ?? null,
      title,
      description: meta?.description ?? null,
      published_at: published,
      duration_seconds: round3(episodeEnd),
      audio_url: null,
      image_url: null,
      language,
      people: credits.get(id) ?? [{ name: 'Amit Varma', role: 'host' }],
      source: 'ingest',
    },
  });
  transcripts.push({
    type: 'transcript',
    data: { episode_id: id, language, lines, transcribed_at: COMMIT_MS },
  });
  report.episodes++;
  report.lines += lines.length;
}
write('entities.ndjson', entityRecords);
fs.copyFileSync(CATALOG.variants, path.join(outDir, 'entity-variants.json'));
write('episodes.ndjson', episodes);
write('transcripts.ndjson', transcripts);
console.log(JSON.stringify(report, null, 2));
