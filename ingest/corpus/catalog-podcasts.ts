import type { Podcast, Publisher } from '../../schemas/generated/index.ts';
import { CATEGORIES } from '../../schemas/occupations.ts';
import { nameSlug as slugify } from '../../schemas/text-folding.ts';
import { Names, type Naming } from './catalog-names.ts';
import type { People } from './catalog-people.ts';
import type { Format, GenPerson, GenPodcast } from './catalog-types.ts';
import { hash32, type Rng, stableId } from './rng.ts';
import { PACKS } from './vocabulary/index.ts';
import { PUBLISHER_NAMES, SHOW_TITLE_PARTS } from './vocabulary/names.ts';
import { OCCUPATIONS } from './vocabulary/occupations.ts';
import type { Lang, TopicId } from './vocabulary/types.ts';

/** The catalog's publishers and podcasts (with their hosts, guest pools and correspondents), and the people in the news. */

const LANG_CYCLE: Lang[] = ['en', 'en', 'en', 'fr', 'en', 'en', 'en', 'de', 'en', 'en', 'es', 'en'];

const FORMATS_BY_TOPIC: Record<TopicId, Format[]> = {
  economics: ['interview', 'panel', 'news'],
  markets: ['interview', 'panel', 'conversation'],
  technology: ['interview', 'conversation', 'panel'],
  sports: ['panel', 'conversation', 'conversation'],
  politics: ['news', 'panel', 'news'],
  health: ['interview', 'interview', 'conversation'],
  science: ['interview', 'news', 'conversation'],
  climate: ['news', 'interview'],
  culture: ['conversation', 'panel', 'interview'],
  food: ['conversation'],
};

const occupationsFor = (topic: TopicId) => OCCUPATIONS.filter((o) => o.topics.includes(topic));
const journalist = OCCUPATIONS.find((o) => o.slug === 'journalist')!;

/** `publisherCount` podcast networks. */
export function generatePublishers(rng: Rng, publisherCount: number, updatedAt: number): Publisher[] {
  const publishers: Publisher[] = [];
  for (let i = 0; i < publisherCount; i++) {
    const base = PUBLISHER_NAMES[i % PUBLISHER_NAMES.length]!;
    const name = i < PUBLISHER_NAMES.length ? base : `${base} ${Math.floor(i / PUBLISHER_NAMES.length) + 1}`;
    const slug = slugify(name);
    publishers.push({
      id: stableId('pub_', `${rng.seed}/publisher/${i}`, 6),
      slug,
      name,
      description: `Podcast network: ${name}`,
      website_url: `https://${slug}.example`,
      image_url: null,
      updated_at: updatedAt,
    });
  }
  return publishers;
}

