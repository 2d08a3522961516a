import { detectMentions, type EpisodeFacts, episodeFacts } from '../../processors/mentions/detect.ts';
import { Gazetteer } from '../../processors/mentions/gazetteer.ts';
import { identifySpeakers } from '../../processors/speakers/identify.ts';
import type {
  AdReads,
  Entity,
  EpisodePublished,
  Podcast,
  Transcript,
} from '../../schemas/generated/index.ts';
import type { EntityRelevanceTruth, PlantedMention, SpeakerTruth } from './episode.ts';
import { GROUND_TRUTH_FILES, RECORD_FILES } from './generate.ts';
import { corpusFile, readAll, readRecords } from './read-corpus.ts';

/**
 * Scores the mention detector and the speaker identifier against a generated corpus's ground
 * truth. Mentions are compared as (episode, line, entity) occurrences; the ambiguous names are
 * also scored on their own, with the number of ordinary-word occurrences ("apple pie") the
 * detector wrongly took for the entity.
 */
export interface Prf {
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  f1: number;
}

export interface MentionEvaluation {
  episodes: number;
  lines: number;
  entities: number;
  aliases: number;
  overall: Prf;
  ambiguous: Prf & { otherSenseOccurrences: number; otherSenseTaken: number };
  relevance: { compared: number; agree: number; accuracy: number };
  detectSeconds: number;
  linesPerSecond: number;
}

export interface SpeakerEvaluation {
  episodes: number;
  labels: number;
  /** Person and role both right. */
  correct: number;
  accuracy: number;
  roleAccuracy: number;
  personAccuracy: number;
  byRole: Record<string, { labels: number; correct: number }>;
  /** Episodes where a host speaks, and where every speaking host was given their label. */
  hostEpisodes: number;
  hostIdentified: number;
  /** Credited guests, panelists and correspondents who speak, and those given their label. */
  creditedGuests: number;
  creditedIdentified: number;
  /** People given a label in an episode where they do not speak. */
  neverSpoke: number;
}

function prf(tp: number, fp: number, fn: number): Prf {
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { tp, fp, fn, precision, recall, f1 };
}

export interface CorpusContext {
  gazetteer: Gazetteer;
  entities: Map<string, Entity>;
  podcasts: Map<string, Podcast>;
  episodes: Map<string, EpisodePublished>;
  adReads: Map<string, AdReads['ad_reads']>;
}

export async function loadCorpusContext(dir: string): Promise<CorpusContext> {
  const gazetteer = new Gazetteer();
  const entities = new Map<string, Entity>();
  for await (const e of readRecords<Entity>(corpusFile(dir, RECORD_FILES.entity))) {
    entities.set(e.id, e);
    gazetteer.add(e);
  }
  const podcasts = new Map(
    (await readAll<Podcast>(corpusFile(dir, RECORD_FILES.podcast))).map((p) => [p.id, p]),
  );
  const episodes = new Map(
    (await readAll<EpisodePublished>(corpusFile(dir, RECORD_FILES.episode))).map((e) => [e.id, e]),
  );
  const adReads = new Map(
    (await readAll<AdReads>(corpusFile(dir, RECORD_FILES.ad_reads))).map((a) => [a.episode_id, a.ad_reads]),
  );
  return { gazetteer, entities, podcasts, episodes, adReads };
}

export function factsFor(ctx: CorpusContext, episodeId: string): EpisodeFacts | undefined {
  const episode = ctx.episodes.get(episodeId);
  if (!episode) return undefined;
  return episodeFacts(episode, ctx.podcasts.get(episode.podcast_id), ctx.adReads.get(episodeId) ?? []);
}

