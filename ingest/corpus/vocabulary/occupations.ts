import { type Occupation, OCCUPATIONS as REFERENCE, type TopicId } from '../../../schemas/occupations.ts';
import type { Lang } from './types.ts';

/**
 * Occupations of generated people: each reference occupation (schemas/occupations.ts) with the
 * topics its people are booked for and its job titles per language.
 */
export interface OccupationDef extends Occupation {
  title: Record<Lang, string>;
  topics: TopicId[];
}

const BOOKINGS: Record<string, Pick<OccupationDef, 'title' | 'topics'>> = {
  economist: {
    title: { en: 'chief economist', fr: 'économiste en chef', de: 'Chefvolkswirtin', es: 'economista jefe' },
    topics: ['economics', 'markets'],
  },
  'financial-analyst': {
    title: {
      en: 'senior equity analyst',
      fr: 'analyste financier',
      de: 'Finanzanalyst',
      es: 'analista financiera',
    },
    topics: ['markets', 'economics'],
  },
  'chief-executive': {
    title: {
      en: 'chief executive',
      fr: 'directrice générale',
      de: 'Geschäftsführer',
      es: 'consejero delegado',
    },
    topics: ['markets', 'technology'],
  },
  founder: {
    title: {
      en: 'founder and CEO',
      fr: 'fondateur et PDG',
      de: 'Gründerin und Chefin',
      es: 'fundador y director',
    },
    topics: ['technology', 'markets'],
  },
  'software-developer': {
    title: {
      en: 'principal engineer',
      fr: 'ingénieure logiciel',
      de: 'Softwareentwickler',
      es: 'ingeniera de software',
    },
    topics: ['technology'],
  },
  'ai-researcher': {
    title: { en: 'head of research', fr: 'chercheuse en IA', de: 'KI-Forscher', es: 'investigadora de IA' },
    topics: ['technology', 'science'],
  },
  journalist: {
    title: { en: 'senior correspondent', fr: 'journaliste', de: 'Korrespondentin', es: 'periodista' },
    topics: ['politics', 'economics', 'sports', 'culture'],
  },
  'political-scientist': {
    title: {
      en: 'professor of politics',
      fr: 'politologue',
      de: 'Politikwissenschaftlerin',
      es: 'politólogo',
    },
    topics: ['politics'],
  },
  legislator: {
    title: { en: 'senator', fr: 'députée', de: 'Abgeordneter', es: 'diputada' },
    topics: ['politics'],
  },
  physician: {
    title: { en: 'physician', fr: 'médecin généraliste', de: 'Ärztin', es: 'médica de familia' },
    topics: ['health'],
  },
  biologist: {
    title: { en: 'sleep researcher', fr: 'biologiste', de: 'Biologe', es: 'bióloga' },
    topics: ['health', 'science'],
  },
  psychologist: {
    title: { en: 'clinical psychologist', fr: 'psychologue', de: 'Psychologin', es: 'psicólogo' },
    topics: ['health'],
  },
  astronomer: {
    title: { en: 'planetary scientist', fr: 'astrophysicienne', de: 'Astrophysiker', es: 'astrofísica' },
    topics: ['science'],
  },
  'climate-scientist': {
    title: { en: 'climate scientist', fr: 'climatologue', de: 'Klimaforscherin', es: 'climatólogo' },
    topics: ['climate', 'science'],
  },
  'sports-coach': {
    title: { en: 'head coach', fr: 'entraîneur', de: 'Cheftrainer', es: 'entrenador' },
    topics: ['sports'],
  },
  athlete: {
    title: { en: 'team captain', fr: 'capitaine', de: 'Kapitänin', es: 'capitán' },
    topics: ['sports', 'health'],
  },
  musician: {
    title: { en: 'singer-songwriter', fr: 'chanteuse', de: 'Musiker', es: 'cantautora' },
    topics: ['culture'],
  },
  'film-director': {
    title: { en: 'film director', fr: 'réalisatrice', de: 'Regisseur', es: 'directora de cine' },
    topics: ['culture'],
  },
  author: {
    title: { en: 'novelist', fr: 'romancier', de: 'Schriftstellerin', es: 'novelista' },
    topics: ['culture'],
  },
  chef: {
    title: { en: 'head chef', fr: 'cheffe cuisinière', de: 'Küchenchef', es: 'jefa de cocina' },
    topics: ['food'],
  },
  lawyer: {
    title: { en: 'constitutional lawyer', fr: 'avocate', de: 'Rechtsanwalt', es: 'abogada' },
    topics: ['politics'],
  },
  'energy-engineer': {
    title: { en: 'grid engineer', fr: 'ingénieur réseau', de: 'Netzingenieurin', es: 'ingeniero eléctrico' },
    topics: ['climate', 'technology'],
  },
  clergy: {
    title: { en: 'parish priest', fr: 'pasteure', de: 'Pfarrer', es: 'sacerdote' },
    topics: ['culture', 'politics'],
  },
};

export const OCCUPATIONS: OccupationDef[] = REFERENCE.map((o) => {
  const booking = BOOKINGS[o.slug];
  if (!booking) throw new Error(`no job titles and topics for the occupation ${o.slug}`);
  return { ...o, ...booking };
});
