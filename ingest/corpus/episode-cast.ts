import type { SpeakerRole } from '../../schemas/event-enums.ts';
import type { Catalog, GenCompany, GenPerson, GenPodcast, GenThing } from './catalog.ts';
import type { Rng } from './rng.ts';
import type { AmbiguousDef } from './vocabulary/ambiguous.ts';
import { CALLER_NAMES } from './vocabulary/names.ts';
import type { TopicDef, TopicId } from './vocabulary/types.ts';

/** Who speaks in an episode, and which entities it names: discussed, in passing, as sponsors. */

export interface Participant {
  key: string;
  role: SpeakerRole;
  person: GenPerson | null;
  /** Name when known but not a catalog person (callers). */
  name: string | null;
}

export type AnyEntity =
  | { type: 'company'; c: GenCompany }
  | { type: 'person'; p: GenPerson }
  | { type: 'thing'; t: GenThing };

export function entityId(e: AnyEntity): string {
  return e.type === 'company' ? e.c.entity.id : e.type === 'person' ? e.p.entity.id : e.t.entity.id;
}

export function ambiguousOf(e: AnyEntity): AmbiguousDef | null {
  return e.type === 'company' ? e.c.ambiguous : e.type === 'thing' ? e.t.ambiguous : null;
}

/** The speakers of one episode, by the part they play. */
export interface Cast {
  hosts: Participant[];
  guest: Participant | null;
  panel: Participant[];
  corr: Participant | null;
  soundbite: Participant | null;
  caller: Participant | null;
  /** The voice of pre-recorded ads. */
  adVoice: Participant;
}

/** Who discusses: the hosts, the guest, the panel; the lead host (who opens and closes) and their first name. */
export function discussants(cast: Cast): { everyone: Participant[]; lead: Participant; leadFirst: string } {
  const { hosts, guest, panel } = cast;
  const lead = hosts[0]!;
  return { everyone: [...hosts, ...(guest ? [guest] : []), ...panel], lead, leadFirst: lead.person!.first };
}

/** The speakers of an episode of `show` on `topic`, by its format; no two share a first name. */
export function castEpisode(rng: Rng, show: GenPodcast, catalog: Catalog, topic: TopicDef): Cast {
  const lang = show.lang;
  const hosts: Participant[] = show.hosts.map((p, i) => ({
    key: `host${i}`,
    role: 'HOST',
    person: p,
    name: null,
  }));
  const usedFirst = new Set(show.hosts.map((h) => h.first));
  const pickPeople = (pool: GenPerson[], n: number) => {
    const out: GenPerson[] = [];
    for (const p of rng.shuffle([...pool])) {
      if (out.length >= n) break;
      if (usedFirst.has(p.first)) continue;
      usedFirst.add(p.first);
      out.push(p);
    }
    return out;
  };
  let guest: Participant | null = null;
  let panel: Participant[] = [];
  let corr: Participant | null = null;
  if (show.format === 'interview' || (show.format === 'conversation' && rng.chance(0.2))) {
    const g = pickPeople(show.guests, 1)[0];
    if (g) guest = { key: 'guest', role: 'GUEST', person: g, name: null };
  } else if (show.format === 'panel') {
    panel = pickPeople(show.guests, rng.int(2, 3)).map((p, i) => ({
      key: `panel${i}`,
      role: 'PANELIST' as const,
      person: p,
      name: null,
    }));
  } else if (show.format === 'news' && show.correspondents.length > 0 && rng.chance(0.75)) {
    const c = pickPeople(show.correspondents, 1)[0];
    if (c) corr = { key: 'corr', role: 'CORRESPONDENT', person: c, name: null };
  }
  const figures = catalog.publicFigures.filter(
    (p) => p.lang === lang && p.occupation.topics.includes(topic.id),
  );
  let soundbite: Participant | null = null;
  const soundbiteChance =
    show.format === 'news' ? 0.7 : ['politics', 'markets', 'sports'].includes(topic.id) ? 0.3 : 0.1;
  if (figures.length > 0 && rng.chance(soundbiteChance)) {
    const f = pickPeople(figures, 1)[0];
    if (f) soundbite = { key: 'soundbite', role: 'SOUNDBITE_SPEAKER', person: f, name: null };
  }
  let caller: Participant | null = null;
  if (show.callIn && rng.chance(0.6)) {
    caller = { key: 'caller', role: 'AUDIENCE', person: null, name: rng.pick(CALLER_NAMES[lang]) };
  }
  const adVoice: Participant = { key: 'advoice', role: 'SOUNDBITE_SPEAKER', person: null, name: null };
  return { hosts, guest, panel, corr, soundbite, caller, adVoice };
}

