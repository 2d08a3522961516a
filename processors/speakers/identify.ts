import type {
  AdReads,
  Entity,
  EpisodePublished,
  Podcast,
  SpeakersIdentified,
  Transcript,
} from '../../schemas/generated/index.ts';
import { CATEGORIES, OCCUPATIONS, TOPIC_FIELDS } from '../../schemas/occupations.ts';
import { foldAccents as fold } from '../../schemas/text-folding.ts';
import { adLineSet } from '../mentions/detect.ts';
import type { Gazetteer } from '../mentions/gazetteer.ts';
import { tokenize } from '../mentions/tokenize.ts';

type Role = SpeakersIdentified['speakers'][number]['role'];

export interface SpeakerFacts {
  episode: Pick<EpisodePublished, 'id' | 'podcast_id' | 'published_at' | 'people' | 'language'>;
  podcast: Pick<Podcast, 'hosts' | 'categories' | 'language'> | null;
  adReads: AdReads['ad_reads'];
}

export interface SpeakerDeps {
  gazetteer: Gazetteer;
  entity(id: string): Pick<Entity, 'id' | 'name' | 'kind' | 'person'> | undefined;
  identifiedAt: number;
}

interface Candidate {
  key: string;
  personId: string | null;
  name: string;
  first: string;
  /** Role from the credits or the podcast's hosts. */
  credited: Role | null;
  /** Role suggested by how the dialogue introduced them. */
  hint: Role | null;
}

const SELF =
  /(?:^|[\s,.!?¡¿])(?:i['’]m|i am|my name is|this is|je suis|je m['’]appelle|ich bin|mein name ist|soy|me llamo)\s*$/iu;
const THANKS = /^\s*[¡]?(?:thanks|thank you|many thanks|merci|danke|vielen dank|gracias|muchas gracias)\b/iu;
const GUEST_HANDOFF =
  /(joining (?:me|us)|my guest|with me in the studio|delighted to welcome|avec moi aujourd|mon invitée?|nous recevons|heute zu gast|mein gast|bei mir im studio|me acompaña|mi invitad[oa]|tenemos con nosotros)/iu;
