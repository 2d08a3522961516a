import { fold } from '../../processors/mentions/tokenize.ts';
import type { Entity, Podcast, Publisher } from '../../schemas/generated/index.ts';
import { hash32, type Rng, stableId } from './rng.ts';
import { AMBIGUOUS, type AmbiguousDef } from './vocabulary/ambiguous.ts';
import { INSTITUTIONS, PACKS, vocabularyWords } from './vocabulary/index.ts';
import {
  BRAND_HEADS,
  BRAND_TAILS,
  type CompanySector,
  FIRST_NAMES,
  PUBLISHER_NAMES,
  SECTORS,
  SHOW_TITLE_PARTS,
  SURNAMES,
  THING_KINDS,
  type ThingKind,
} from './vocabulary/names.ts';
import { CATEGORIES, OCCUPATIONS, type OccupationDef } from './vocabulary/occupations.ts';
import type { Lang, LanguagePack, TopicId } from './vocabulary/types.ts';

/**
 * The generated catalog: publishers, podcasts (with hosts, guest pools and correspondents),
 * people, companies and knowledge-graph entities, including the ambiguous names. Small enough
 * to hold in memory even for the bench corpus; episodes are generated from it one at a time.
 */
export type Format = 'interview' | 'panel' | 'news' | 'conversation';

export interface GenPerson {
  entity: Entity;
  first: string;
  last: string;
  lang: Lang;
  occupation: OccupationDef;
  surnameAlias: string | null;
  nickname: string | null;
  handle: string | null;
  /** Company entity or institution name. */
  employer: { company: GenCompany } | { institution: string };
}

export interface GenCompany {
  entity: Entity;
  brand: string;
  sector: CompanySector | null;
  ambiguous: AmbiguousDef | null;
  topics: TopicId[];
}

export interface GenThing {
  entity: Entity;
  slot: ThingKind['slot'] | null;
  ambiguous: AmbiguousDef | null;
  topics: TopicId[];
}

export interface GenPodcast {
  index: number;
  podcast: Podcast;
  lang: Lang;
  pack: LanguagePack;
  topics: TopicId[];
  format: Format;
  callIn: boolean;
  publisher: Publisher;
  hosts: GenPerson[];
  guests: GenPerson[];
  correspondents: GenPerson[];
}

export interface Catalog {
  publishers: Publisher[];
  podcasts: GenPodcast[];
  persons: GenPerson[];
  /** People in the news (politicians, executives, coaches...), by language. */
  publicFigures: GenPerson[];
  companies: GenCompany[];
  things: GenThing[];
  ambiguousCompanies: GenCompany[];
  ambiguousThings: GenThing[];
  entities: Entity[];
}

export interface CatalogOptions {
  podcasts: number;
  asOf: number;
}

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

