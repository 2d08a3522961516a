import { tokenize } from '../../../processors/mentions/tokenize.ts';
import { foldAccents as fold } from '../../../schemas/text-folding.ts';
import type { Lang, QueryDef } from './types.ts';

/**
 * The evaluation queries the generator writes ground truth for:
 *
 * - `keyword`: an exact phrase; relevant lines contain it (grade 2);
 * - `paraphrase`: a query in other words than the lines that answer it; relevant lines express
 *   the concept (grade 2) and share no content word with the query (a unit test checks every
 *   line of the concept), so only search by meaning finds them;
 * - `mixed`: some relevant lines share words with the query and some do not (grade 2 for the
 *   concept's lines, grade 1 for lines of related concepts), where hybrid search should win.
 */
export const QUERIES: QueryDef[] = [
  {
    id: 'p-rate-hike',
    lang: 'en',
    kind: 'paraphrase',
    text: 'central bank raising interest rates',
    concept: 'economics.rate-hike',
  },
  {
    id: 'p-inflation',
    lang: 'en',
    kind: 'paraphrase',
    text: 'rising cost of living',
    concept: 'economics.inflation',
  },
  {
    id: 'p-recession',
    lang: 'en',
    kind: 'paraphrase',
    text: 'worries about an economic slowdown',
    concept: 'economics.recession',
  },
  {
    id: 'p-housing',
    lang: 'en',
    kind: 'paraphrase',
    text: 'property too expensive for young families',
    concept: 'economics.housing',
  },
  {
    id: 'p-layoffs',
    lang: 'en',
    kind: 'paraphrase',
    text: 'firms cutting staff',
    concept: 'markets.layoffs',
  },
  {
    id: 'p-earnings',
    lang: 'en',
    kind: 'paraphrase',
    text: 'company profits exceeded expectations',
    concept: 'markets.earnings',
  },
  {
    id: 'p-ai',
    lang: 'en',
    kind: 'paraphrase',
    text: 'artificial intelligence chatbots',
    concept: 'technology.ai',
  },
  {
    id: 'p-breach',
    lang: 'en',
    kind: 'paraphrase',
    text: 'hackers stole personal data',
    concept: 'technology.breach',
  },
  {
    id: 'p-transfer',
    lang: 'en',
    kind: 'paraphrase',
    text: 'athlete moving to a new team',
    concept: 'sports.transfer',
  },
  {
    id: 'p-injury',
    lang: 'en',
    kind: 'paraphrase',
    text: 'player hurt and out for the season',
    concept: 'sports.injury',
  },
  {
    id: 'p-polls',
    lang: 'en',
    kind: 'paraphrase',
    text: 'who is winning the presidential race',
    concept: 'politics.polls',
  },
  {
    id: 'p-sleep',
    lang: 'en',
    kind: 'paraphrase',
    text: 'getting enough rest at night',
    concept: 'health.sleep',
  },
  {
    id: 'p-landing',
    lang: 'en',
    kind: 'paraphrase',
    text: 'spacecraft touching down on another planet',
    concept: 'science.landing',
  },
  {
    id: 'p-heat',
    lang: 'en',
    kind: 'paraphrase',
    text: 'extreme temperatures this summer',
    concept: 'climate.heat',
  },
  {
    id: 'p-boxoffice',
    lang: 'en',
    kind: 'paraphrase',
    text: 'movie did well at the cinema',
    concept: 'culture.boxoffice',
  },
  {
    id: 'p-rate-hike-fr',
    lang: 'fr',
    kind: 'paraphrase',
    text: 'la banque centrale augmente les taux',
    concept: 'economics.rate-hike.fr',
  },
  {
    id: 'p-rate-hike-de',
    lang: 'de',
    kind: 'paraphrase',
    text: 'Notenbank erhöht die Leitzinsen',
    concept: 'economics.rate-hike.de',
  },
  {
    id: 'p-rate-hike-es',
    lang: 'es',
    kind: 'paraphrase',
    text: 'el banco central sube los tipos de interés',
    concept: 'economics.rate-hike.es',
  },

  { id: 'k-quarter-point', lang: 'en', kind: 'keyword', text: '"quarter point"', phrase: 'quarter point' },
  { id: 'k-basis-points', lang: 'en', kind: 'keyword', text: '"basis points"', phrase: 'basis points' },
  { id: 'k-yield-curve', lang: 'en', kind: 'keyword', text: '"yield curve"', phrase: 'yield curve' },
  { id: 'k-jobs-report', lang: 'en', kind: 'keyword', text: '"jobs report"', phrase: 'jobs report' },
  { id: 'k-swing-states', lang: 'en', kind: 'keyword', text: '"swing states"', phrase: 'swing states' },
  { id: 'k-phishing', lang: 'en', kind: 'keyword', text: '"phishing email"', phrase: 'phishing email' },
  { id: 'k-folding-screen', lang: 'en', kind: 'keyword', text: '"folding screen"', phrase: 'folding screen' },
  { id: 'k-draft-picks', lang: 'en', kind: 'keyword', text: '"draft picks"', phrase: 'draft picks' },
  {
    id: 'k-phase-three',
    lang: 'en',
    kind: 'keyword',
    text: '"phase three trial"',
    phrase: 'phase three trial',
  },
  {
    id: 'k-opening-weekend',
    lang: 'en',
    kind: 'keyword',
    text: '"opening weekend"',
    phrase: 'opening weekend',
  },
  { id: 'k-ice-sheet', lang: 'en', kind: 'keyword', text: '"ice sheet"', phrase: 'ice sheet' },
  { id: 'k-box-office', lang: 'en', kind: 'keyword', text: '"box office"', phrase: 'box office' },
  { id: 'k-sourdough', lang: 'en', kind: 'keyword', text: '"sourdough"', phrase: 'sourdough' },
  {
    id: 'k-politique-monetaire',
    lang: 'fr',
    kind: 'keyword',
    text: '"politique monétaire"',
    phrase: 'politique monétaire',
  },
  { id: 'k-kreuzband', lang: 'de', kind: 'keyword', text: '"Kreuzband"', phrase: 'Kreuzband' },
  {
    id: 'k-ligamento',
    lang: 'es',
    kind: 'keyword',
    text: '"ligamento cruzado"',
    phrase: 'ligamento cruzado',
  },

  {
    id: 'm-rate-hike',
    lang: 'en',
    kind: 'mixed',
    text: 'Fed hike and mortgages',
    concept: 'economics.rate-hike',
  },
  { id: 'm-layoffs', lang: 'en', kind: 'mixed', text: 'tech sector job losses', concept: 'markets.layoffs' },
  { id: 'm-ipo', lang: 'en', kind: 'mixed', text: 'IPO debut on the stock market', concept: 'markets.ipo' },
  {
    id: 'm-chips',
    lang: 'en',
    kind: 'mixed',
    text: 'chip shortage hurting carmakers',
    concept: 'technology.chips',
  },
  {
    id: 'm-breach',
    lang: 'en',
    kind: 'mixed',
    text: 'data breach exposed passwords',
    concept: 'technology.breach',
  },
  { id: 'm-coach', lang: 'en', kind: 'mixed', text: 'manager fired after losses', concept: 'sports.coach' },
  {
    id: 'm-summit',
    lang: 'en',
    kind: 'mixed',
    text: 'ceasefire talks between leaders',
    concept: 'politics.summit',
  },
  { id: 'm-trial', lang: 'en', kind: 'mixed', text: 'new drug trial results', concept: 'health.trial' },
  { id: 'm-solar', lang: 'en', kind: 'mixed', text: 'solar panels and wind farms', concept: 'climate.solar' },
  { id: 'm-music', lang: 'en', kind: 'mixed', text: 'album tour tickets sold out', concept: 'culture.music' },
];

const STOPWORDS: Record<Lang, Set<string>> = {
  en: new Set(
    'a an the of to in on for and or is are was were be been it its this that with at by from as into who what how at no not'.split(
      ' ',
    ),
  ),
  fr: new Set('la le les de du des un une et à a en est sont pour par sur au aux'.split(' ')),
  de: new Set('die der das den dem des ein eine und zu im in ist sind für mit'.split(' ')),
  es: new Set('el la los las de del un una y a en es son por para con'.split(' ')),
};

/** Content words of a text, crudely stemmed (first 5 letters after folding). */
export function contentStems(text: string, lang: Lang): Set<string> {
  const out = new Set<string>();
  for (const t of tokenize(text.replace(/\{[^}]*\}/g, ' '))) {
    if (STOPWORDS[lang].has(t.norm)) continue;
    let w = t.norm.replace(/['’]/g, '');
    w = w.replace(/(ing|ed|es|s|e)$/, '');
    out.add(w.slice(0, 5));
  }
  return out;
}

/** Padded, folded, punctuation-free text for exact phrase tests. */
export function phraseForm(text: string): string {
  return ` ${tokenize(text)
    .map((t) => fold(t.surface))
    .join(' ')} `;
}
