import type { Lang, TopicId } from './types.ts';

/**
 * Occupations of generated people (ISCO-08 unit groups), with their research field (ISCED-F 2013
 * detailed fields), the capacity a speaker in that occupation usually speaks in, the topics they
 * are booked for, and job titles per language.
 */
export interface OccupationDef {
  slug: string;
  code: string;
  group: string;
  name: string;
  title: Record<Lang, string>;
  field: { code: string; slug: string; title: string };
  capacity:
    | 'researcher'
    | 'licensed_professional'
    | 'practitioner'
    | 'executive_founder'
    | 'public_official'
    | 'journalist_analyst'
    | 'creator_entertainer'
    | 'athlete_coach'
    | 'clergy';
  topics: TopicId[];
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

export const OCCUPATIONS: OccupationDef[] = [
  {
    slug: 'economist',
    code: '2631',
    group: 'Economists',
    name: 'Economist',
    title: { en: 'chief economist', fr: 'économiste en chef', de: 'Chefvolkswirtin', es: 'economista jefe' },
    field: { code: '0311', slug: 'economics', title: 'Economics' },
    capacity: 'researcher',
    topics: ['economics', 'markets'],
    category: SCIENTISTS,
  },
  {
    slug: 'financial-analyst',
    code: '2413',
    group: 'Financial analysts',
    name: 'Financial analyst',
    title: {
      en: 'senior equity analyst',
      fr: 'analyste financier',
      de: 'Finanzanalyst',
      es: 'analista financiera',
    },
    field: { code: '0412', slug: 'finance-banking-insurance', title: 'Finance, banking and insurance' },
    capacity: 'journalist_analyst',
    topics: ['markets', 'economics'],
    category: BUSINESS,
  },
  {
    slug: 'chief-executive',
    code: '1120',
    group: 'Managing directors and chief executives',
    name: 'Chief executive',
    title: {
      en: 'chief executive',
      fr: 'directrice générale',
      de: 'Geschäftsführer',
      es: 'consejero delegado',
    },
    field: { code: '0413', slug: 'management-administration', title: 'Management and administration' },
    capacity: 'executive_founder',
    topics: ['markets', 'technology'],
    category: BUSINESS,
  },
  {
    slug: 'founder',
    code: '1120',
    group: 'Managing directors and chief executives',
    name: 'Founder',
    title: {
      en: 'founder and CEO',
      fr: 'fondateur et PDG',
      de: 'Gründerin und Chefin',
      es: 'fundador y director',
    },
    field: { code: '0413', slug: 'management-administration', title: 'Management and administration' },
    capacity: 'executive_founder',
    topics: ['technology', 'markets'],
    category: BUSINESS,
  },
  {
    slug: 'software-developer',
    code: '2512',
    group: 'Software developers',
    name: 'Software developer',
    title: {
      en: 'principal engineer',
      fr: 'ingénieure logiciel',
      de: 'Softwareentwickler',
      es: 'ingeniera de software',
    },
    field: {
      code: '0613',
      slug: 'software-development',
      title: 'Software and applications development and analysis',
    },
    capacity: 'practitioner',
    topics: ['technology'],
    category: PROFESSIONALS,
  },
  {
    slug: 'ai-researcher',
    code: '2519',
    group: 'Software and applications developers and analysts',
    name: 'AI researcher',
    title: { en: 'head of research', fr: 'chercheuse en IA', de: 'KI-Forscher', es: 'investigadora de IA' },
    field: {
      code: '0613',
      slug: 'software-development',
      title: 'Software and applications development and analysis',
    },
    capacity: 'researcher',
    topics: ['technology', 'science'],
    category: SCIENTISTS,
  },
  {
    slug: 'journalist',
    code: '2642',
    group: 'Journalists',
    name: 'Journalist',
    title: { en: 'senior correspondent', fr: 'journaliste', de: 'Korrespondentin', es: 'periodista' },
    field: { code: '0321', slug: 'journalism-reporting', title: 'Journalism and reporting' },
    capacity: 'journalist_analyst',
    topics: ['politics', 'economics', 'sports', 'culture'],
    category: MEDIA,
  },
  {
    slug: 'political-scientist',
    code: '2632',
    group: 'Sociologists, anthropologists and related professionals',
    name: 'Political scientist',
    title: {
      en: 'professor of politics',
      fr: 'politologue',
      de: 'Politikwissenschaftlerin',
      es: 'politólogo',
    },
    field: { code: '0312', slug: 'political-sciences', title: 'Political sciences and civics' },
    capacity: 'researcher',
    topics: ['politics'],
    category: SCIENTISTS,
  },
  {
    slug: 'legislator',
    code: '1111',
    group: 'Legislators',
    name: 'Legislator',
    title: { en: 'senator', fr: 'députée', de: 'Abgeordneter', es: 'diputada' },
    field: { code: '0312', slug: 'political-sciences', title: 'Political sciences and civics' },
    capacity: 'public_official',
    topics: ['politics'],
    category: POLITICS,
  },
  {
    slug: 'physician',
    code: '2211',
    group: 'Generalist medical practitioners',
    name: 'Physician',
    title: { en: 'physician', fr: 'médecin généraliste', de: 'Ärztin', es: 'médica de familia' },
    field: { code: '0912', slug: 'medicine', title: 'Medicine' },
    capacity: 'licensed_professional',
    topics: ['health'],
    category: PROFESSIONALS,
  },
  {
    slug: 'biologist',
    code: '2131',
    group: 'Biologists, botanists, zoologists and related professionals',
    name: 'Biologist',
    title: { en: 'sleep researcher', fr: 'biologiste', de: 'Biologe', es: 'bióloga' },
    field: { code: '0511', slug: 'biology', title: 'Biology' },
    capacity: 'researcher',
    topics: ['health', 'science'],
    category: SCIENTISTS,
  },
  {
    slug: 'psychologist',
    code: '2634',
    group: 'Psychologists',
    name: 'Psychologist',
    title: { en: 'clinical psychologist', fr: 'psychologue', de: 'Psychologin', es: 'psicólogo' },
    field: { code: '0313', slug: 'psychology', title: 'Psychology' },
    capacity: 'licensed_professional',
    topics: ['health'],
    category: PROFESSIONALS,
  },
  {
    slug: 'astronomer',
    code: '2111',
    group: 'Physicists and astronomers',
    name: 'Astronomer',
    title: { en: 'planetary scientist', fr: 'astrophysicienne', de: 'Astrophysiker', es: 'astrofísica' },
    field: { code: '0533', slug: 'physics', title: 'Physics' },
    capacity: 'researcher',
    topics: ['science'],
    category: SCIENTISTS,
  },
  {
    slug: 'climate-scientist',
    code: '2114',
    group: 'Geologists and geophysicists',
    name: 'Climate scientist',
    title: { en: 'climate scientist', fr: 'climatologue', de: 'Klimaforscherin', es: 'climatólogo' },
    field: { code: '0532', slug: 'earth-sciences', title: 'Earth sciences' },
    capacity: 'researcher',
    topics: ['climate', 'science'],
    category: SCIENTISTS,
  },
  {
    slug: 'sports-coach',
    code: '3422',
    group: 'Sports coaches, instructors and officials',
    name: 'Sports coach',
    title: { en: 'head coach', fr: 'entraîneur', de: 'Cheftrainer', es: 'entrenador' },
    field: { code: '1014', slug: 'sports', title: 'Sports' },
    capacity: 'athlete_coach',
    topics: ['sports'],
    category: SPORTS,
  },
  {
    slug: 'athlete',
    code: '3421',
    group: 'Athletes and sports players',
    name: 'Athlete',
    title: { en: 'team captain', fr: 'capitaine', de: 'Kapitänin', es: 'capitán' },
    field: { code: '1014', slug: 'sports', title: 'Sports' },
    capacity: 'athlete_coach',
    topics: ['sports', 'health'],
    category: SPORTS,
  },
  {
    slug: 'musician',
    code: '2652',
    group: 'Musicians, singers and composers',
    name: 'Musician',
    title: { en: 'singer-songwriter', fr: 'chanteuse', de: 'Musiker', es: 'cantautora' },
    field: { code: '0215', slug: 'music-performing-arts', title: 'Music and performing arts' },
    capacity: 'creator_entertainer',
    topics: ['culture'],
    category: ARTS,
  },
  {
    slug: 'film-director',
    code: '2654',
    group: 'Film, stage and related directors and producers',
    name: 'Film director',
    title: { en: 'film director', fr: 'réalisatrice', de: 'Regisseur', es: 'directora de cine' },
    field: {
      code: '0211',
      slug: 'audio-visual-media',
      title: 'Audio-visual techniques and media production',
    },
    capacity: 'creator_entertainer',
    topics: ['culture'],
    category: ARTS,
  },
  {
    slug: 'author',
    code: '2641',
    group: 'Authors and related writers',
    name: 'Author',
    title: { en: 'novelist', fr: 'romancier', de: 'Schriftstellerin', es: 'novelista' },
    field: { code: '0232', slug: 'literature-linguistics', title: 'Literature and linguistics' },
    capacity: 'creator_entertainer',
    topics: ['culture'],
    category: ARTS,
  },
  {
    slug: 'chef',
    code: '3434',
    group: 'Chefs',
    name: 'Chef',
    title: { en: 'head chef', fr: 'cheffe cuisinière', de: 'Küchenchef', es: 'jefa de cocina' },
    field: { code: '1013', slug: 'hotel-restaurants-catering', title: 'Hotel, restaurants and catering' },
    capacity: 'practitioner',
    topics: ['food'],
    category: PROFESSIONALS,
  },
  {
    slug: 'lawyer',
    code: '2611',
    group: 'Lawyers',
    name: 'Lawyer',
    title: { en: 'constitutional lawyer', fr: 'avocate', de: 'Rechtsanwalt', es: 'abogada' },
    field: { code: '0421', slug: 'law', title: 'Law' },
    capacity: 'licensed_professional',
    topics: ['politics'],
    category: PROFESSIONALS,
  },
  {
    slug: 'energy-engineer',
    code: '2151',
    group: 'Electrical engineers',
    name: 'Electrical engineer',
    title: { en: 'grid engineer', fr: 'ingénieur réseau', de: 'Netzingenieurin', es: 'ingeniero eléctrico' },
    field: { code: '0713', slug: 'electricity-energy', title: 'Electricity and energy' },
    capacity: 'practitioner',
    topics: ['climate', 'technology'],
    category: PROFESSIONALS,
  },
  {
    slug: 'clergy',
    code: '2636',
    group: 'Religious professionals',
    name: 'Religious professional',
    title: { en: 'parish priest', fr: 'pasteure', de: 'Pfarrer', es: 'sacerdote' },
    field: { code: '0221', slug: 'religion-theology', title: 'Religion and theology' },
    capacity: 'clergy',
    topics: ['culture', 'politics'],
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