/** `P` podcasts over the languages and topics, each with its people (made by `people`). */
export function generatePodcasts(
  rng: Rng,
  naming: Naming,
  people: People,
  publishers: Publisher[],
  P: number,
  updatedAt: number,
): GenPodcast[] {
  const podcasts: GenPodcast[] = [];
  const titles = new Names();
  const podcastRng = rng.fork('podcasts');
  for (let i = 0; i < P; i++) {
    const lang = LANG_CYCLE[i % LANG_CYCLE.length]!;
    const pack = PACKS[lang];
    const available = pack.topics.map((t) => t.id);
    const primary = available[(i + Math.floor(i / LANG_CYCLE.length)) % available.length]!;
    const topics: TopicId[] = [primary];
    if (podcastRng.chance(0.4)) {
      const second = podcastRng.pick(available.filter((t) => t !== primary));
      if (second) topics.push(second);
    }
    const format = podcastRng.pick(FORMATS_BY_TOPIC[primary]);
    const topicDef = pack.topics.find((t) => t.id === primary)!;
    const categorySlugs = [...new Set(topicDef.categories.slice(0, podcastRng.int(1, 2)))];
    const categories = categorySlugs.map((slug) => ({
      slug,
      name: CATEGORIES[slug]?.name ?? slug,
      parent_slug: CATEGORIES[slug]?.parent ?? null,
    }));
    for (const c of [...categories]) {
      if (c.parent_slug && !categories.some((x) => x.slug === c.parent_slug)) {
        const parent = CATEGORIES[c.parent_slug]!;
        categories.unshift({ slug: c.parent_slug, name: parent.name, parent_slug: parent.parent });
      }
    }
    let title: string | undefined;
    const parts = SHOW_TITLE_PARTS[lang];
    for (let attempt = 0; !title; attempt++) {
      const post = podcastRng.pick(parts.post);
      const pre = podcastRng.pick(parts.pre);
      title = titles.take(attempt < 30 ? `${pre} ${post}` : `${pre} ${post} ${attempt}`);
    }
    const publisher = publishers[podcastRng.int(0, publishers.length - 1)]!;
    const hostCount = format === 'conversation' ? 2 : podcastRng.chance(0.35) ? 2 : 1;
    const hosts: GenPerson[] = [];
    for (let h = 0; h < hostCount; h++) {
      const occ = podcastRng.chance(0.6)
        ? journalist
        : podcastRng.pick(occupationsFor(primary).concat(journalist));
      // Two hosts with one first name would be hard to tell apart on air.
      hosts.push(
        people.make(
          lang,
          occ,
          `host-${i}-${h}`,
          primary,
          hosts.map((x) => x.first),
        ),
      );
    }
    const guests: GenPerson[] = [];
    const guestCount = podcastRng.int(4, 7);
    for (let g = 0; g < guestCount; g++) {
      const topic = podcastRng.pick(topics);
      const occs = occupationsFor(topic);
      const occ = podcastRng.chance(0.1)
        ? podcastRng.pick(OCCUPATIONS)
        : podcastRng.pick(occs.length > 0 ? occs : OCCUPATIONS);
      guests.push(
        people.make(
          lang,
          occ,
          `guest-${i}-${g}`,
          topic,
          hosts.map((h) => h.first),
        ),
      );
    }
    const correspondents: GenPerson[] = [];
    if (format === 'news') {
      for (let c = 0; c < podcastRng.int(1, 2); c++)
        correspondents.push(
          people.make(
            lang,
            journalist,
            `corr-${i}-${c}`,
            primary,
            hosts.map((h) => h.first),
          ),
        );
    }
    const slug = naming.uniqueSlug(title);
    const popular = podcastRng.chance(0.75);
    const podcast: Podcast = {
      id: stableId('pod_', `${rng.seed}/podcast/${i}`, 6),
      slug,
      directory_id: 1_000_000_000 + (hash32(`${rng.seed}/directory/${i}`) % 899_999_999),
      title,
      description: `${title}: ${topicDef.concepts
        .map((c) => c.headline)
        .slice(0, 3)
        .join(', ')} and more.`,
      publisher_id: publisher.id,
      language: podcastRng.pick(pack.locales),
      categories,
      hosts: hosts.map((h) => h.entity.id),
      image_url: `https://img.earshot.example/podcasts/${slug}.jpg`,
      feed_url: `https://feeds.${publisher.slug}.example/${slug}.xml`,
      website_url: `https://${publisher.slug}.example/shows/${slug}`,
      content_advisory_rating: podcastRng.chance(0.8) ? 'clean' : 'explicit',
      popularity: popular ? Math.round(podcastRng.float() ** 0.6 * 1000) / 10 : null,
      updated_at: updatedAt,
    };
    podcasts.push({
      index: i,
      podcast,
      lang,
      pack,
      topics,
      format,
      callIn: format !== 'news' && podcastRng.chance(0.35),
      publisher,
      hosts,
      guests,
      correspondents,
    });
  }
  return podcasts;
}

/** People in the news: politicians, executives, coaches, scientists... per language and topic. */
export function generatePublicFigures(rng: Rng, people: People, podcasts: GenPodcast[]): GenPerson[] {
  const publicFigures: GenPerson[] = [];
  const figureRng = rng.fork('figures');
  const langs = [...new Set(podcasts.map((p) => p.lang))];
  for (const lang of langs) {
    const shows = podcasts.filter((p) => p.lang === lang).length;
    for (const topic of PACKS[lang].topics.map((t) => t.id)) {
      const n = Math.max(2, Math.ceil(shows / 3));
      for (let k = 0; k < n; k++) {
        const occs = occupationsFor(topic).filter((o) => o.slug !== 'journalist');
        const occ = figureRng.pick(occs.length > 0 ? occs : OCCUPATIONS);
        publicFigures.push(people.make(lang, occ, `figure-${lang}-${topic}-${k}`, topic));
      }
    }
  }
  return publicFigures;
}
