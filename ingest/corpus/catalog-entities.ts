import type { Entity } from '../../schemas/generated/index.ts';
import { foldAccents as fold, nameSlug as slugify } from '../../schemas/text-folding.ts';
import type { Naming } from './catalog-names.ts';
import { Names } from './catalog-names.ts';
import type { GenCompany, GenThing } from './catalog-types.ts';
import { type Rng, stableId } from './rng.ts';
import { AMBIGUOUS } from './vocabulary/ambiguous.ts';
import { PACKS } from './vocabulary/index.ts';
import { SECTORS, THING_KINDS } from './vocabulary/names.ts';
import type { Lang } from './vocabulary/types.ts';

/** The catalog's companies and knowledge-graph things: invented ones, and the ambiguous real names. */

/** `companyCount` companies with invented brands, tickers, domains and handles, across the sectors. */
export function generateCompanies(
  rng: Rng,
  naming: Naming,
  companyCount: number,
  updatedAt: number,
): GenCompany[] {
  const companies: GenCompany[] = [];
  const tickers = new Names();
  const vocabUpper = new Set([...naming.vocab].map((w) => w.toUpperCase()));
  const companyRng = rng.fork('companies');
  for (let i = 0; i < companyCount; i++) {
    const sector = SECTORS[i % SECTORS.length]!;
    const brand = naming.newBrand();
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
      slug: naming.uniqueSlug(name),
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
  return companies;
}

/** The ambiguous names (real, well-known words) as companies and things. */
export function ambiguousEntities(
  naming: Naming,
  updatedAt: number,
): { ambiguousCompanies: GenCompany[]; ambiguousThings: GenThing[] } {
  const ambiguousCompanies: GenCompany[] = [];
  const ambiguousThings: GenThing[] = [];
  for (const a of AMBIGUOUS) {
    const entity: Entity = {
      id: stableId(a.kind === 'COMPANY' ? 'ent_c_' : 'ent_k_', `ambiguous/${a.key}`),
      slug: naming.uniqueSlug(a.key),
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
  return { ambiguousCompanies, ambiguousThings };
}

/** `thingCount` knowledge-graph things (teams, laws, drugs, missions, products…) with invented names. */
export function generateThings(rng: Rng, naming: Naming, thingCount: number, updatedAt: number): GenThing[] {
  const things: GenThing[] = [];
  const thingNames = new Names();
  const thingRng = rng.fork('things');
  for (let i = 0; i < thingCount; i++) {
    const kind = THING_KINDS[i % THING_KINDS.length]!;
    let name: string | undefined;
    let brand = '';
    for (let attempt = 0; !name; attempt++) {
      const city = thingRng.pick(PACKS[thingRng.pick(['en', 'en', 'fr', 'de', 'es'] as Lang[])].cities);
      brand = attempt < 50 ? naming.newBrand() : `${naming.newBrand()} ${attempt}`;
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
      slug: naming.uniqueSlug(name),
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
  return things;
}
