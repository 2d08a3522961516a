import type {
  AdReads,
  Entity,
  EpisodePublished,
  MentionsDetected,
  Podcast,
  Publisher,
  RatingSnapshot,
  Segments,
  SpeakersIdentified,
} from '../../schemas/generated/index.ts';
import { TOPIC_IDS } from '../../schemas/occupations.ts';

/**
 * A synthetic but realistically shaped mention workload for the analytics benchmark: thousands
 * of podcasts of a few hundred publishers publishing at their own pace over a year, tens of
 * thousands of entities mentioned with a heavy-tailed (Zipf-like) popularity, each episode with
 * a few focus entities named on many lines, passing mentions, sponsor reads whose lines are
 * flagged as ads, topical segments (what the topic reads count) and monthly listener ratings per
 * podcast, platform and country (the ratings read). Deterministic for a seed.
 */
export interface SynthOptions {
  /** Mention lines to produce (approximately). */
  mentionRows: number;
  podcasts: number;
  publishers: number;
  entities: number;
  days: number;
  seed: number;
  now: number;
}

export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    /** Heavy-tailed index in [0, n): small indices are far more likely. */
    zipf: (n: number, s = 1.1) => Math.min(n - 1, Math.floor(n ** (next() ** s)) - 1),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!,
  };
}

const DAY = 86_400_000;
const LANGS = ['en-US', 'en-US', 'en-GB', 'en-US', 'fr-FR', 'de-DE', 'es-ES', 'en-AU'];
const CATEGORIES = ['technology', 'business', 'politics', 'sports', 'science', 'health', 'media', 'finance'];

export interface SynthCatalog {
  publishers: Publisher[];
  podcasts: Podcast[];
  entities: Entity[];
  companies: Entity[];
  /** Episodes per podcast over the period (the podcast's pace). */
  episodesPerPodcast: number[];
}

export function synthCatalog(o: SynthOptions): SynthCatalog {
  const r = rng(o.seed);
  const at = o.now - 30 * DAY;
  const publishers: Publisher[] = Array.from({ length: o.publishers }, (_, i) => ({
    id: `pub_b${i}`,
    slug: `bench-publisher-${i}`,
    name: `Bench Publisher ${i}`,
    description: null,
    website_url: null,
    image_url: null,
    updated_at: at,
  }));
  const podcasts: Podcast[] = Array.from({ length: o.podcasts }, (_, i) => ({
    id: `pod_b${i}`,
    slug: `bench-podcast-${i}`,
    directory_id: 9_000_000 + i,
    title: `Bench Podcast ${i}`,
    description: null,
    publisher_id: publishers[r.zipf(o.publishers, 0.9)]!.id,
    language: r.pick(LANGS),
    categories: [{ slug: r.pick(CATEGORIES), name: 'Category', parent_slug: null }],
    hosts: [],
    image_url: null,
    feed_url: null,
    website_url: null,
    content_advisory_rating: null,
    popularity: r.next() < 0.4 ? Math.round(r.next() * 1000) / 10 : null,
    updated_at: at,
  }));
  const entities: Entity[] = Array.from({ length: o.entities }, (_, i) => {
    const kind = i % 20 === 0 ? 'COMPANY' : i % 2 === 0 ? 'PERSON' : 'KNOWLEDGE_GRAPH_ENTITY';
    return {
      id: `ent_b${i}`,
      slug: `bench-entity-${i}`,
      kind,
      name: `Bench Entity ${i}`,
      description: null,
      wikipedia_url: null,
      image_url: null,
      category: { slug: CATEGORIES[i % CATEGORIES.length]!, name: 'Category' },
      aliases: [],
      nicknames: [],
      handles: [],
      context_terms: [],
      variants: [],
      company: kind === 'COMPANY' ? { domain: `bench-${i}.example`, ticker: null } : null,
      person: null,
      updated_at: at,
    } satisfies Entity;
  });
  const companies = entities.filter((e) => e.kind === 'COMPANY');
  // Episodes per podcast: a heavy-tailed pace (daily shows and monthly ones), scaled to the target.
  const pace = podcasts.map(() => 0.2 + r.next() ** 3 * 6);
  // About 30 distinct mention lines per episode.
  const episodesWanted = o.mentionRows / 30;
  const scale = episodesWanted / pace.reduce((a, b) => a + b, 0);
  return {
    publishers,
    podcasts,
    entities,
    companies,
    episodesPerPodcast: pace.map((p) => Math.max(1, Math.round(p * scale))),
  };
}

export interface SynthEpisode {
  episode: EpisodePublished;
  mentions: MentionsDetected;
  speakers: SpeakersIdentified;
  adReads: AdReads;
  segments: Segments;
}

const PLATFORMS = ['apple_podcasts', 'spotify'];
const COUNTRIES = ['US', 'GB', 'DE'];

/** Monthly rating snapshots of one podcast over the period, per platform and country it is rated in. */
export function synthRatings(o: SynthOptions, c: SynthCatalog, podcastIndex: number): RatingSnapshot[] {
  const r = rng(o.seed * 104_729 + podcastIndex);
  const podcast = c.podcasts[podcastIndex]!;
  const out: RatingSnapshot[] = [];
  const months = Math.max(1, Math.round(o.days / 30));
  for (const platform of PLATFORMS) {
    for (const country of COUNTRIES.slice(0, r.int(1, COUNTRIES.length))) {
      let average = 3 + r.next() * 2;
      let count = r.int(5, 500);
      for (let m = 0; m < months; m++) {
        average = Math.min(5, Math.max(1, average + (r.next() - 0.5) * 0.2));
        count += r.int(0, 40);
        out.push({
          id: `rt_${podcast.id}_${platform}_${country}_${m}`,
          podcast_id: podcast.id,
          platform,
          country,
          captured_at: o.now - (months - m) * 30 * DAY,
          average: Math.round(average * 100) / 100,
          count,
        });
      }
    }
  }
  return out;
}