export async function evaluateMentions(dir: string, context?: CorpusContext): Promise<MentionEvaluation> {
  const ctx = context ?? (await loadCorpusContext(dir));
  const ambiguousIds = new Set(
    [...ctx.entities.values()].filter((e) => e.context_terms.length > 0).map((e) => e.id),
  );
  const truth = new Map<string, PlantedMention[]>();
  for await (const m of readRecords<PlantedMention>(corpusFile(dir, GROUND_TRUTH_FILES.mentions))) {
    let list = truth.get(m.episode_id);
    if (!list) {
      list = [];
      truth.set(m.episode_id, list);
    }
    list.push(m);
  }
  const relevanceTruth = new Map<string, EntityRelevanceTruth[]>();
  for await (const r of readRecords<{ episode_id: string; entities: EntityRelevanceTruth[] }>(
    corpusFile(dir, GROUND_TRUTH_FILES.episodeEntities),
  )) {
    relevanceTruth.set(r.episode_id, r.entities);
  }

  let tp = 0;
  let fp = 0;
  let fn = 0;
  let atp = 0;
  let afp = 0;
  let afn = 0;
  let otherOccurrences = 0;
  let otherTaken = 0;
  let compared = 0;
  let agree = 0;
  let lines = 0;
  let episodes = 0;
  let detectMs = 0;
  for await (const transcript of readRecords<Transcript>(corpusFile(dir, RECORD_FILES.transcript))) {
    const facts = factsFor(ctx, transcript.episode_id);
    if (!facts) continue;
    const t0 = performance.now();
    const detected = detectMentions(transcript, facts, ctx.gazetteer, 0);
    detectMs += performance.now() - t0;
    episodes++;
    lines += transcript.lines.length;
    const expected = new Map<string, number>();
    const taken = new Set<string>();
    for (const m of truth.get(transcript.episode_id) ?? []) {
      if (m.sense === 'entity') {
        const key = `${m.line_number}|${m.entity_id}`;
        expected.set(key, (expected.get(key) ?? 0) + 1);
      } else {
        otherOccurrences++;
        taken.add(`${m.line_number}|${m.entity_id}|${m.char_start}`);
      }
    }
    const predicted = new Map<string, number>();
    for (const m of detected.mentions) {
      const key = `${m.line_number}|${m.entity_id}`;
      predicted.set(key, (predicted.get(key) ?? 0) + 1);
      if (taken.has(`${m.line_number}|${m.entity_id}|${m.char_start}`)) otherTaken++;
    }
    for (const key of new Set([...expected.keys(), ...predicted.keys()])) {
      const e = expected.get(key) ?? 0;
      const p = predicted.get(key) ?? 0;
      const hit = Math.min(e, p);
      tp += hit;
      fp += p - hit;
      fn += e - hit;
      if (ambiguousIds.has(key.slice(key.indexOf('|') + 1))) {
        atp += hit;
        afp += p - hit;
        afn += e - hit;
      }
    }
    const truthRel = new Map(
      (relevanceTruth.get(transcript.episode_id) ?? []).map((r) => [r.entity_id, r.relevance]),
    );
    for (const e of detected.entities) {
      const want = truthRel.get(e.entity_id);
      if (!want) continue;
      compared++;
      if (want === e.relevance) agree++;
    }
  }
  const detectSeconds = detectMs / 1000;
  return {
    episodes,
    lines,
    entities: ctx.gazetteer.entityCount,
    aliases: ctx.gazetteer.size,
    overall: prf(tp, fp, fn),
    ambiguous: {
      ...prf(atp, afp, afn),
      otherSenseOccurrences: otherOccurrences,
      otherSenseTaken: otherTaken,
    },
    relevance: { compared, agree, accuracy: compared === 0 ? 1 : agree / compared },
    detectSeconds,
    linesPerSecond: detectSeconds > 0 ? lines / detectSeconds : 0,
  };
}

export async function evaluateSpeakers(dir: string, context?: CorpusContext): Promise<SpeakerEvaluation> {
  const ctx = context ?? (await loadCorpusContext(dir));
  const truth = new Map<string, SpeakerTruth[]>();
  for await (const r of readRecords<{ episode_id: string; speakers: SpeakerTruth[] }>(
    corpusFile(dir, GROUND_TRUTH_FILES.speakers),
  )) {
    truth.set(r.episode_id, r.speakers);
  }
  let labels = 0;
  let correct = 0;
  let roleRight = 0;
  let personRight = 0;
  let episodes = 0;
  const names = new Map(
    [...ctx.entities.values()].filter((e) => e.kind === 'PERSON').map((e) => [e.name, e.id]),
  );
  let hostEpisodes = 0;
  let hostIdentified = 0;
  let creditedGuests = 0;
  let creditedIdentified = 0;
  let neverSpoke = 0;
  const byRole: SpeakerEvaluation['byRole'] = {};
  for await (const transcript of readRecords<Transcript>(corpusFile(dir, RECORD_FILES.transcript))) {
    const episode = ctx.episodes.get(transcript.episode_id);
    if (!episode) continue;
    const podcast = ctx.podcasts.get(episode.podcast_id) ?? null;
    const result = identifySpeakers(
      transcript,
      { episode, podcast, adReads: ctx.adReads.get(episode.id) ?? [] },
      {
        gazetteer: ctx.gazetteer,
        entity: (id) => ctx.entities.get(id),
        identifiedAt: 0,
      },
    );
    episodes++;
    const got = new Map(result.speakers.map((s) => [s.label, s]));
    const wanted = truth.get(transcript.episode_id) ?? [];
    const spoke = new Set(wanted.map((w) => w.person_id).filter((id) => id !== null));
    for (const s of result.speakers) if (s.person_id && !spoke.has(s.person_id)) neverSpoke++;
    const hosts = wanted.filter((w) => w.role === 'HOST' && w.person_id);
    if (hosts.length > 0) {
      hostEpisodes++;
      if (hosts.every((h) => got.get(h.label)?.person_id === h.person_id)) hostIdentified++;
    }
    for (const p of episode.people) {
      if (p.role === 'host') continue;
      const id = names.get(p.name);
      const label = wanted.find((w) => w.person_id === id);
      if (!id || !label) continue;
      creditedGuests++;
      if (got.get(label.label)?.person_id === id) creditedIdentified++;
    }
    for (const want of wanted) {
      labels++;
      const role = byRole[want.role] ?? { labels: 0, correct: 0 };
      byRole[want.role] = role;
      role.labels++;
      const s = got.get(want.label);
      const personOk = (s?.person_id ?? null) === want.person_id;
      const roleOk = s?.role === want.role;
      if (personOk) personRight++;
      if (roleOk) roleRight++;
      if (personOk && roleOk) {
        correct++;
        role.correct++;
      }
    }
  }
  return {
    episodes,
    labels,
    correct,
    accuracy: labels === 0 ? 1 : correct / labels,
    roleAccuracy: labels === 0 ? 1 : roleRight / labels,
    personAccuracy: labels === 0 ? 1 : personRight / labels,
    byRole,
    hostEpisodes,
    hostIdentified,
    creditedGuests,
    creditedIdentified,
    neverSpoke,
  };
}