/** The entities an episode names: discussed (focus), named once or twice (passing), sponsors. */
export interface EpisodeEntities {
  focus: AnyEntity[];
  passing: AnyEntity[];
  sponsors: GenCompany[];
}

/** The entities of an episode on `topic` with `cast`: none of them is a speaker of it. */
export function chooseEntities(
  rng: Rng,
  catalog: Catalog,
  lang: string,
  topic: TopicDef,
  cast: Cast,
): EpisodeEntities {
  const focus: AnyEntity[] = [];
  const passing: AnyEntity[] = [];
  const exclude = new Set(
    [...cast.hosts, cast.guest, ...cast.panel, cast.corr, cast.soundbite]
      .filter((p): p is Participant => !!p)
      .map((p) => p.person!.entity.id),
  );

  const ambiguousHere = lang === 'en' ? ambiguousFor(catalog, topic.id) : [];
  const focusCount = rng.int(1, 2);
  if (ambiguousHere.length > 0 && rng.chance(0.35)) focus.push(rng.pick(ambiguousHere));
  const pool = topicPool(catalog, lang, topic.id, exclude);
  for (const e of rng.shuffle([...pool])) {
    if (focus.length >= focusCount) break;
    if (!focus.some((f) => entityId(f) === entityId(e))) focus.push(e);
  }
  const taken = new Set([...exclude, ...focus.map(entityId)]);
  const everything: AnyEntity[] = [
    ...catalog.companies.map((c) => ({ type: 'company' as const, c })),
    ...catalog.things.map((t) => ({ type: 'thing' as const, t })),
    ...catalog.publicFigures.filter((p) => p.lang === lang).map((p) => ({ type: 'person' as const, p })),
  ];
  const passingCount = rng.int(2, 4);
  for (let k = 0; k < passingCount * 3 && passing.length < passingCount; k++) {
    const e = rng.pick(everything);
    if (!taken.has(entityId(e))) {
      taken.add(entityId(e));
      passing.push(e);
    }
  }
  if (lang === 'en' && rng.chance(0.25)) {
    const a = rng.pick([
      ...catalog.ambiguousCompanies.map((c) => ({ type: 'company' as const, c })),
      ...catalog.ambiguousThings.map((t) => ({ type: 'thing' as const, t })),
    ]);
    if (!taken.has(entityId(a))) {
      taken.add(entityId(a));
      passing.push(a);
    }
  }
  const sponsorPool = catalog.companies.filter(
    (c) =>
      !taken.has(c.entity.id) &&
      ['consumer', 'finance', 'technology', 'transport', 'health'].includes(c.sector?.slug ?? ''),
  );
  const sponsors = rng.sample(sponsorPool, 2);
  return { focus, passing, sponsors };
}

function ambiguousFor(catalog: Catalog, topic: string): AnyEntity[] {
  return [
    ...catalog.ambiguousCompanies
      .filter((c) => c.topics.includes(topic as never))
      .map((c) => ({ type: 'company' as const, c })),
    ...catalog.ambiguousThings
      .filter((t) => t.topics.includes(topic as never))
      .map((t) => ({ type: 'thing' as const, t })),
  ];
}

function topicPool(catalog: Catalog, lang: string, topic: TopicId, exclude: Set<string>): AnyEntity[] {
  return [
    ...catalog.companies
      .filter((c) => c.topics.includes(topic))
      .map((c) => ({ type: 'company' as const, c })),
    ...catalog.things.filter((t) => t.topics.includes(topic)).map((t) => ({ type: 'thing' as const, t })),
    ...catalog.publicFigures
      .filter((p) => p.lang === lang && p.occupation.topics.includes(topic) && !exclude.has(p.entity.id))
      .map((p) => ({ type: 'person' as const, p })),
  ].filter((e) => !exclude.has(entityId(e)));
}
