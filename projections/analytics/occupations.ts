import { slug } from '../../schemas/text-folding.ts';

/**
 * How `guest_occupation` terms are matched. A person's occupation is stored with one
 * classification code (ISCO-08 or SOC 2018), a slug, a title and a group. A term matches a person
 * when it equals (case-insensitively) the code, slug, title or group, or when it names the same
 * occupation another way: the other system's code (the crosswalk below) or an everyday name.
 */
const SOC_TO_SLUG: Record<string, string[]> = {
  '19-3011': ['economist'],
  '13-2051': ['financial-analyst'],
  '11-1011': ['chief-executive', 'founder'],
  '15-1252': ['software-developer'],
  '15-1221': ['ai-researcher'],
  '27-3023': ['journalist'],
  '19-3094': ['political-scientist'],
  '11-1031': ['legislator'],
  '29-1215': ['physician'],
  '29-1229': ['physician'],
  '19-1029': ['biologist'],
  '19-3039': ['psychologist'],
  '19-2011': ['astronomer'],
  '19-2021': ['climate-scientist'],
  '27-2022': ['sports-coach'],
  '27-2021': ['athlete'],
  '27-2042': ['musician'],
  '27-2012': ['film-director'],
  '27-3043': ['author'],
  '35-1011': ['chef'],
  '23-1011': ['lawyer'],
  '17-2071': ['energy-engineer'],
  '21-2011': ['clergy'],
};

const EVERYDAY: Record<string, string[]> = {
  doctor: ['physician'],
  gp: ['physician'],
  'medical-doctor': ['physician'],
  ceo: ['chief-executive'],
  executive: ['chief-executive', 'founder'],
  entrepreneur: ['founder'],
  programmer: ['software-developer'],
  coder: ['software-developer'],
  developer: ['software-developer'],
  'software-engineer': ['software-developer'],
  reporter: ['journalist'],
  correspondent: ['journalist'],
  politician: ['legislator'],
  lawmaker: ['legislator'],
  senator: ['legislator'],
  attorney: ['lawyer'],
  writer: ['author'],
  novelist: ['author'],
  coach: ['sports-coach'],
  singer: ['musician'],
  composer: ['musician'],
  filmmaker: ['film-director'],
  cook: ['chef'],
  priest: ['clergy'],
  pastor: ['clergy'],
  rabbi: ['clergy'],
  imam: ['clergy'],
  therapist: ['psychologist'],
  analyst: ['financial-analyst'],
  engineer: ['energy-engineer', 'software-developer'],
};

/** The term in lower case, and every occupation slug it names through the crosswalk or everyday names. */
export function occupationTerm(term: string): { text: string; slugs: string[] } {
  const text = term.trim().toLowerCase();
  const key = slug(term);
  const slugs = new Set<string>([key]);
  for (const s of SOC_TO_SLUG[text] ?? []) slugs.add(s);
  for (const s of EVERYDAY[key] ?? []) slugs.add(s);
  return { text, slugs: [...slugs] };
}
