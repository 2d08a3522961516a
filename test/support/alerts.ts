import { newId } from '../../projections/state/accounts.ts';
import type { Queryable } from '../../projections/state/state-store.ts';
import type {
  Clips,
  EpisodePublished,
  MentionsDetected,
  SpeakersIdentified,
  Transcript,
} from '../../schemas/generated/index.ts';

/** A small catalog for alert tests: three entities, two podcasts (one top-charting), episodes. */
export const CATALOG = {
  apple: { id: 'ent_c_apple', slug: 'apple', kind: 'COMPANY', name: 'Apple Inc.', domain: 'apple.com' },
  dana: { id: 'ent_p_dana', slug: 'dana-whitfield', kind: 'PERSON', name: 'Dana Whitfield' },
  marcus: { id: 'ent_p_marcus', slug: 'marcus-oyelaran', kind: 'PERSON', name: 'Marcus Oyelaran' },
  fed: { id: 'ent_k_fed', slug: 'federal-reserve', kind: 'KNOWLEDGE_GRAPH_ENTITY', name: 'Federal Reserve' },
  popular: {
    id: 'pod_popular',
    slug: 'the-margin-call',
    title: 'The Margin Call',
    popularity: 97.4,
    language: 'en-US',
  },
  small: { id: 'pod_small', slug: 'garage-talk', title: 'Garage Talk', popularity: null, language: 'fr-FR' },
} as const;

export async function seedCatalog(db: Queryable): Promise<void> {
  for (const e of [CATALOG.apple, CATALOG.dana, CATALOG.marcus, CATALOG.fed]) {
    await db.query(
      `INSERT INTO catalog_entities (id, slug, kind, name, category_slug, category_name, company_domain, updated_at)
       VALUES ($1, $2, $3, $4, 'business', 'Business', $5, now()) ON CONFLICT (id) DO NOTHING`,
      [e.id, e.slug, e.kind, e.name, 'domain' in e ? e.domain : null],
    );
  }
  for (const p of [CATALOG.popular, CATALOG.small]) {
    await db.query(
      `INSERT INTO catalog_podcasts (id, slug, title, language, popularity, image_url, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'https://img.example/p.jpg', now()) ON CONFLICT (id) DO NOTHING`,
      [p.id, p.slug, p.title, p.language, p.popularity],
    );
  }
}

/** Adds a verified notification email to an organization. */
export async function verifiedEmail(db: Queryable, organizationId: string, email: string): Promise<void> {
  await db.query(
    `INSERT INTO notification_emails (id, organization_id, email, verified_at) VALUES ($1, $2, $3, now())`,
    [newId('ne'), organizationId, email],
  );
}

/** A transcript of `texts`, one line every 6 s, two speakers taking turns (`first` speaks first). */
export function transcriptOf(
  episodeId: string,
  texts: string[],
  options: { language?: string; at?: number; first?: 'SPEAKER_1' | 'SPEAKER_2' } = {},
): Transcript {
  const [a, b] = options.first === 'SPEAKER_2' ? ['SPEAKER_2', 'SPEAKER_1'] : ['SPEAKER_1', 'SPEAKER_2'];
  return {
    episode_id: episodeId,
    language: options.language ?? 'en-US',
    lines: texts.map((text, i) => ({
      number: i + 1,
      speaker: i % 2 === 0 ? a : b,
      role: null,
      start_seconds: i * 6,
      end_seconds: i * 6 + 6,
      text,
      words: null,
    })),
    transcribed_at: options.at ?? Date.now(),
  };
}

/** The events of one episode, in the shape the ingest and detectors produce them. */
export function episodeEvents(input: {
  id: string;
  podcastId: string;
  publishedAt: number;
  language?: string;
  /** entity ids mentioned on line 3 (and 5 for on-target) */
  mentioned?: { entityId: string; relevance?: 'on_target' | 'incidental'; lines?: number[] }[];
  /** person speaking as SPEAKER_2 in this role */
  guest?: { personId: string; role?: string };
  hostId?: string;
  at?: number;
}) {
  const language = input.language ?? 'en-US';
  const at = input.at ?? Date.now();
  const texts = [
    'Welcome back to the show.',
    'Joining me today is our guest.',
    'Thanks. Apple shares barely moved after the Fed decision.',
    'Why do you think that is?',
    'Markets had priced it in. Apple is a special case.',
    'Fascinating. Let us take a short break.',
    'And we are back.',
    'Thanks for listening.',
  ];
  const transcript = transcriptOf(input.id, texts, { language, at, first: 'SPEAKER_2' });
  const episode: EpisodePublished = {
    id: input.id,
    slug: `${input.id}-slug`,
    podcast_id: input.podcastId,
    guid: null,
    title: `Episode ${input.id}`,
    description: null,
    published_at: input.publishedAt,
    duration_seconds: 48,
    audio_url: `https://cdn.example/${input.id}.mp3`,
    image_url: null,
    language,
    people: [],
    source: 'ingest',
  };
  const mentionedLines = (m: { lines?: number[] }) => m.lines ?? [3];
  const mentions: MentionsDetected = {
    episode_id: input.id,
    podcast_id: input.podcastId,
    published_at: input.publishedAt,
    language,
    detector_version: 'test',
    mentions: (input.mentioned ?? []).flatMap((m) =>
      mentionedLines(m).map((line) => ({
        entity_id: m.entityId,
        line_number: line,
        speaker: line % 2 === 1 ? 'SPEAKER_2' : 'SPEAKER_1',
        start_seconds: (line - 1) * 6,
        end_seconds: (line - 1) * 6 + 6,
        variant: 'Apple',
        char_start: 0,
        char_end: 5,
        in_ad: false,
        matched: null,
        match: null,
      })),
    ),
    entities: (input.mentioned ?? []).map((m) => ({
      entity_id: m.entityId,
      relevance: m.relevance ?? 'incidental',
      mention_count: mentionedLines(m).length,
      variants: ['Apple'],
    })),
    detected_at: at,
  };
  const speakers: SpeakersIdentified = {
    episode_id: input.id,
    podcast_id: input.podcastId,
    published_at: input.publishedAt,
    language,
    speakers: [
      {
        label: 'SPEAKER_1',
        person_id: input.hostId ?? null,
        name: input.hostId ? 'Dana Whitfield' : null,
        role: 'HOST',
        line_count: 4,
        capacity: null,
        in_field: null,
        confidence: 1,
      },
      {
        label: 'SPEAKER_2',
        person_id: input.guest?.personId ?? null,
        name: input.guest ? 'Marcus Oyelaran' : null,
        role: (input.guest?.role ?? 'GUEST') as SpeakersIdentified['speakers'][number]['role'],
        line_count: 4,
        capacity: null,
        in_field: null,
        confidence: 0.9,
      },
    ],
    identified_at: at,
  };
  const clips: Clips = {
    episode_id: input.id,
    clips: [
      {
        id: `clip_${input.id}_1`,
        type: 'INSIGHTFUL',
        title: 'Why Apple barely moved',
        description: null,
        intro_statement: null,
        engagement_score: 80,
        start_seconds: 24,
        end_seconds: 30,
        audio_url: `https://cdn.example/${input.id}.mp3#t=24,30`,
        segment_id: null,
        speaker: 'SPEAKER_2',
      },
    ],
  };
  return { transcript, episode, mentions, speakers, clips };
}
