/**
 * Reference tables that speaker identification (processors/speakers) and the corpus generator
 * (ingest/corpus) both read: occupations (ISCO-08 unit groups) with their research field (ISCED-F
 * 2013 detailed fields), the capacity a speaker in that occupation usually speaks in and the
 * entity category of a person in it; podcast categories with their topics; and which research
 * fields count as "in field" for a topic.
 */

/** Topics podcasts, categories and people are filed under. */
export const TOPIC_IDS = [
  'economics',
  'markets',
  'technology',
  'sports',
  'politics',
  'health',
  'science',
  'climate',
  'culture',
  'food',
] as const;
export type TopicId = (typeof TOPIC_IDS)[number];

export type Capacity =
  | 'researcher'
  | 'licensed_professional'
  | 'practitioner'
  | 'executive_founder'
  | 'public_official'
  | 'journalist_analyst'
  | 'creator_entertainer'
  | 'athlete_coach'
  | 'clergy';

export interface Occupation {
  slug: string;
  code: string;
  group: string;
  name: string;
  field: { code: string; slug: string; title: string };
  capacity: Capacity;
  /** Entity category of a person in this occupation. */
  category: { slug: string; name: string };
}

const BUSINESS = { slug: 'business-people', name: 'Business people' };
const SCIENTISTS = { slug: 'scientists', name: 'Scientists and researchers' };
const MEDIA = { slug: 'journalists', name: 'Journalists and commentators' };
const POLITICS = { slug: 'politicians', name: 'Politicians and officials' };
const SPORTS = { slug: 'athletes', name: 'Athletes and coaches' };
const ARTS = { slug: 'entertainers', name: 'Artists and entertainers' };
const PROFESSIONALS = { slug: 'professionals', name: 'Professionals' };

export const OCCUPATIONS: Occupation[] = [
  {
    slug: 'economist',
    code: '2631',
    group: 'Economists',
    name: 'Economist',
    field: { code: '0311', slug: 'economics', title: 'Economics' },
    capacity: 'researcher',
    category: SCIENTISTS,
  },
  {
    slug: 'financial-analyst',
    code: '2413',
    group: 'Financial analysts',
    name: 'Financial analyst',
    field: { code: '0412', slug: 'finance-banking-insurance', title: 'Finance, banking and insurance' },
    capacity: 'journalist_analyst',
    category: BUSINESS,
  },
  {
    slug: 'chief-executive',
    code: '1120',
    group: 'Managing directors and chief executives',
    name: 'Chief executive',
    field: { code: '0413', slug: 'management-administration', title: 'Management and administration' },
    capacity: 'executive_founder',
    category: BUSINESS,
  },
  {
    slug: 'founder',
    code: '1120',
    group: 'Managing directors and chief executives',
    name: 'Founder',
    field: { code: '0413', slug: 'management-administration', title: 'Management and administration' },
    capacity: 'executive_founder',
    category: BUSINESS,
  },
  {
    slug: 'software-developer',
    code: '2512',
    group: 'Software developers',
    name: 'Software developer',
    field: {
      code: '0613',
      slug: 'software-development',
      title: 'Software and applications development and analysis',
    },
    capacity: 'practitioner',
    category: PROFESSIONALS,
  },
  {
    slug: 'ai-researcher',
    code: '2519',
    group: 'Software and applications developers and analysts',
    name: 'AI researcher',
    field: {
      code: '0613',
      slug: 'software-development',
      title: 'Software and applications development and analysis',
    },
    capacity: 'researcher',
    category: SCIENTISTS,
  },
  {
    slug: 'journalist',
    code: '2642',
    group: 'Journalists',
    name: 'Journalist',
    field: { code: '0321', slug: 'journalism-reporting', title: 'Journalism and reporting' },
    capacity: 'journalist_analyst',
    category: MEDIA,
  },
  {
    slug: 'political-scientist',
    code: '2632',
    group: 'Sociologists, anthropologists and related professionals',
    name: 'Political scientist',
    field: { code: '0312', slug: 'political-sciences', title: 'Political sciences and civics' },
    capacity: 'researcher',
    category: SCIENTISTS,
  },
  {
    slug: 'legislator',
    code: '1111',
    group: 'Legislators',
    name: 'Legislator',
    field: { code: '0312', slug: 'political-sciences', title: 'Political sciences and civics' },
    capacity: 'public_official',
    category: POLITICS,
  },
  {
    slug: 'physician',
    code: '2211',
    group: 'Generalist medical practitioners',
    name: 'Physician',
    field: { code: '0912', slug: 'medicine', title: 'Medicine' },
    capacity: 'licensed_professional',
    category: PROFESSIONALS,
  },
  {
    slug: 'biologist',
    code: '2131',
    group: 'Biologists, botanists, zoologists and related professionals',
    name: 'Biologist',
    field: { code: '0511', slug: 'biology', title: 'Biology' },
    capacity: 'researcher',
    category: SCIENTISTS,
  },
  {
    slug: 'psychologist',
    code: '2634',
    group: 'Psychologists',
    name: 'Psychologist',
    field: { code: '0313', slug: 'psychology', title: 'Psychology' },
    capacity: 'licensed_professional',
    category: PROFESSIONALS,
  },
  {
    slug: 'astronomer',
    code: '2111',
    group: 'Physicists and astronomers',
    name: 'Astronomer',
    field: { code: '0533', slug: 'physics', title: 'Physics' },
    capacity: 'researcher',
    category: SCIENTISTS,
  },
  {
    slug: 'climate-scientist',
    code: '2114',
    group: 'Geologists and geophysicists',
    name: 'Climate scientist',
    field: { code: '0532', slug: 'earth-sciences', title: 'Earth sciences' },
    capacity: 'researcher',
    category: SCIENTISTS,
  },
  {
    slug: 'sports-coach',
    code: '3422',
    group: 'Sports coaches, instructors and officials',
    name: 'Sports coach',
    field: { code: '1014', slug: 'sports', title: 'Sports' },
    capacity: 'athlete_coach',
    category: SPORTS,
  },
  {
    slug: 'athlete',
    code: '3421',
    group: 'Athletes and sports players',
    name: 'Athlete',
    field: { code: '1014', slug: 'sports', title: 'Sports' },
    capacity: 'athlete_coach',
    category: SPORTS,
  },
  {
    slug: 'musician',
    code: '2652',
    group: 'Musicians, singers and composers',
    name: 'Musician',
    field: { code: '0215', slug: 'music-performing-arts', title: 'Music and performing arts' },
    capacity: 'creator_entertainer',
    category: ARTS,
  },
  {
    slug: 'film-director',
    code: '2654',
    group: 'Film, stage and related directors and producers',
    name: 'Film director',
    field: {
      code: '0211',
      slug: 'audio-visual-media',
      title: 'Audio-visual techniques and media production',
    },
    capacity: 'creator_entertainer',
    category: ARTS,
  },
  {
    slug: 'author',
    code: '2641',
    group: 'Authors and related writers',
    name: 'Author',
    field: { code: '0232', slug: 'literature-linguistics', title: 'Literature and linguistics' },
    capacity: 'creator_entertainer',
    category: ARTS,
  },
  {
    slug: 'chef',
    code: '3434',
    group: 'Chefs',
    name: 'Chef',
    field: { code: '1013', slug: 'hotel-restaurants-catering', title: 'Hotel, restaurants and catering' },
    capacity: 'practitioner',
    category: PROFESSIONALS,
  },
  {
    slug: 'lawyer',
    code: '2611',
    group: 'Lawyers',
    name: 'Lawyer',
    field: { code: '0421', slug: 'law', title: 'Law' },
    capacity: 'licensed_professional',
    category: PROFESSIONALS,
  },
  {
    slug: 'energy-engineer',
    code: '2151',
    group: 'Electrical engineers',
    name: 'Electrical engineer',
    field: { code: '0713', slug: 'electricity-energy', title: 'Electricity and energy' },
    capacity: 'practitioner',
    category: PROFESSIONALS,
  },
  {
    slug: 'clergy',
    code: '2636',
    group: 'Religious professionals',
    name: 'Religious professional',
    field: { code: '0221', slug: 'religion-theology', title: 'Religion and theology' },
    capacity: 'clergy',
    category: PROFESSIONALS,
  },
];

