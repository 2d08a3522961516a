import { tokenize } from '../../../processors/mentions/tokenize.ts';
import { AMBIGUOUS } from './ambiguous.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';
import { CALLER_NAMES, FIRST_NAMES, SHOW_TITLE_PARTS } from './names.ts';
import { OCCUPATIONS } from './occupations.ts';
import type { Lang, LanguagePack } from './types.ts';

export const PACKS: Record<Lang, LanguagePack> = { en, fr, de, es };

/** Institutions guests work at when their employer is not a company: `{city}` is filled. */
export const INSTITUTIONS: Record<Lang, string[]> = {
  en: [
    '{city} University',
    'the {city} Institute of Technology',
    '{city} General Hospital',
    'the {city} Policy Institute',
    'the {city} Observatory',
  ],
  fr: ['l’Université de {city}', 'l’Hôpital de {city}', 'l’Observatoire de {city}'],
  de: ['der Universität {city}', 'dem Klinikum {city}', 'dem Institut für Wirtschaftsforschung {city}'],
  es: ['la Universidad de {city}', 'el Hospital de {city}', 'el Observatorio de {city}'],
};

/** Every text of a language pack, slots included (for vocabulary checks). */
export function packTexts(pack: LanguagePack): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  const { percent: _p, money: _m, ...rest } = pack;
  walk(rest);
  return out;
}

/** Every template and fixed text the generator writes into transcripts, titles and descriptions. */
export function allTemplateTexts(): string[] {
  const texts: string[] = [];
  for (const pack of Object.values(PACKS)) texts.push(...packTexts(pack));
  for (const list of Object.values(INSTITUTIONS)) texts.push(...list);
  for (const parts of Object.values(SHOW_TITLE_PARTS)) texts.push(...parts.pre, ...parts.post);
  for (const o of OCCUPATIONS) texts.push(...Object.values(o.title));
  for (const a of AMBIGUOUS) {
    for (const s of a.entitySense) texts.push(...(Array.isArray(s) ? s : [s]));
    texts.push(...a.otherSense);
  }
  return texts;
}

let cached: Set<string> | undefined;

/**
 * Folded words of the dialogue vocabulary, cities, first names and caller names. An alias made
 * of one of these words would match ordinary speech, so the catalog never uses one.
 */
export function vocabularyWords(): Set<string> {
  if (cached) return cached;
  const words = new Set<string>();
  const add = (text: string) => {
    for (const t of tokenize(text.replace(/\{[^}]*\}/g, ' '))) words.add(t.norm);
  };
  for (const t of allTemplateTexts()) add(t);
  for (const pack of Object.values(PACKS)) {
    pack.cities.forEach(add);
    pack.weekdays.forEach(add);
    pack.numberWords.forEach(add);
  }
  for (const list of Object.values(FIRST_NAMES)) list.forEach(add);
  for (const list of Object.values(CALLER_NAMES)) list.forEach(add);
  cached = words;
  return words;
}