const CORRESPONDENT_HANDOFF =
  /(correspondent|let['’]s go to|joined by .* live|reporting from|correspondant|on retrouve|en direct de|wir schalten|korrespondent|corresponsal|conectamos con|nos vamos a)/iu;
const SOUNDBITE_HANDOFF =
  /(here['’]s what|take a listen to|this is what .* told|listen to how|écoutons ce qu|voici ce qu|hören wir|so hat sich|escuchemos lo que|esto es lo que)/iu;
const PANEL_LIST =
  /(on the panel|around the table|our panel|autour de la table|sur le plateau|in unserer runde|mit dabei sind|en la mesa|nos acompañan)/iu;
const CALLER =
  /(take a call|caller|on the line|on the air|auditeur|un appel|à l['’]antenne|anrufer|in der leitung|una llamada|al teléfono)/iu;
const CALLER_NAME = /(\p{Lu}\p{Ll}+),? (?:from|in|de|depuis|aus|desde)\s/u;

const CREDIT_ROLES: Record<string, Role> = {
  host: 'HOST',
  'co-host': 'HOST',
  cohost: 'HOST',
  guest: 'GUEST',
  panelist: 'PANELIST',
  correspondent: 'CORRESPONDENT',
  reporter: 'CORRESPONDENT',
};

const CAPACITY_BY_OCCUPATION = new Map(OCCUPATIONS.map((o) => [o.slug, o.capacity]));
const CAPACITY_BY_CODE = new Map(OCCUPATIONS.map((o) => [o.code, o.capacity]));

/** Research fields that count as "in field" for a podcast category. */
function fieldsFor(categories: string[]): Set<string> {
  const out = new Set<string>();
  for (const c of categories)
    for (const t of CATEGORIES[c]?.topics ?? []) for (const f of TOPIC_FIELDS[t]) out.add(f);
  return out;
}

/**
 * Speaker identification: maps the diarization labels of one transcript to people and roles.
 *
 * Candidates are the podcast's hosts (Podcast.hosts), the people the feed credits
 * (EpisodePublished.people) and every person the dialogue names (through the alias automaton).
 * Evidence, from the dialogue:
 * - self-introduction: "I'm Dana Whitfield", "je suis…", "ich bin…", "soy…" → this line's label;
 * - hand-off: "joining me today is…", "let's go to our correspondent…", "here's what … said",
 *   "heute zu Gast ist…" → the next speaker; a first name addressed at the start or end of a
 *   line ("Marcus, what do you make of it?") → the next speaker;
 * - thanks: "Thanks for having me, Dana" → the previous speaker;
 * - a call-in ("Maria from Chicago, you're on the air") → the next speaker is AUDIENCE;
 * - a label heard only inside ad reads is recorded audio (SOUNDBITE_SPEAKER, no person).
 * Votes are resolved greedily, strongest first, one label per person. Labels left over take the
 * remaining host (by line count) or credited person when exactly one is left; otherwise they stay
 * unnamed GUESTs. Roles come from the credits, the podcast's hosts, or the kind of hand-off.
 */
export function identifySpeakers(
  transcript: Transcript,
  facts: SpeakerFacts,
  deps: SpeakerDeps,
): SpeakersIdentified {
  const lines = transcript.lines;
  const labels: string[] = [];
  const lineCount = new Map<string, number>();
  for (const l of lines) {
    if (!lineCount.has(l.speaker)) labels.push(l.speaker);
    lineCount.set(l.speaker, (lineCount.get(l.speaker) ?? 0) + 1);
  }

  // Candidates.
  const candidates = new Map<string, Candidate>();
  const byPerson = new Map<string, Candidate>();
  const addCandidate = (personId: string | null, name: string, credited: Role | null): Candidate => {
    const existing = personId ? byPerson.get(personId) : candidates.get(`name:${fold(name)}`);
    if (existing) {
      if (credited && (!existing.credited || credited === 'HOST')) existing.credited = credited;
      return existing;
    }
    const c: Candidate = {
      key: personId ?? `name:${fold(name)}`,
      personId,
      name,
      first: fold(tokenize(name)[0]?.surface ?? name),
      credited,
      hint: null,
    };
    candidates.set(c.key, c);
    if (personId) byPerson.set(personId, c);
    return c;
  };
  const personIn = (text: string): string | null => {
    for (const m of deps.gazetteer.match(tokenize(text))) {
      for (const e of m.entries) if (deps.entity(e.entityId)?.kind === 'PERSON') return e.entityId;
    }
    return null;
  };
  for (const id of facts.podcast?.hosts ?? []) {
    const e = deps.entity(id);
    if (e) addCandidate(id, e.name, 'HOST');
  }
  for (const p of facts.episode.people) {
    const role = CREDIT_ROLES[p.role.toLowerCase()] ?? 'GUEST';
    const id = personIn(p.name);
    addCandidate(id, id ? deps.entity(id)!.name : p.name, role);
  }

  // Evidence.
  const votes: { label: string; cand: Candidate; weight: number }[] = [];
  const audience = new Map<string, string | null>();
  const nextLabel = (i: number): string | undefined => {
    for (let j = i + 1; j < lines.length; j++)
      if (lines[j]!.speaker !== lines[i]!.speaker) return lines[j]!.speaker;
    return undefined;
  };
  const prevLabel = (i: number): string | undefined => {
    for (let j = i - 1; j >= 0; j--) if (lines[j]!.speaker !== lines[i]!.speaker) return lines[j]!.speaker;
    return undefined;
  };
  const vote = (label: string | undefined, cand: Candidate, weight: number) => {
    if (label) votes.push({ label, cand, weight });
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const text = line.text;
    const tokens = tokenize(text);
    const refs: { cand: Candidate; start: number; end: number }[] = [];
    for (const m of deps.gazetteer.match(tokens)) {
      const person = m.entries.find((e) => deps.entity(e.entityId)?.kind === 'PERSON');
      if (!person) continue;
      const e = deps.entity(person.entityId)!;
      const cand = byPerson.get(e.id) ?? addCandidate(e.id, e.name, null);
      refs.push({ cand, start: tokens[m.start]!.start, end: tokens[m.end - 1]!.end });
    }
    // First names of people already in play (hosts, credited, introduced), written capitalised.
    for (const t of tokens) {
      if (refs.some((r) => t.start >= r.start && t.end <= r.end)) continue;
      const first = t.surface[0];
      if (!first || first === first.toLowerCase()) continue;
      const matching = [...candidates.values()].filter((c) => c.first === t.norm && (c.credited || c.hint));
      if (matching.length === 1) refs.push({ cand: matching[0]!, start: t.start, end: t.end });
    }

    const callerName = refs.length === 0 && CALLER.test(text) ? CALLER_NAME.exec(text) : null;
    if (callerName) {
      const next = nextLabel(i);
      if (next) audience.set(next, callerName[1] ?? null);
    }
    if (refs.length === 0) continue;
    refs.sort((a, b) => a.start - b.start);

    if (refs.length >= 2 && PANEL_LIST.test(text)) {
      for (const r of refs) r.cand.hint ??= 'PANELIST';
      continue;
    }
    const thanks = THANKS.test(text);
    for (const r of refs) {
      const before = text.slice(0, r.start);
      const after = text.slice(r.end);
      if (SELF.test(before) || /^\s+(?:here|ici|hier|aquí)\b/iu.test(after)) {
        vote(line.speaker, r.cand, 3);
      } else if (thanks) {
        vote(prevLabel(i), r.cand, 2);
      } else if (SOUNDBITE_HANDOFF.test(text)) {
        r.cand.hint ??= 'SOUNDBITE_SPEAKER';
        vote(nextLabel(i), r.cand, 2);
      } else if (GUEST_HANDOFF.test(before)) {
        r.cand.hint ??= 'GUEST';
        vote(nextLabel(i), r.cand, 2);
      } else if (CORRESPONDENT_HANDOFF.test(text)) {
        r.cand.hint ??= 'CORRESPONDENT';
        vote(nextLabel(i), r.cand, 2);
      } else if (/^[\s¿¡]*$/u.test(before) && /^\s*,/u.test(after)) {
        vote(nextLabel(i), r.cand, 1.5);
      } else if (/^\s*[?.!]?\s*$/u.test(after) && /,\s*$/u.test(before)) {
        vote(nextLabel(i), r.cand, 1.5);
      }
    }
  }

  // Resolve: strongest evidence first, one label per person and one person per label.
  const tally = new Map<string, { label: string; cand: Candidate; weight: number }>();
  for (const v of votes) {
    const key = `${v.label}|${v.cand.key}`;
    const t = tally.get(key) ?? { label: v.label, cand: v.cand, weight: 0 };
    t.weight += v.weight;
    tally.set(key, t);
  }
  const assigned = new Map<string, { cand: Candidate; weight: number }>();
  const taken = new Set<string>();
  for (const t of [...tally.values()].sort((a, b) => b.weight - a.weight || a.label.localeCompare(b.label))) {
    if (assigned.has(t.label) || taken.has(t.cand.key) || audience.has(t.label)) continue;
    assigned.set(t.label, { cand: t.cand, weight: t.weight });
    taken.add(t.cand.key);
  }

  // Labels heard only inside ad reads are recorded audio.
  const adLines = adLineSet(transcript, facts.adReads);
  const onlyInAds = new Set(
    labels.filter((l) => lines.every((x) => x.speaker !== l || adLines.has(x.number))),
  );

  // Leftovers: a remaining host takes the busiest remaining label; a single remaining credited
  // person takes a single remaining label.
  const open = () => labels.filter((l) => !assigned.has(l) && !audience.has(l) && !onlyInAds.has(l));
  const remaining = (role: Role | null) =>
    [...candidates.values()].filter(
      (c) =>
        !taken.has(c.key) &&
        (role === null
          ? c.credited !== null || (c.hint !== null && c.hint !== 'SOUNDBITE_SPEAKER')
          : c.credited === role),
    );
  for (const host of remaining('HOST')) {
    const left = open().sort((a, b) => lineCount.get(b)! - lineCount.get(a)!);
    if (left.length === 0) break;
    assigned.set(left[0]!, { cand: host, weight: 0.5 });
    taken.add(host.key);
  }
  const creditedLeft = remaining(null);
  if (creditedLeft.length === 1 && open().length === 1) {
    assigned.set(open()[0]!, { cand: creditedLeft[0]!, weight: 0.5 });
    taken.add(creditedLeft[0]!.key);
  }

  const fields = fieldsFor(facts.podcast?.categories.map((c) => c.slug) ?? []);
  const speakers: SpeakersIdentified['speakers'] = labels.map((label) => {
    const count = lineCount.get(label)!;
    const got = assigned.get(label);
    if (got) {
      const c = got.cand;
      const role: Role = c.credited ?? c.hint ?? 'GUEST';
      const person = c.personId ? deps.entity(c.personId)?.person : null;
      const occupation = person?.occupation;
      const capacity = occupation
        ? (CAPACITY_BY_OCCUPATION.get(occupation.slug) ?? CAPACITY_BY_CODE.get(occupation.code) ?? null)
        : null;
      const inField = person?.field && fields.size > 0 ? fields.has(person.field.slug) : null;
      return {
        label,
        person_id: c.personId,
        name: c.name,
        role,
        line_count: count,
        capacity,
        in_field: inField,
        confidence: Math.round(Math.min(0.99, 0.5 + got.weight * 0.1) * 100) / 100,
      };
    }
    if (audience.has(label)) {
      return {
        label,
        person_id: null,
        name: audience.get(label) ?? null,
        role: 'AUDIENCE' as const,
        line_count: count,
        capacity: 'layperson',
        in_field: null,
        confidence: 0.8,
      };
    }
    const recorded = onlyInAds.has(label);
    return {
      label,
      person_id: null,
      name: null,
      role: recorded ? ('SOUNDBITE_SPEAKER' as const) : ('GUEST' as const),
      line_count: count,
      capacity: null,
      in_field: null,
      confidence: recorded ? 0.7 : 0.3,
    };
  });

  return {
    episode_id: transcript.episode_id,
    podcast_id: facts.episode.podcast_id,
    published_at: facts.episode.published_at,
    language: transcript.language,
    speakers,
    identified_at: deps.identifiedAt,
  };
}