export function slugify(text: string): string {
  return fold(text)
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

class Names {
  private readonly used = new Set<string>();
  take(candidate: string): string | undefined {
    const key = fold(candidate);
    if (this.used.has(key)) return undefined;
    this.used.add(key);
    return candidate;
  }
  has(candidate: string): boolean {
    return this.used.has(fold(candidate));
  }
}

/** Builds the catalog for `options.podcasts` shows. Deterministic for the rng's seed. */
export function generateCatalog(rng: Rng, options: CatalogOptions): Catalog {
  const vocab = vocabularyWords();
  const P = options.podcasts;
  const updatedAt = options.asOf;
  const slugs = new Names();
  const uniqueSlug = (name: string) => {
    const base = slugify(name) || 'item';
    for (let i = 1; ; i++) {
      const s = i === 1 ? base : `${base}-${i}`;
      if (slugs.take(s)) return s;
    }
  };

  // Brands: invented words, never an ordinary word of the vocabulary.
  const brands = new Names();
  const brandRng = rng.fork('brands');
  const MIDS = ['', '', 'an', 'er', 'il', 'or', 'u', 'at'];
  const newBrand = (): string => {
    for (let attempt = 0; ; attempt++) {
      const mid =
        attempt > 200 ? brandRng.pick(MIDS.slice(2)) + brandRng.pick(MIDS.slice(2)) : brandRng.pick(MIDS);
      const b = brandRng.pick(BRAND_HEADS) + mid + brandRng.pick(BRAND_TAILS);
      if (vocab.has(fold(b))) continue;
      if (brands.take(b)) return b;
    }
  };

  // Companies.
  const companies: GenCompany[] = [];
  const tickers = new Names();
  const vocabUpper = new Set([...vocab].map((w) => w.toUpperCase()));
  const companyCount = Math.max(24, P * 3);
  const companyRng = rng.fork('companies');
  for (let i = 0; i < companyCount; i++) {
    const sector = SECTORS[i % SECTORS.length]!;
    const brand = newBrand();
    const suffix = companyRng.pick(sector.suffixes);
    const name = `${brand} ${suffix}`;
    let ticker: string | null = null;
    if (companyRng.chance(0.6)) {
      const letters = (brand + suffix).toUpperCase().replace(/[^A-Z]/g, '');
      for (let t = 0; t < 20 && !ticker; t++) {
        const len = companyRng.int(3, 4);
        const cand = (letters[0]! + companyRng.sample(letters.slice(1).split(''), len - 1).join('')).slice(
          0,
          len,
        );
        if (cand.length >= 3 && !vocabUpper.has(cand) && tickers.take(cand)) ticker = cand;
      }
    }
    const domain = `${fold(brand)}${companyRng.pick(['', '', fold(suffix)])}.${companyRng.pick(['com', 'com', 'io', 'co'])}`;
    const handle = companyRng.chance(0.7) ? `@${brand}${companyRng.chance(0.4) ? suffix : ''}` : null;
    const entity: Entity = {
      id: stableId('ent_c_', `${rng.seed}/company/${i}`),
      slug: uniqueSlug(name),
      kind: 'COMPANY',
      name,
      description: `${sector.name} company`,
      wikipedia_url: null,
      image_url: `https://img.earshot.example/entities/${slugify(name)}.png`,
      category: { slug: sector.slug, name: sector.name },
      aliases: [brand],
      nicknames: [],
      handles: handle ? [handle] : [],
      context_terms: [],
      variants: [],
      company: { domain, ticker },
      person: null,
      updated_at: updatedAt,
    };
    companies.push({ entity, brand, sector, ambiguous: null, topics: sector.topics });
  }

  // Ambiguous names: real, well-known words.
  const ambiguousCompanies: GenCompany[] = [];
  const ambiguousThings: GenThing[] = [];
  for (const a of AMBIGUOUS) {
    const entity: Entity = {
      id: stableId(a.kind === 'COMPANY' ? 'ent_c_' : 'ent_k_', `ambiguous/${a.key}`),
      slug: uniqueSlug(a.key),
      kind: a.kind,
      name: a.name,
      description: a.description,
      wikipedia_url: a.wikipedia,
      image_url: null,
      category: a.category,
      aliases: a.aliases,
      nicknames: a.nicknames,
      handles: a.handles,
      context_terms: a.contextTerms,
      variants: [],
      company: a.company ? { domain: a.company.domain, ticker: a.company.ticker } : null,
      person: null,
      updated_at: updatedAt,
    };
    if (a.kind === 'COMPANY')
      ambiguousCompanies.push({ entity, brand: a.surface, sector: null, ambiguous: a, topics: a.topics });
    else ambiguousThings.push({ entity, slot: null, ambiguous: a, topics: a.topics });
  }

  // Knowledge-graph things.
  const things: GenThing[] = [];
  const thingNames = new Names();
  const thingRng = rng.fork('things');
  const thingCount = Math.max(21, Math.ceil(P * 1.5));
  for (let i = 0; i < thingCount; i++) {
    const kind = THING_KINDS[i % THING_KINDS.length]!;
    let name: string | undefined;
    let brand = '';
    for (let attempt = 0; !name; attempt++) {
      const city = thingRng.pick(PACKS[thingRng.pick(['en', 'en', 'fr', 'de', 'es'] as Lang[])].cities);
      brand = attempt < 50 ? newBrand() : `${newBrand()} ${attempt}`;
      name = thingNames.take(kind.make(brand, city, thingRng.int(0, 1000) + attempt));
    }
    // Short names and handles, where a thing of this kind has them.
    const squeezed = fold(name).replace(/[^a-z0-9]/g, '');
    const aliases = kind.slot === 'mission' || kind.slot === 'product' ? [brand] : [];
    const handles =
      kind.slot === 'team'
        ? [`@${squeezed}`.slice(0, 20)]
        : kind.slot === 'film'
          ? [`@${fold(brand)}movie`]
          : kind.slot === 'mission'
            ? [`@${fold(brand)}mission`]
            : [];
    const nicknames = kind.slot === 'event' && thingRng.chance(0.5) ? [`the ${brand} talks`] : [];
    const entity: Entity = {
      id: stableId('ent_k_', `${rng.seed}/thing/${i}`),
      slug: uniqueSlug(name),
      kind: 'KNOWLEDGE_GRAPH_ENTITY',
      name,
      description: kind.category.name.replace(/s$/, ''),
      wikipedia_url: null,
      image_url: null,
      category: kind.category,
      aliases,
      nicknames,
      handles,
      context_terms: [],
      variants: [],
      company: null,
      person: null,
      updated_at: updatedAt,
    };
    things.push({ entity, slot: kind.slot, ambiguous: null, topics: kind.topics });
  }

  // People.
  const persons: GenPerson[] = [];
  const fullNames = new Names();
  const personRng = rng.fork('people');
  const firstNameSet = new Set(Object.values(FIRST_NAMES).flatMap((l) => l.map(fold)));
  const surnameCount = new Map<string, number>();
  const makePerson = (
    lang: Lang,
    occupation: OccupationDef,
    label: string,
    topic?: TopicId,
    avoidFirst: string[] = [],
  ): GenPerson => {
    let first = '';
    let last = '';
    let full: string | undefined;
    for (let attempt = 0; !full; attempt++) {
      first = personRng.pick(FIRST_NAMES[lang]);
      if (avoidFirst.includes(first)) continue;
      last = personRng.pick(SURNAMES[lang]);
      const middle = attempt >= 12 ? ` ${String.fromCharCode(65 + personRng.int(0, 25))}.` : '';
      full = fullNames.take(`${first}${middle} ${last}`);
    }
    surnameCount.set(fold(last), (surnameCount.get(fold(last)) ?? 0) + 1);
    const companyPool = companies.filter((c) => !topic || c.topics.includes(topic));
    const corporate =
      ['executive_founder', 'practitioner'].includes(occupation.capacity) ||
      occupation.slug === 'financial-analyst';
    const employer: GenPerson['employer'] =
      corporate || personRng.chance(0.25)
        ? { company: personRng.pick(companyPool.length > 0 ? companyPool : companies) }
        : {
            institution: personRng
              .pick(INSTITUTIONS[lang])
              .replace('{city}', personRng.pick(PACKS[lang].cities)),
          };
    const handle = personRng.chance(0.55)
      ? `@${fold(first).replace(/[^a-z]/g, '')}${fold(last).replace(/[^a-z]/g, '')}`.slice(0, 16)
      : null;
    const seniority = personRng.weighted([
      ['professional', 0.45],
      ['senior', 0.4],
      ['distinguished', 0.15],
    ] as const);
    const standing = personRng.weighted([
      ['established', 0.8],
      ['self_described', 0.15],
      ['unverified', 0.05],
    ] as const);
    const employerName = 'company' in employer ? employer.company.entity.name : employer.institution;
    const title = occupation.title[lang];
    const entity: Entity = {
      id: stableId('ent_p_', `${rng.seed}/person/${persons.length}/${label}`),
      slug: uniqueSlug(full),
      kind: 'PERSON',
      name: full,
      description: `${title[0]!.toUpperCase()}${title.slice(1)}, ${employerName}`,
      wikipedia_url: null,
      image_url: `https://img.earshot.example/people/${slugify(full)}.jpg`,
      category: occupation.category,
      aliases: [],
      nicknames: [],
      handles: handle ? [handle] : [],
      context_terms: [],
      variants: [],
      company: null,
      person: {
        title,
        company_id: 'company' in employer ? employer.company.entity.id : null,
        occupation: {
          code: occupation.code,
          system: 'isco08',
          slug: occupation.slug,
          title: occupation.name,
          group: occupation.group,
        },
        field: occupation.field,
        standing,
        seniority,
        practicing: personRng.chance(0.9),
      },
      updated_at: updatedAt,
    };
    const person: GenPerson = {
      entity,
      first,
      last,
      lang,
      occupation,
      surnameAlias: null,
      nickname: null,
      handle,
      employer,
    };
    persons.push(person);
    return person;
  };

  const occupationsFor = (topic: TopicId) => OCCUPATIONS.filter((o) => o.topics.includes(topic));
  const journalist = OCCUPATIONS.find((o) => o.slug === 'journalist')!;

  // Publishers.
  const publisherCount = Math.max(2, Math.ceil(P / 6));
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

  // Podcasts.
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
        makePerson(
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
        makePerson(
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
          makePerson(
            lang,
            journalist,
            `corr-${i}-${c}`,
            primary,
            hosts.map((h) => h.first),
          ),
        );
    }
    const slug = uniqueSlug(title);
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

  // People in the news: politicians, executives, coaches, scientists... per language and topic.
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
        publicFigures.push(makePerson(lang, occ, `figure-${lang}-${topic}-${k}`, topic));
      }
    }
  }

  // Aliases that are safe: a surname unique in the catalog and not an ordinary word or first
  // name; nicknames for coaches, doctors and professors.
  const nicknames = new Names();
  for (const p of persons) {
    const key = fold(p.last);
    if (surnameCount.get(key) === 1 && !vocab.has(key) && !firstNameSet.has(key) && !brands.has(p.last)) {
      p.surnameAlias = p.last;
      p.entity.aliases = [p.last];
    }
    const prefix =
      p.occupation.slug === 'sports-coach'
        ? 'Coach'
        : p.occupation.slug === 'physician'
          ? 'Doc'
          : p.occupation.capacity === 'researcher' && personRng.chance(0.3)
            ? 'Professor'
            : null;
    if (prefix && p.lang === 'en') {
      const nick = nicknames.take(`${prefix} ${p.last}`);
      if (nick && surnameCount.get(key) === 1) {
        p.nickname = nick;
        p.entity.nicknames = [nick];
      }
    }
  }

  const entities = [
    ...companies.map((c) => c.entity),
    ...ambiguousCompanies.map((c) => c.entity),
    ...things.map((t) => t.entity),
    ...ambiguousThings.map((t) => t.entity),
    ...persons.map((p) => p.entity),
  ];
  return {
    publishers,
    podcasts,
    persons,
    publicFigures,
    companies,
    things,
    ambiguousCompanies,
    ambiguousThings,
    entities,
  };
}