/** Podcast categories (slug → name, parent) shows are filed under. */
export const CATEGORIES: Record<string, { name: string; parent: string | null; topics: TopicId[] }> = {
  business: { name: 'Business', parent: null, topics: ['markets', 'economics'] },
  economics: { name: 'Economics', parent: 'business', topics: ['economics'] },
  investing: { name: 'Investing', parent: 'business', topics: ['markets'] },
  entrepreneurship: { name: 'Entrepreneurship', parent: 'business', topics: ['markets', 'technology'] },
  technology: { name: 'Technology', parent: null, topics: ['technology'] },
  'tech-news': { name: 'Tech News', parent: 'technology', topics: ['technology'] },
  sports: { name: 'Sports', parent: null, topics: ['sports'] },
  football: { name: 'Football', parent: 'sports', topics: ['sports'] },
  basketball: { name: 'Basketball', parent: 'sports', topics: ['sports'] },
  news: { name: 'News', parent: null, topics: ['politics', 'economics', 'climate'] },
  politics: { name: 'Politics', parent: 'news', topics: ['politics'] },
  government: { name: 'Government', parent: null, topics: ['politics'] },
  health: { name: 'Health & Fitness', parent: null, topics: ['health'] },
  fitness: { name: 'Fitness', parent: 'health', topics: ['health'] },
  medicine: { name: 'Medicine', parent: 'health', topics: ['health', 'science'] },
  science: { name: 'Science', parent: null, topics: ['science', 'climate'] },
  space: { name: 'Astronomy', parent: 'science', topics: ['science'] },
  environment: { name: 'Nature & Environment', parent: 'science', topics: ['climate'] },
  education: { name: 'Education', parent: null, topics: ['science'] },
  arts: { name: 'Arts', parent: null, topics: ['culture'] },
  'tv-film': { name: 'TV & Film', parent: null, topics: ['culture'] },
  music: { name: 'Music', parent: null, topics: ['culture'] },
  books: { name: 'Books', parent: 'arts', topics: ['culture'] },
  leisure: { name: 'Leisure', parent: null, topics: ['food'] },
  food: { name: 'Food', parent: 'arts', topics: ['food'] },
  travel: { name: 'Places & Travel', parent: 'leisure', topics: ['food'] },
};

/** Which research fields count as "in field" for a topic. */
export const TOPIC_FIELDS: Record<TopicId, string[]> = {
  economics: ['economics', 'finance-banking-insurance', 'management-administration', 'political-sciences'],
  markets: ['economics', 'finance-banking-insurance', 'management-administration'],
  technology: ['software-development', 'management-administration', 'electricity-energy'],
  sports: ['sports'],
  politics: ['political-sciences', 'law', 'journalism-reporting'],
  health: ['medicine', 'biology', 'psychology', 'sports'],
  science: ['physics', 'biology', 'earth-sciences', 'software-development'],
  climate: ['earth-sciences', 'electricity-energy'],
  culture: ['music-performing-arts', 'audio-visual-media', 'literature-linguistics'],
  food: ['hotel-restaurants-catering'],
};