/** The episodes of one podcast, evenly paced over the period with jitter. */
export function* synthEpisodes(
  o: SynthOptions,
  c: SynthCatalog,
  podcastIndex: number,
): Generator<SynthEpisode> {
  const r = rng(o.seed * 7919 + podcastIndex);
  const podcast = c.podcasts[podcastIndex]!;
  const n = c.episodesPerPodcast[podcastIndex]!;
  const span = o.days * DAY;
  for (let e = 0; e < n; e++) {
    const id = `ep_b${podcastIndex}_${e}`;
    const published = Math.round(o.now - span + ((e + r.next()) / n) * span - 3_600_000);
    const labels = ['SPEAKER_1', 'SPEAKER_2', 'SPEAKER_3'].slice(0, r.int(2, 3));
    const speakers: SpeakersIdentified['speakers'] = labels.map((label, i) => ({
      label,
      person_id: c.entities[2 * r.int(0, c.entities.length / 2 - 1)]!.id,
      name: null,
      role: i === 0 ? 'HOST' : r.next() < 0.6 ? 'GUEST' : r.next() < 0.5 ? 'PANELIST' : 'CORRESPONDENT',
      line_count: r.int(20, 200),
      capacity: i === 0 ? 'journalist_analyst' : r.pick(['researcher', 'executive_founder', 'practitioner']),
      in_field: r.next() < 0.7,
      confidence: 1,
    }));
    const mentions: MentionsDetected['mentions'] = [];
    let line = 1;
    const say = (entityId: string, lines: number, inAd: boolean) => {
      for (let k = 0; k < lines; k++) {
        line += r.int(1, 4);
        mentions.push({
          entity_id: entityId,
          line_number: line,
          speaker: inAd ? labels[0]! : r.pick(labels),
          start_seconds: line * 4.1,
          end_seconds: line * 4.1 + 3.7,
          variant: entityId,
          char_start: 0,
          char_end: 10,
          in_ad: inAd,
          matched: null,
          match: null,
        });
      }
    };
    const entities = new Set<string>();
    for (let f = r.int(1, 3); f > 0; f--) {
      const id = c.entities[r.zipf(c.entities.length)]!.id;
      entities.add(id);
      say(id, r.int(4, 12), false);
    }
    for (let p = r.int(4, 10); p > 0; p--) {
      const id = c.entities[r.zipf(c.entities.length)]!.id;
      entities.add(id);
      say(id, r.int(1, 2), false);
    }
    const adReads: AdReads['ad_reads'] = [];
    for (let a = r.int(0, 3); a > 0; a--) {
      const company = c.companies[r.zipf(c.companies.length, 0.8)]!;
      const promo = r.next() < 0.05;
      const first = line + 1;
      if (!promo) {
        entities.add(company.id);
        say(company.id, r.int(2, 4), true);
      }
      adReads.push({
        id: `ad_${id}_${a}`,
        segment_id: null,
        sponsor_name: promo ? `Network promo ${podcast.publisher_id}` : company.name,
        company_id: promo ? null : company.id,
        read_type: r.next() < 0.6 ? 'host_read' : 'pre_recorded',
        is_network_promo: promo,
        start_seconds: first * 4.1,
        end_seconds: line * 4.1 + 3.7,
        first_line: first,
        last_line: line,
      });
    }
    // An intro, then one to three topical segments splitting the lines; topics of the podcast's
    // category are the likelier ones (a tech show mostly discusses technology).
    const segments: Segments['segments'] = [];
    const parts = r.int(1, 3);
    const total = Math.max(line, parts + 1);
    let from = 1;
    for (let s = 0; s <= parts; s++) {
      const last =
        s === parts ? total : Math.min(total - (parts - s), from + Math.floor(total / (parts + 1)));
      const topics =
        s === 0 ? [] : [...new Set([r.pick(TOPIC_IDS), ...(r.next() < 0.4 ? [r.pick(TOPIC_IDS)] : [])])];
      segments.push({
        id: `sg_${id}_${s}`,
        number: s + 1,
        title: s === 0 ? 'Intro' : `Part ${s}`,
        type: s === 0 ? 'INTRO' : 'TOPIC_DISCUSSION',
        start_seconds: (from - 1) * 4.1,
        end_seconds: last * 4.1,
        first_line: from,
        last_line: last,
        description: null,
        summary: null,
        audio_url: null,
        read_type: null,
        topics,
      });
      from = last + 1;
    }
    yield {
      segments: { episode_id: id, segments },
      episode: {
        id,
        slug: id,
        podcast_id: podcast.id,
        guid: null,
        title: `Episode ${e} of ${podcast.title}`,
        description: null,
        published_at: published,
        duration_seconds: line * 4.1 + 30,
        audio_url: null,
        image_url: null,
        language: null,
        people: [],
        source: 'bench',
      },
      mentions: {
        episode_id: id,
        podcast_id: podcast.id,
        published_at: published,
        language: podcast.language,
        detector_version: 'bench',
        mentions,
        entities: [...entities].map((entity_id) => ({
          entity_id,
          relevance: 'incidental',
          mention_count: mentions.filter((m) => m.entity_id === entity_id).length,
          variants: [entity_id],
        })),
        detected_at: published + 3_600_000,
      },
      speakers: {
        episode_id: id,
        podcast_id: podcast.id,
        published_at: published,
        language: podcast.language,
        speakers,
        identified_at: published + 3_600_000,
      },
      adReads: { episode_id: id, ad_reads: adReads },
    };
  }
}
