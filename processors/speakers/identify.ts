import type {
  AdReads,
  Entity,
  EpisodePublished,
  Podcast,
  SpeakersIdentified,
  Transcript,
} from '../../schemas/generated/index.ts';
import { CATEGORIES, OCCUPATIONS, TOPIC_FIELDS } from '../../schemas/occupations.ts';
import { adLineSet } from '../mentions/detect.ts';
import type { Gazetteer } from '../mentions/gazetteer.ts';
import { assignSpeakers } from './assign.ts';

/**
 * Speaker identification: maps the diarization labels of one transcript to people and roles.
 *
 * Who speaks under each label is decided by assign.ts from sentence-scoped cues (cues.ts):
 * self-introductions, hand-offs naming the next speaker, people addressed by name, a label that is
 * itself a person's name, and the credits (the podcast's hosts, the episode's people) as priors.
 * Only people who can be in the room are ever assigned — never someone who is only talked about —
 * and an assignment below the minimum score leaves the label unidentified. A call-in ("Maria from
 * Chicago, you're on the air") makes the next speaker AUDIENCE; a label heard only inside ad reads
 * is recorded audio (SOUNDBITE_SPEAKER, no person). Roles come from the credits, the podcast's
 * hosts, or the kind of hand-off; each label carries the assignment's confidence.
 */

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
  const lineCount = new Map<string, number>();
  for (const l of lines) lineCount.set(l.speaker, (lineCount.get(l.speaker) ?? 0) + 1);
  // Labels heard only inside ad reads are recorded audio.
  const adLines = adLineSet(transcript, facts.adReads);
  const onlyInAds = new Set(
    [...lineCount.keys()].filter((l) => lines.every((x) => x.speaker !== l || adLines.has(x.number))),
  );
  const { labels, assigned, callers } = assignSpeakers({
    transcript,
    hosts: facts.podcast?.hosts ?? [],
    credits: facts.episode.people.map((p) => ({
      name: p.name,
      role: CREDIT_ROLES[p.role.toLowerCase()] ?? 'GUEST',
    })),
    gazetteer: deps.gazetteer,
    entity: deps.entity,
    recorded: onlyInAds,
  });

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
        confidence: got.confidence,
      };
    }
    if (callers.has(label)) {
      return {
        label,
        person_id: null,
        name: callers.get(label) ?? null,
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
