import type { TopicId } from '../../../schemas/occupations.ts';

/**
 * Shapes of the generator's language data. Templates are plain sentences with slots in braces:
 *
 * - entity slots, filled with a catalog entity and recorded as planted mentions:
 *   `{company}`, `{person}`, `{team}`, `{law}`, `{drug}`, `{mission}`, `{product}`, `{film}`,
 *   `{event}`, `{entity}` (any kind); a suffix picks the form: `{company:ticker}`,
 *   `{company:domain}`, `{company:handle}`, `{person:handle}`;
 * - people of the episode: `{host}`, `{hostFirst}`, `{guest}`, `{guestFirst}`, `{title}`,
 *   `{employer}`, `{show}`, `{publisher}`, `{panelists}`, `{first}`, `{corr}`, `{caller}`;
 * - plain values: `{city}`, `{num}`, `{pct}`, `{money}`, `{weekday}`, `{code}`, `{sponsor}`,
 *   `{domain}`, `{headline}`.
 *
 * Every other word is ordinary language: a unit test checks that no template word collides with
 * an entity alias of a generated catalog, so every mention in a transcript is a planted one.
 */
export type Lang = 'en' | 'fr' | 'de' | 'es';

export type { TopicId };

export interface ConceptDef {
  /** Stable id, `topic.name`. */
  id: string;
  /** Short title used for episode titles, segment titles and clips. */
  headline: string;
  /** Ways of saying this idea; lines may carry slots. */
  lines: string[];
  /** Concepts close enough to be partly relevant (grade 1) to a query on this one. */
  related?: string[];
}

export interface TopicDef {
  id: TopicId;
  /** Podcast category slugs this topic belongs to. */
  categories: string[];
  concepts: ConceptDef[];
}

export interface LanguagePack {
  lang: Lang;
  /** BCP-47 tags shows in this language use. */
  locales: string[];
  cities: string[];
  weekdays: string[];
  numberWords: string[];
  percent(value: string): string;
  money(amount: string): string;

  welcome: string[];
  cohostIntro: string[];
  guestIntro: string[];
  guestReply: string[];
  panelIntro: string[];
  panelHandoff: string[];
  correspondentHandoff: string[];
  correspondentOpen: string[];
  correspondentClose: string[];
  soundbiteIntro: string[];
  soundbiteAfter: string[];
  callerIntro: string[];
  callerOpen: string[];
  callerClose: string[];
  banter: string[];
  reactions: string[];
  fillers: string[];
  questions: string[];
  transitions: string[];
  adHostRead: string[];
  adHostReadClose: string[];
  adPreRecorded: string[];
  promo: string[];
  outroGuest: string[];
  outro: string[];

  /** Entity templates: a focus entity is discussed, a passing one only named. */
  focus: { company: string[]; person: string[]; thing: string[] };
  passing: string[];
  /** Episode titles and descriptions: `{headline}`, `{guest}`, `{entity}`. */
  titles: { withGuest: string[]; withEntity: string[]; plain: string[] };
  descriptions: { withGuest: string[]; withEntity: string[]; plain: string[] };
  segmentTitles: Record<
    'INTRO' | 'PERSONAL_BANTER' | 'TRANSITION' | 'AD' | 'OUTRO' | 'INTERVIEW' | 'PROMO',
    string[]
  >;
  /** Clip intros: `{speaker}`, `{headline}`. */
  clipIntros: string[];

  topics: TopicDef[];
}

/** A query of the evaluation set with how its relevant lines are found. */
export interface QueryDef {
  id: string;
  lang: Lang;
  kind: 'keyword' | 'paraphrase' | 'mixed';
  text: string;
  /** keyword: the exact phrase (without quotes) a relevant line contains. */
  phrase?: string;
  /** paraphrase / mixed: the concept whose lines are relevant (grade 2). */
  concept?: string;
}
