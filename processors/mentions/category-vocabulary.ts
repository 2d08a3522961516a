import { stem } from './tokenize.ts';

/**
 * Words a listener hears around an entity of a category, whatever the entity: "app",
 * "software", "company" around a technology company; "party", "election", "seats" around a
 * political party; "newspaper", "editor", "podcast" around a media company. They are weaker
 * evidence than an entity's own context terms, and what decides when a transcript has no
 * capitals to go by. Keyed by entity category slug (several spellings of a slug share a list);
 * words are compared as stems.
 */
const BUSINESS = [
  'company',
  'companies',
  'firm',
  'firms',
  'brand',
  'brands',
  'business',
  'businesses',
  'corporation',
  'shares',
  'stock',
  'investors',
  'revenue',
  'profit',
  'profits',
  'customers',
  'ceo',
  'founder',
  'market',
  'billion',
  'sales',
];
const TECHNOLOGY = [
  ...BUSINESS,
  'software',
  'tech',
  'technology',
  'phone',
  'phones',
  'smartphone',
  'computer',
  'computers',
  'startup',
  'startups',
  'digital',
  'data',
  'cloud',
  'devices',
  'silicon valley',
  'e-commerce',
];
const MEDIA = [
  'newspaper',
  'newspapers',
  'paper',
  'magazine',
  'editor',
  'editors',
  'journalist',
  'journalists',
  'journalism',
  'column',
  'columnist',
  'article',
  'articles',
  'published',
  'publisher',
  'publishing',
  'podcast',
  'podcasts',
  'media',
  'readers',
];
const POLITICS = [
  'party',
  'parties',
  'election',
  'elections',
  'vote',
  'votes',
  'voter',
  'voters',
  'seats',
  'leader',
  'leaders',
  'leadership',
  'politics',
  'political',
  'politician',
  'politicians',
  'government',
  'opposition',
  'coalition',
  'alliance',
  'campaign',
  'candidate',
  'minister',
  'ministers',
  'parliament',
  'manifesto',
  'ruling',
  'won',
  'lost',
];
const LEGISLATURE = [
  'senate',
  'senator',
  'senators',
  'law',
  'laws',
  'bill',
  'bills',
  'lawmakers',
  'legislation',
  'vote',
  'passed',
  'representatives',
  'hearing',
  'committee',
];
const INSTITUTIONS = [
  'court',
  'judge',
  'judges',
  'ruling',
  'verdict',
  'petition',
  'case',
  'government',
  'policy',
  'bank',
  'governor',
  'regulator',
];
const TRANSPORT = [
  ...BUSINESS,
  'airline',
  'airlines',
  'flight',
  'flights',
  'airport',
  'plane',
  'planes',
  'passengers',
  'fly',
  'flew',
  'routes',
  'pilots',
];
const AUTOMOTIVE = [
  ...BUSINESS,
  'car',
  'cars',
  'carmaker',
  'vehicle',
  'vehicles',
  'electric',
  'engine',
  'dealership',
  'models',
  'sedan',
];
const ASTRONOMY = [
  'planet',
  'planets',
  'orbit',
  'orbits',
  'sun',
  'probe',
  'telescope',
  'space',
  'solar system',
  'moon',
  'nasa',
  'mission',
];
const SPORTS = ['team', 'match', 'season', 'league', 'game', 'player', 'players', 'coach', 'tournament'];

const VOCABULARY: Record<string, string[]> = {
  technology: TECHNOLOGY,
  'tech-news': TECHNOLOGY,
  business: BUSINESS,
  consumer: BUSINESS,
  finance: [...BUSINESS, 'bank', 'banks', 'banking', 'loan', 'loans', 'fund', 'funds'],
  media: MEDIA,
  'political-parties': POLITICS,
  politics: POLITICS,
  legislatures: LEGISLATURE,
  institutions: INSTITUTIONS,
  transport: TRANSPORT,
  automotive: AUTOMOTIVE,
  astronomy: ASTRONOMY,
  'sports-leagues': SPORTS,
  sports: SPORTS,
};

const stemmed = new Map<string, string[][]>();

/** The category's words as stem sequences (empty for a category without a vocabulary). */
export function categoryVocabulary(slug: string): string[][] {
  let list = stemmed.get(slug);
  if (!list) {
    list = (VOCABULARY[slug] ?? []).map((w) => w.split(/\s+/).map(stem));
    stemmed.set(slug, list);
  }
  return list;
}
