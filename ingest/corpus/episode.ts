import type {
  AdReads,
  Clips,
  EpisodePublished,
  Segments,
  Transcript,
} from '../../schemas/generated/index.ts';
import type { Catalog, GenCompany, GenPerson, GenPodcast, GenThing } from './catalog.ts';
import { slugify } from './catalog.ts';
import { type Rng, stableId } from './rng.ts';
import type { AmbiguousDef } from './vocabulary/ambiguous.ts';
import { CALLER_NAMES } from './vocabulary/names.ts';
import type { ConceptDef, LanguagePack, TopicDef } from './vocabulary/types.ts';

/**
 * One generated episode: the published episode, its diarized transcript, segments, ad reads and
 * clips, plus the ground truth of what was planted in it (mentions with sense, who spoke under
 * which label, which entities the episode is about).
 */
export type SpeakerRole = 'HOST' | 'GUEST' | 'PANELIST' | 'CORRESPONDENT' | 'AUDIENCE' | 'SOUNDBITE_SPEAKER';

export interface PlantedMention {
  episode_id: string;
  line_number: number;
  entity_id: string;
  variant: string;
  char_start: number;
  char_end: number;
  /** `entity`: the entity is meant; `other`: the ordinary word ("apple" the fruit). */
  sense: 'entity' | 'other';
  in_ad: boolean;
  ambiguous: boolean;
}

export interface SpeakerTruth {
  label: string;
  person_id: string | null;
  name: string | null;
  role: SpeakerRole;
  line_count: number;
}

export interface EntityRelevanceTruth {
  entity_id: string;
  relevance: 'on_target' | 'incidental';
  mention_count: number;
  non_ad_lines: number;
  /** On target whatever its lines: named in the title or description (not a host), or credited. */
  pinned: boolean;
}

export interface GeneratedEpisode {
  episode: EpisodePublished;
  transcript: Transcript;
  segments: Segments;
  clips: Clips;
  adReads: AdReads;
  mentions: PlantedMention[];
  speakers: SpeakerTruth[];
  entities: EntityRelevanceTruth[];
  /** Concept ids expressed by each line (index = line number - 1). */
  lineConcepts: string[][];
}

interface Participant {
  key: string;
  role: SpeakerRole;
  person: GenPerson | null;
  /** Name when known but not a catalog person (callers). */
  name: string | null;
}

interface Mark {
  start: number;
  end: number;
  entityId: string;
  sense: 'entity' | 'other';
  ambiguous: boolean;
}

interface Piece {
  text: string;
  marks: Mark[];
  concepts: string[];
}

interface Fill {
  text: string;
  entityId?: string;
  sense?: 'entity' | 'other';
  ambiguous?: boolean;
}

interface ScriptLine {
  who: Participant;
  piece: Piece;
}

type AnyEntity =
  | { type: 'company'; c: GenCompany }
  | { type: 'person'; p: GenPerson }
  | { type: 'thing'; t: GenThing };

const DAY = 86_400_000;
const SLOT = /\{(\w+)(?::(\w+))?\}/g;
const ENTITY_SLOTS = new Set([
  'company',
  'person',
  'team',
  'law',
  'drug',
  'mission',
  'product',
  'film',
  'event',
  'entity',
]);
const KEEP_CAPITAL = new Set([
  'I',
  'Arctic',
  'Mars',
  'Senate',
  'Wall',
  'Fed',
  'OPEC',
  'CRISPR',
  'Alps',
  'March',
  'September',
]);
const CLIP_TYPES = [
  'SPICY',
  'CONTROVERSIAL',
  'EMOTIONAL',
  'FUNNY',
  'SHOCKING',
  'INSIGHTFUL',
  'INFORMATIVE',
  'EDUCATIONAL',
  'PHILOSOPHICAL',
  'AHA_MOMENT',
  'NOTABLE_LINE',
  'BEST_STORY',
  'DEBATE_DISAGREEMENT',
] as const;

function render(
  template: string,
  fill: (slot: string, form: string | undefined) => Fill | string | null,
): Piece | null {
  let text = '';
  const marks: Mark[] = [];
  let last = 0;
  SLOT.lastIndex = 0;
  for (let m = SLOT.exec(template); m !== null; m = SLOT.exec(template)) {
    text += template.slice(last, m.index);
    const f = fill(m[1]!, m[2]);
    if (f === null) return null;
    const value = typeof f === 'string' ? { text: f } : f;
    if (value.entityId) {
      marks.push({
        start: text.length,
        end: text.length + value.text.length,
        entityId: value.entityId,
        sense: value.sense ?? 'entity',
        ambiguous: value.ambiguous ?? false,
      });
    }
    text += value.text;
    last = m.index + m[0].length;
  }
  text += template.slice(last);
  return { text, marks, concepts: [] };
}

function join(a: Piece, b: Piece): Piece {
  const offset = a.text.length + 1;
  return {
    text: `${a.text} ${b.text}`,
    marks: [...a.marks, ...b.marks.map((m) => ({ ...m, start: m.start + offset, end: m.end + offset }))],
    concepts: [...new Set([...a.concepts, ...b.concepts])],
  };
}

function plain(text: string): Piece {
  return { text, marks: [], concepts: [] };
}

function capitalize(s: string): string {
  return s.length > 0 ? s[0]!.toUpperCase() + s.slice(1) : s;
}

function listNames(names: string[], lang: string): string {
  const and = lang === 'fr' ? 'et' : lang === 'de' ? 'und' : lang === 'es' ? 'y' : 'and';
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} ${and} ${names.at(-1)}`;
}

export interface EpisodeRequest {
  catalog: Catalog;
  show: GenPodcast;
  index: number;
  episodesPerPodcast: number;
  asOf: number;
  rng: Rng;
  /** Target transcript length, lines (default 140-320: a 15-35 minute episode). */
  linesPerEpisode?: readonly [number, number];
}

/** Generates one episode. Deterministic for the request's rng. */
export function generateEpisode(req: EpisodeRequest): GeneratedEpisode {
  return new EpisodeGenerator(req).run();
}

class EpisodeGenerator {
  private readonly rng: Rng;
  private readonly show: GenPodcast;
  private readonly pack: LanguagePack;
  private readonly catalog: Catalog;
  private readonly id: string;
  private readonly lines: Transcript['lines'] = [];
  private readonly lineConcepts: string[][] = [];
  private readonly mentions: PlantedMention[] = [];
  private readonly labels = new Map<string, string>();
  private readonly lineCounts = new Map<string, number>();
  private readonly participantsByKey = new Map<string, Participant>();
  private readonly segments: Segments['segments'] = [];
  private readonly adReads: AdReads['ad_reads'] = [];
  /** Non-ad lines mentioning each entity (entity sense). */
  private readonly entityLines = new Map<string, Set<number>>();
  private readonly entityCounts = new Map<string, number>();
  /** How often each sentence was used in this episode (the least used is picked next). */
  private readonly used = new Map<string, number>();
  /** Times a passing entity was used to fill a concept line's slot. */
  private readonly slotUses = new Map<string, number>();
  private t = 0;
  private lastKey: string | null = null;
  private inAd = false;
  private focus: AnyEntity[] = [];
  private passing: AnyEntity[] = [];
  private topic!: TopicDef;
  private main!: ConceptDef;
  private audioUrl = '';

  constructor(private readonly req: EpisodeRequest) {
    this.rng = req.rng;
    this.show = req.show;
    this.pack = req.show.pack;
    this.catalog = req.catalog;
    this.id = stableId('ep_', `${req.rng.seed}/${req.show.podcast.id}/${req.index}`);
  }

  run(): GeneratedEpisode {
    const { rng, show, pack } = this;
    const lang = show.lang;
    const E = this.req.episodesPerPodcast;
    const span = 120 * DAY;
    const gap = span / E;
    let publishedAt = this.req.asOf - span + (this.req.index + 0.5) * gap + rng.normal(0, gap * 0.15);
    publishedAt = Math.min(
      this.req.asOf - 3_600_000,
      Math.max(this.req.asOf - span + 3_600_000, publishedAt),
    );
    publishedAt = Math.round(publishedAt / 60_000) * 60_000;

    const topicId = rng.chance(0.75) ? show.topics[0]! : rng.pick(show.topics);
    this.topic = pack.topics.find((t) => t.id === topicId) ?? pack.topics[0]!;
    this.main = rng.pick(this.topic.concepts);

    // Participants.
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
    const figures = this.catalog.publicFigures.filter(
      (p) => p.lang === lang && p.occupation.topics.includes(this.topic.id),
    );
    let soundbite: Participant | null = null;
    const soundbiteChance =
      show.format === 'news' ? 0.7 : ['politics', 'markets', 'sports'].includes(this.topic.id) ? 0.3 : 0.1;
    if (figures.length > 0 && rng.chance(soundbiteChance)) {
      const f = pickPeople(figures, 1)[0];
      if (f) soundbite = { key: 'soundbite', role: 'SOUNDBITE_SPEAKER', person: f, name: null };
    }
    let caller: Participant | null = null;
    if (show.callIn && rng.chance(0.6)) {
      caller = { key: 'caller', role: 'AUDIENCE', person: null, name: rng.pick(CALLER_NAMES[lang]) };
    }
    const adVoice: Participant = { key: 'advoice', role: 'SOUNDBITE_SPEAKER', person: null, name: null };
    for (const p of [...hosts, guest, ...panel, corr, soundbite, caller, adVoice]) {
      if (p) this.participantsByKey.set(p.key, p);
    }
    const exclude = new Set(
      [...hosts, guest, ...panel, corr, soundbite]
        .filter((p): p is Participant => !!p)
        .map((p) => p.person!.entity.id),
    );

    // Entities of the episode: focus (discussed), passing (named once or twice), sponsors.
    const ambiguousHere = lang === 'en' ? this.ambiguousFor(this.topic.id) : [];
    const focusCount = rng.int(1, 2);
    if (ambiguousHere.length > 0 && rng.chance(0.35)) this.focus.push(rng.pick(ambiguousHere));
    const topicPool = this.topicPool(exclude);
    for (const e of rng.shuffle([...topicPool])) {
      if (this.focus.length >= focusCount) break;
      if (!this.focus.some((f) => entityId(f) === entityId(e))) this.focus.push(e);
    }
    const taken = new Set([...exclude, ...this.focus.map(entityId)]);
    const everything: AnyEntity[] = [
      ...this.catalog.companies.map((c) => ({ type: 'company' as const, c })),
      ...this.catalog.things.map((t) => ({ type: 'thing' as const, t })),
      ...this.catalog.publicFigures
        .filter((p) => p.lang === lang)
        .map((p) => ({ type: 'person' as const, p })),
    ];
    const passingCount = rng.int(2, 4);
    for (let k = 0; k < passingCount * 3 && this.passing.length < passingCount; k++) {
      const e = rng.pick(everything);
      if (!taken.has(entityId(e))) {
        taken.add(entityId(e));
        this.passing.push(e);
      }
    }
    if (lang === 'en' && rng.chance(0.25)) {
      const a = rng.pick([
        ...this.catalog.ambiguousCompanies.map((c) => ({ type: 'company' as const, c })),
        ...this.catalog.ambiguousThings.map((t) => ({ type: 'thing' as const, t })),
      ]);
      if (!taken.has(entityId(a))) {
        taken.add(entityId(a));
        this.passing.push(a);
      }
    }
    const sponsorPool = this.catalog.companies.filter(
      (c) =>
        !taken.has(c.entity.id) &&
        ['consumer', 'finance', 'technology', 'transport', 'health'].includes(c.sector?.slug ?? ''),
    );
    const sponsors = rng.sample(sponsorPool, 2);

    // Title and description.
    const headline = this.main.headline;
    const focus0 = this.focus[0];
    const featured = new Set<string>();
    const host0 = show.hosts[0]!;
    const entityText = (e: AnyEntity): string =>
      e.type === 'company'
        ? e.c.ambiguous
          ? e.c.ambiguous.surface
          : e.c.brand
        : e.type === 'person'
          ? e.p.entity.name
          : e.t.ambiguous
            ? e.t.ambiguous.surface
            : e.t.entity.name;
    const fillMeta = (template: string, withGuest: boolean, withEntity: boolean) =>
      template
        .replace('{headline}', headline)
        .replace('{guest}', withGuest && guest ? guest.person!.entity.name : '')
        .replace('{entity}', withEntity && focus0 ? entityText(focus0) : '')
        .replace('{host}', host0.entity.name)
        .replace('{num}', String(this.req.index + 1));
    let title: string;
    let description: string;
    if (guest) {
      title = fillMeta(rng.pick(pack.titles.withGuest), true, false);
      featured.add(guest.person!.entity.id);
      if (focus0 && rng.chance(0.6)) {
        description = fillMeta(rng.pick(pack.descriptions.withEntity), false, true);
        featured.add(entityId(focus0));
      } else {
        description = fillMeta(rng.pick(pack.descriptions.withGuest), true, false);
      }
    } else if (focus0 && rng.chance(0.6)) {
      title = fillMeta(rng.pick(pack.titles.withEntity), false, true);
      description = fillMeta(rng.pick(pack.descriptions.withEntity), false, true);
      featured.add(entityId(focus0));
    } else {
      title = fillMeta(rng.pick(pack.titles.plain), false, false);
      description = fillMeta(rng.pick(pack.descriptions.plain), false, false);
    }
    title = capitalize(title);
    description = capitalize(description);
    const slug = `${slugify(title).slice(0, 60)}-${this.id.slice(3, 9)}`;
    this.audioUrl = `https://cdn.${show.publisher.slug}.example/audio/${show.podcast.slug}/${slug}.mp3`;

    // The script.
    const everyone = [...hosts, ...(guest ? [guest] : []), ...panel];
    const H0 = hosts[0]!;
    const hostFirst = show.hosts[0]!.first;
    const [minLines, maxLines] = this.req.linesPerEpisode ?? [140, 320];
    const budget = rng.int(minLines, maxLines);

    this.segment('INTRO', rng.pick(pack.segmentTitles.INTRO), () => {
      if (guest && rng.chance(0.15)) this.say(guest, this.conceptPiece(this.main));
      this.say(H0, this.tpl(rng.pick(pack.welcome), { host: this.personFill(show.hosts[0]!, 'full') }));
      if (hosts[1])
        this.say(
          hosts[1],
          this.tpl(rng.pick(pack.cohostIntro), { host: this.personFill(show.hosts[1]!, 'full') }),
        );
      if (guest) {
        this.say(H0, this.tpl(rng.pick(pack.guestIntro), this.guestSlots(guest.person!)));
        this.say(guest, this.tpl(rng.pick(pack.guestReply), { hostFirst }));
      } else if (panel.length > 0) {
        const names = panel.map((p) => p.person!.entity.name);
        const piece = this.tplMulti(
          rng.pick(pack.panelIntro),
          names,
          panel.map((p) => p.person!.entity.id),
        );
        this.say(H0, piece);
      } else if (show.format === 'news') {
        this.say(H0, this.conceptPiece(this.main));
      }
    });

    if (rng.chance(0.7)) {
      this.segment('PERSONAL_BANTER', rng.pick(pack.segmentTitles.PERSONAL_BANTER), () => {
        const n = rng.int(3, 8);
        const script: ScriptLine[] = [];
        let who = H0;
        for (let k = 0; k < n; k++) {
          who = this.nextSpeaker(everyone, who);
          const piece = rng.chance(0.6) ? plain(this.fresh(pack.banter)) : plain(this.fresh(pack.reactions));
          script.push({ who, piece });
        }
        if (lang === 'en' && rng.chance(0.45)) this.insertOtherSense(script, everyone, 'banter');
        for (const s of script) this.say(s.who, s.piece);
      });
    }

    if (rng.chance(0.65) && sponsors[0]) this.adSegment(H0, adVoice, sponsors[0]);

    // Main discussion, with the newsroom pieces.
    const mainLen = Math.max(8, Math.round(budget * (guest ? 0.3 : 0.45)));
    this.segment('TOPIC_DISCUSSION', capitalize(headline), () => {
      const script = this.discussion(mainLen, everyone, false, panel.length > 0);
      if (panel.length > 0) this.ensureHandoffs(script, H0, panel);
      this.plantFocus(script, everyone, 3);
      this.plantPassing(script, everyone);
      if (lang === 'en' && rng.chance(0.3)) this.insertOtherSense(script, everyone, this.topic.id);
      for (const s of script) this.say(s.who, s.piece);
      if (soundbite) {
        this.say(
          H0,
          this.tpl(rng.pick(pack.soundbiteIntro), { person: this.personFill(soundbite.person!, 'full') }),
        );
        for (let k = rng.int(1, 2); k > 0; k--)
          this.say(soundbite, this.conceptPiece(rng.pick(this.topic.concepts)));
        this.say(H0, plain(rng.pick(pack.soundbiteAfter)));
      }
    });
    if (corr) {
      this.segment('TOPIC_DISCUSSION', capitalize(rng.pick(this.topic.concepts).headline), () => {
        const city = rng.pick(pack.cities);
        this.say(
          H0,
          this.tpl(rng.pick(pack.correspondentHandoff), {
            corr: this.personFill(corr.person!, 'full'),
            city,
          }),
        );
        this.say(corr, this.tpl(rng.pick(pack.correspondentOpen), { hostFirst, city }));
        for (let k = rng.int(2, 5); k > 0; k--)
          this.say(corr, this.conceptPiece(rng.pick(this.topic.concepts)));
        this.say(corr, plain(rng.pick(pack.correspondentClose)));
        this.say(H0, plain(this.fresh(pack.reactions)));
      });
    }

    if (rng.chance(0.6))
      this.segment('TRANSITION', rng.pick(pack.segmentTitles.TRANSITION), () =>
        this.say(H0, plain(this.fresh(pack.transitions))),
      );

    if (rng.chance(0.35)) this.promoSegment(H0, adVoice);
    else if (rng.chance(0.6) && sponsors[1]) this.adSegment(H0, adVoice, sponsors[1]);

    const rest = Math.max(6, budget - this.lines.length - 6);
    if (guest) {
      this.segment('INTERVIEW', rng.pick(pack.segmentTitles.INTERVIEW), () => {
        const script = this.discussion(rest, [H0, guest], true);
        this.plantFocus(script, [H0, guest], 1);
        for (const s of script) this.say(s.who, s.piece);
      });
    } else {
      const second = pack.topics.find((t) => t.id === show.topics[1]) ?? this.topic;
      const concept = rng.pick(second.concepts);
      this.segment('TOPIC_DISCUSSION', capitalize(concept.headline), () => {
        const saved = this.topic;
        this.topic = second;
        const script = this.discussion(rest, everyone, false, panel.length > 0);
        this.topic = saved;
        for (const s of script) this.say(s.who, s.piece);
      });
    }

    if (caller) {
      this.segment('TOPIC_DISCUSSION', capitalize(rng.pick(this.topic.concepts).headline), () => {
        this.say(
          H0,
          this.tpl(rng.pick(pack.callerIntro), { caller: caller.name!, city: rng.pick(pack.cities) }),
        );
        this.say(
          caller,
          join(plain(rng.pick(pack.callerOpen)), this.conceptPiece(rng.pick(this.topic.concepts))),
        );
        if (rng.chance(0.5)) this.say(caller, this.conceptPiece(rng.pick(this.topic.concepts)));
        this.say(H0, join(plain(this.fresh(pack.reactions)), plain(rng.pick(pack.callerClose))));
      });
    }

    this.segment('OUTRO', rng.pick(pack.segmentTitles.OUTRO), () => {
      if (guest) {
        this.say(H0, this.tpl(rng.pick(pack.outroGuest), { guestFirst: guest.person!.first }));
        this.say(guest, this.tpl(rng.pick(pack.guestReply), { hostFirst }));
      }
      this.say(H0, this.tpl(rng.pick(pack.outro), { host: this.personFill(show.hosts[0]!, 'full') }));
    });

    // Records.
    const people: EpisodePublished['people'] = show.hosts.map((h) => ({ name: h.entity.name, role: 'host' }));
    const credited = new Set<string>();
    if (guest && rng.chance(0.85)) {
      people.push({ name: guest.person!.entity.name, role: 'guest' });
      credited.add(guest.person!.entity.id);
    }
    for (const p of panel) {
      if (rng.chance(0.85)) {
        people.push({ name: p.person!.entity.name, role: 'panelist' });
        credited.add(p.person!.entity.id);
      }
    }
    if (corr && rng.chance(0.85)) {
      people.push({ name: corr.person!.entity.name, role: 'correspondent' });
      credited.add(corr.person!.entity.id);
    }

    const duration = Math.round((this.t + rng.between(2, 8)) * 10) / 10;
    const episode: EpisodePublished = {
      id: this.id,
      slug,
      podcast_id: show.podcast.id,
      guid: `${show.podcast.slug}-${this.req.index + 1}`,
      title,
      description,
      published_at: publishedAt,
      duration_seconds: duration,
      audio_url: this.audioUrl,
      image_url: show.podcast.image_url,
      language: null,
      people,
      source: 'corpus',
    };
    if (rng.chance(0.03)) this.addWordTimings();
    const transcript: Transcript = {
      episode_id: this.id,
      language: show.podcast.language,
      lines: this.lines,
      transcribed_at: publishedAt + rng.int(8, 45) * 60_000,
    };

    const hostIds = new Set(show.hosts.map((h) => h.entity.id));
    const entities: EntityRelevanceTruth[] = [];
    for (const [id, count] of this.entityCounts) {
      const nonAd = this.entityLines.get(id)?.size ?? 0;
      const pinned = (featured.has(id) && !hostIds.has(id)) || credited.has(id);
      entities.push({
        entity_id: id,
        relevance: pinned || nonAd >= 3 ? 'on_target' : 'incidental',
        mention_count: count,
        non_ad_lines: nonAd,
        pinned,
      });
    }

    const speakers: SpeakerTruth[] = [];
    for (const [key, label] of this.labels) {
      const p = this.participantsByKey.get(key)!;
      speakers.push({
        label,
        person_id: p.person?.entity.id ?? null,
        name: p.person?.entity.name ?? p.name,
        role: p.role,
        line_count: this.lineCounts.get(key) ?? 0,
      });
    }

    return {
      episode,
      transcript,
      segments: { episode_id: this.id, segments: this.segments },
      clips: { episode_id: this.id, clips: this.makeClips() },
      adReads: { episode_id: this.id, ad_reads: this.adReads },
      mentions: this.mentions,
      speakers,
      entities,
      lineConcepts: this.lineConcepts,
    };
  }

  // ---- entity pools and fills ------------------------------------------------------------

  private ambiguousFor(topic: string): AnyEntity[] {
    return [
      ...this.catalog.ambiguousCompanies
        .filter((c) => c.topics.includes(topic as never))
        .map((c) => ({ type: 'company' as const, c })),
      ...this.catalog.ambiguousThings
        .filter((t) => t.topics.includes(topic as never))
        .map((t) => ({ type: 'thing' as const, t })),
    ];
  }

  private topicPool(exclude: Set<string>): AnyEntity[] {
    const topic = this.topic.id;
    const lang = this.show.lang;
    return [
      ...this.catalog.companies
        .filter((c) => c.topics.includes(topic))
        .map((c) => ({ type: 'company' as const, c })),
      ...this.catalog.things
        .filter((t) => t.topics.includes(topic))
        .map((t) => ({ type: 'thing' as const, t })),
      ...this.catalog.publicFigures
        .filter((p) => p.lang === lang && p.occupation.topics.includes(topic) && !exclude.has(p.entity.id))
        .map((p) => ({ type: 'person' as const, p })),
    ].filter((e) => !exclude.has(entityId(e)));
  }

  private personFill(p: GenPerson, form: 'full' | 'any' | 'handle'): Fill | null {
    if (form === 'handle') return p.handle ? { text: p.handle, entityId: p.entity.id } : null;
    let text = p.entity.name;
    if (form === 'any') {
      const r = this.rng.float();
      if (r < 0.2 && p.surnameAlias) text = p.surnameAlias;
      else if (r < 0.3 && p.nickname) text = p.nickname;
    }
    return { text, entityId: p.entity.id };
  }

  private companyFill(c: GenCompany, form: string | undefined): Fill | null {
    const facts = c.entity.company;
    if (form === 'ticker') {
      if (!facts?.ticker) return null;
      return { text: this.rng.chance(0.4) ? `$${facts.ticker}` : facts.ticker, entityId: c.entity.id };
    }
    if (form === 'domain') return facts?.domain ? { text: facts.domain, entityId: c.entity.id } : null;
    if (form === 'handle')
      return c.entity.handles[0] ? { text: c.entity.handles[0], entityId: c.entity.id } : null;
    if (c.ambiguous) return null;
    return { text: this.rng.chance(0.4) ? c.entity.name : c.brand, entityId: c.entity.id };
  }

  private fillEntity(e: AnyEntity, form: string | undefined): Fill | null {
    if (e.type === 'company') return this.companyFill(e.c, form);
    if (e.type === 'person') return this.personFill(e.p, form === 'handle' ? 'handle' : 'any');
    if (form || e.t.ambiguous) return null;
    const { name, aliases, nicknames } = e.t.entity;
    const r = this.rng.float();
    const text =
      r < 0.25 && aliases[0]
        ? aliases[0]
        : r < 0.4 && nicknames[0]
          ? nicknames[0].replace(/^the /, '')
          : name;
    return { text, entityId: e.t.entity.id };
  }

  private matchesSlot(e: AnyEntity, slot: string): boolean {
    if (slot === 'entity') return true;
    if (slot === 'company') return e.type === 'company';
    if (slot === 'person') return e.type === 'person';
    return e.type === 'thing' && e.t.slot === slot;
  }

  /** Fills an entity slot of a concept line: a focus entity, else a passing one used < 2 times. */
  private slotEntity(slot: string, form: string | undefined): Fill | null {
    for (const e of this.rng.shuffle([...this.focus])) {
      if (this.matchesSlot(e, slot)) {
        const f = this.fillEntity(e, form);
        if (f) return f;
      }
    }
    for (const e of this.rng.shuffle([...this.passing])) {
      const id = entityId(e);
      if (this.matchesSlot(e, slot) && (this.slotUses.get(id) ?? 0) < 1) {
        const f = this.fillEntity(e, form);
        if (f) {
          this.slotUses.set(id, (this.slotUses.get(id) ?? 0) + 1);
          return f;
        }
      }
    }
    return null;
  }

  private valueFill(slot: string): string | null {
    const { rng, pack } = this;
    switch (slot) {
      case 'city':
        return rng.pick(pack.cities);
      case 'num':
        return rng.pick(pack.numberWords);
      case 'pct':
        return pack.percent(rng.pick(['2.5', '3', '3.7', '4.1', '5', '6.2', '8']));
      case 'money':
        return pack.money(rng.pick(pack.numberWords.slice(0, 6)));
      case 'weekday':
        return rng.pick(pack.weekdays);
      case 'show':
        return this.show.podcast.title;
      default:
        return null;
    }
  }

  /** Renders a template whose slots are given (people) or plain values. */
  private tpl(template: string, given: Record<string, Fill | string | null>): Piece {
    const piece = render(template, (slot) => (slot in given ? given[slot]! : this.valueFill(slot)));
    if (!piece) throw new Error(`template could not be filled: ${template}`);
    return piece;
  }

  private tplMulti(template: string, names: string[], ids: string[]): Piece {
    const lang = this.show.lang;
    const piece = render(template, (slot) => (slot === 'panelists' ? '\u0000' : this.valueFill(slot)))!;
    const [before, after] = piece.text.split('\u0000') as [string, string];
    const joined = listNames(names, lang);
    const marks: Mark[] = [];
    let offset = before.length;
    for (let i = 0; i < names.length; i++) {
      const at = joined.indexOf(names[i]!, offset - before.length) + before.length;
      marks.push({
        start: at,
        end: at + names[i]!.length,
        entityId: ids[i]!,
        sense: 'entity',
        ambiguous: false,
      });
      offset = at + names[i]!.length;
    }
    return { text: before + joined + after, marks, concepts: [] };
  }

  private guestSlots(p: GenPerson): Record<string, Fill | string | null> {
    const employer: Fill =
      'company' in p.employer
        ? { text: p.employer.company.entity.name, entityId: p.employer.company.entity.id }
        : { text: p.employer.institution };
    return { guest: this.personFill(p, 'full'), title: p.occupation.title[this.show.lang], employer };
  }

  /** A line expressing a concept, entity slots filled from the episode's entities when possible. */
  private conceptPiece(concept: ConceptDef): Piece {
    for (const line of this.leastUsed(concept.lines)) {
      const piece = render(line, (slot, form) =>
        ENTITY_SLOTS.has(slot) ? this.slotEntity(slot, form) : this.valueFill(slot),
      );
      if (piece) {
        this.used.set(line, (this.used.get(line) ?? 0) + 1);
        piece.concepts = [concept.id];
        return piece;
      }
    }
    return plain(this.fresh(this.pack.reactions));
  }

  /** A second sentence on the same idea ("… Another hike, and the markets shrugged it off."). */
  private more(piece: Piece): Piece {
    const concept = this.topic.concepts.find((c) => c.id === piece.concepts[0]);
    return concept ? join(piece, this.conceptPiece(concept)) : piece;
  }

  /** The items in order of how rarely this episode used them (ties in random order). */
  private leastUsed(items: readonly string[]): string[] {
    const shuffled = this.rng.shuffle([...items]);
    return shuffled.sort((a, b) => (this.used.get(a) ?? 0) - (this.used.get(b) ?? 0));
  }

  /** One of the least used items; counts the use. */
  private fresh(items: readonly string[]): string {
    const item = this.leastUsed(items)[0]!;
    this.used.set(item, (this.used.get(item) ?? 0) + 1);
    return item;
  }

  /** A filler word before a sentence ("Honestly, the Fed hiked again."). */
  private lead(piece: Piece): Piece {
    const filler = plain(this.fresh(this.pack.fillers));
    const startsWithName = piece.marks.some((m) => m.start === 0);
    const first = /^\p{Lu}\p{Ll}*(?=[\s,.;:!?]|$)/u.exec(piece.text)?.[0];
    if (!startsWithName && first && this.show.lang !== 'de' && !KEEP_CAPITAL.has(first)) {
      piece = { ...piece, text: piece.text[0]!.toLowerCase() + piece.text.slice(1) };
    }
    return join(filler, piece);
  }

  // ---- script building -------------------------------------------------------------------

  private nextSpeaker(people: Participant[], last: Participant): Participant {
    if (people.length === 1) return people[0]!;
    const others = people.filter((p) => p !== last);
    return this.rng.chance(0.85) ? this.rng.pick(others) : last;
  }

  private discussion(n: number, people: Participant[], interview: boolean, handoffs = false): ScriptLine[] {
    const { rng, pack } = this;
    const script: ScriptLine[] = [];
    const host = people[0]!;
    let who = host;
    const concept = () => (rng.chance(0.4) ? this.main : rng.pick(this.topic.concepts));
    while (script.length < n) {
      if (interview) {
        const q = rng.chance(0.5)
          ? plain(this.fresh(pack.questions))
          : this.lead(this.conceptPiece(concept()));
        script.push({ who: host, piece: q });
        const guest = people[1]!;
        for (let k = rng.int(1, 3); k > 0 && script.length < n; k--) {
          let piece = this.conceptPiece(concept());
          if (rng.chance(0.3)) piece = this.lead(piece);
          if (rng.chance(0.2)) piece = this.more(piece);
          script.push({ who: guest, piece });
        }
        if (rng.chance(0.3) && script.length < n)
          script.push({ who: host, piece: plain(this.fresh(pack.reactions)) });
        continue;
      }
      if (handoffs && rng.chance(0.12) && people.length > 2) {
        const target = rng.pick(people.slice(1).filter((p) => p !== who));
        if (target?.person) {
          script.push({
            who: host,
            piece: this.tpl(rng.pick(pack.panelHandoff), { first: target.person.first }),
          });
          script.push({ who: target, piece: this.conceptPiece(concept()) });
          who = target;
          continue;
        }
      }
      who = this.nextSpeaker(people, who);
      const r = rng.float();
      let piece: Piece;
      if (r < 0.6) piece = this.conceptPiece(concept());
      else if (r < 0.78)
        piece = rng.chance(0.5)
          ? plain(this.fresh(pack.reactions))
          : join(plain(this.fresh(pack.reactions)), this.conceptPiece(concept()));
      else if (r < 0.88 && who === host) piece = plain(this.fresh(pack.questions));
      else piece = this.lead(this.conceptPiece(concept()));
      if (rng.chance(0.15)) piece = this.more(piece);
      script.push({ who, piece });
    }
    return script;
  }

  /** A moderator brings every panelist in by name at least once ("Let's start with you, Marcus."). */
  private ensureHandoffs(script: ScriptLine[], host: Participant, panel: Participant[]): void {
    for (const p of panel) {
      const first = p.person!.first;
      if (script.some((s) => s.who === host && s.piece.text.includes(first))) continue;
      const handoff = this.tpl(this.rng.pick(this.pack.panelHandoff), { first });
      const at = this.rng.int(0, Math.max(0, Math.floor(script.length / 2)));
      script.splice(at, 0, { who: host, piece: handoff }, { who: p, piece: this.conceptPiece(this.main) });
    }
  }

  private insertAt(script: ScriptLine[], items: ScriptLine[]): void {
    const at = script.length === 0 ? 0 : this.rng.int(1, script.length);
    script.splice(at, 0, ...items);
  }

  private countInScript(script: ScriptLine[], id: string): number {
    return script.filter((s) => s.piece.marks.some((m) => m.entityId === id && m.sense === 'entity')).length;
  }

  /** Makes sure each focus entity is discussed on at least `min` lines of the script. */
  private plantFocus(script: ScriptLine[], people: Participant[], min: number): void {
    const { rng, pack } = this;
    for (const e of this.focus) {
      const id = entityId(e);
      let have = this.countInScript(script, id);
      for (let guard = 0; have < min && guard < 20; guard++) {
        const who = rng.pick(people);
        const amb = ambiguousOf(e);
        if (amb && rng.chance(0.7)) {
          const sense = rng.pick(amb.entitySense);
          const [a, b] = Array.isArray(sense) ? sense : [sense, null];
          const items = [{ who, piece: this.ambiguousPiece(amb, id, a, 'entity') }];
          if (b) items.push({ who, piece: { ...plain(b), concepts: [] } });
          // Now and then the same speaker drifts to the ordinary sense right after ("Apple pie, anyone?").
          else if (rng.chance(0.2))
            items.push({ who, piece: this.ambiguousPiece(amb, id, rng.pick(amb.otherSense), 'other') });
          this.insertAt(script, items);
          have++;
          continue;
        }
        const templates =
          e.type === 'company'
            ? pack.focus.company
            : e.type === 'person'
              ? pack.focus.person
              : pack.focus.thing;
        for (const t of rng.shuffle([...templates])) {
          const piece = render(t, (slot, form) =>
            ENTITY_SLOTS.has(slot) ? this.fillEntity(e, form) : this.valueFill(slot),
          );
          if (piece) {
            this.insertAt(script, [{ who, piece }]);
            have++;
            break;
          }
        }
      }
    }
  }

  /** Names each passing entity once (sometimes twice) in the script. */
  private plantPassing(script: ScriptLine[], people: Participant[]): void {
    const { rng, pack } = this;
    for (const e of this.passing) {
      const id = entityId(e);
      const times = rng.chance(0.2) ? 2 : 1;
      for (let k = this.countInScript(script, id); k < times; k++) {
        const who = rng.pick(people);
        const amb = ambiguousOf(e);
        if (amb) {
          const single = amb.entitySense.filter(
            (s): s is string => typeof s === 'string' && s.includes('{X}'),
          );
          this.insertAt(script, [{ who, piece: this.ambiguousPiece(amb, id, rng.pick(single), 'entity') }]);
          break;
        }
        const piece = render(rng.pick(pack.passing), (slot, form) =>
          ENTITY_SLOTS.has(slot) ? this.fillEntity(e, form) : this.valueFill(slot),
        );
        if (piece) this.insertAt(script, [{ who, piece }]);
      }
    }
  }

  private ambiguousPiece(amb: AmbiguousDef, id: string, template: string, sense: 'entity' | 'other'): Piece {
    return this.tpl(template, {
      X: { text: amb.surface, entityId: id, sense, ambiguous: true },
      x: { text: amb.surface.toLowerCase(), entityId: id, sense, ambiguous: true },
      N: { text: amb.nicknames[0] ?? amb.surface, entityId: id, sense, ambiguous: true },
    });
  }

  /** A line using an ambiguous name in its ordinary sense. */
  private insertOtherSense(script: ScriptLine[], people: Participant[], where: string): void {
    const all = [...this.catalog.ambiguousCompanies, ...this.catalog.ambiguousThings];
    const fitting = all.filter((a) => a.ambiguous!.otherTopics.includes(where as never));
    if (fitting.length === 0) return;
    const a = this.rng.pick(fitting);
    const piece = this.ambiguousPiece(
      a.ambiguous!,
      a.entity.id,
      this.rng.pick(a.ambiguous!.otherSense),
      'other',
    );
    this.insertAt(script, [{ who: this.rng.pick(people), piece }]);
  }

  // ---- lines, segments, ads ----------------------------------------------------------------

  private labelOf(p: Participant): string {
    let label = this.labels.get(p.key);
    if (!label) {
      label = `SPEAKER_${this.labels.size + 1}`;
      this.labels.set(p.key, label);
    }
    return label;
  }

  private say(p: Participant, piece: Piece): number {
    const { rng } = this;
    const number = this.lines.length + 1;
    // Speech recognition without true-casing: a few lines come out all lowercase.
    if (!this.inAd && rng.chance(0.02)) {
      const lower = piece.text.toLowerCase();
      if (lower.length === piece.text.length) piece = { ...piece, text: lower };
    }
    const words = piece.text.split(/\s+/).length;
    const gapSeconds = this.lastKey === p.key ? rng.between(0.05, 0.3) : rng.between(0.2, 0.9);
    const start = this.lines.length === 0 ? rng.between(0.5, 2) : this.t + gapSeconds;
    const pace = p.key === 'advoice' ? 2.9 : 2.5;
    const dur = Math.max(0.8, (words / pace) * rng.between(0.85, 1.2));
    const end = start + dur;
    this.lines.push({
      number,
      speaker: this.labelOf(p),
      role: null,
      start_seconds: Math.round(start * 100) / 100,
      end_seconds: Math.round(end * 100) / 100,
      text: piece.text,
      words: null,
    });
    this.lineConcepts.push(piece.concepts);
    this.t = Math.round(end * 100) / 100;
    this.lastKey = p.key;
    this.lineCounts.set(p.key, (this.lineCounts.get(p.key) ?? 0) + 1);
    for (const m of piece.marks) {
      this.mentions.push({
        episode_id: this.id,
        line_number: number,
        entity_id: m.entityId,
        variant: piece.text.slice(m.start, m.end),
        char_start: m.start,
        char_end: m.end,
        sense: m.sense,
        in_ad: this.inAd,
        ambiguous: m.ambiguous,
      });
      if (m.sense === 'entity') {
        this.entityCounts.set(m.entityId, (this.entityCounts.get(m.entityId) ?? 0) + 1);
        if (!this.inAd) {
          let set = this.entityLines.get(m.entityId);
          if (!set) {
            set = new Set();
            this.entityLines.set(m.entityId, set);
          }
          set.add(number);
        }
      }
    }
    return number;
  }

  private segment(
    type: Segments['segments'][number]['type'],
    title: string,
    body: () => void,
    extra: { readType?: 'host_read' | 'pre_recorded' } = {},
  ): Segments['segments'][number] | null {
    const firstLine = this.lines.length + 1;
    body();
    const lastLine = this.lines.length;
    if (lastLine < firstLine) return null;
    const start = this.lines[firstLine - 1]!.start_seconds;
    const end = this.lines[lastLine - 1]!.end_seconds;
    const number = this.segments.length + 1;
    const seg: Segments['segments'][number] = {
      id: `seg_${this.id.slice(3)}_${number}`,
      number,
      title,
      type,
      start_seconds: start,
      end_seconds: end,
      first_line: firstLine,
      last_line: lastLine,
      description:
        type === 'TOPIC_DISCUSSION' || type === 'INTERVIEW'
          ? `${capitalize(this.topic.concepts[0]!.headline)} and more.`
          : null,
      summary: type === 'TOPIC_DISCUSSION' || type === 'INTERVIEW' ? this.lines[firstLine - 1]!.text : null,
      audio_url: `${this.audioUrl}#t=${start},${end}`,
      read_type: extra.readType ?? null,
    };
    this.segments.push(seg);
    return seg;
  }

  private adSegment(host: Participant, voice: Participant, sponsor: GenCompany): void {
    const { rng, pack } = this;
    const readType = rng.chance(0.6) ? ('host_read' as const) : ('pre_recorded' as const);
    const code = `${this.show.podcast.slug
      .replace(/[^a-z]/g, '')
      .slice(0, 6)
      .toUpperCase()}${rng.int(10, 99)}`;
    const slots = (): Record<string, Fill | string | null> => ({
      sponsor: { text: rng.chance(0.6) ? sponsor.entity.name : sponsor.brand, entityId: sponsor.entity.id },
      domain: { text: sponsor.entity.company!.domain!, entityId: sponsor.entity.id },
      code,
    });
    this.inAd = true;
    const seg = this.segment(
      'AD',
      rng.pick(pack.segmentTitles.AD),
      () => {
        if (readType === 'host_read') {
          const lines = rng.sample(pack.adHostRead, rng.int(2, 3));
          for (const l of lines) this.say(host, this.tpl(l, slots()));
          this.say(host, this.tpl(rng.pick(pack.adHostReadClose), slots()));
        } else {
          for (const l of rng.sample(pack.adPreRecorded, 2)) this.say(voice, this.tpl(l, slots()));
        }
      },
      { readType },
    );
    this.inAd = false;
    if (seg) this.recordAd(seg, sponsor.entity.name, sponsor.entity.id, readType, false);
  }

  private promoSegment(host: Participant, voice: Participant): void {
    const { rng, pack } = this;
    const siblings = this.catalog.podcasts.filter(
      (p) => p.publisher.id === this.show.publisher.id && p !== this.show && p.lang === this.show.lang,
    );
    const other = siblings.length > 0 ? rng.pick(siblings).podcast.title : this.show.podcast.title;
    const readType = rng.chance(0.5) ? ('host_read' as const) : ('pre_recorded' as const);
    this.inAd = true;
    const seg = this.segment(
      'AD',
      rng.pick(pack.segmentTitles.PROMO),
      () => {
        this.say(
          readType === 'host_read' ? host : voice,
          this.tpl(rng.pick(pack.promo), { show: other, publisher: this.show.publisher.name }),
        );
      },
      { readType },
    );
    this.inAd = false;
    if (seg) this.recordAd(seg, this.show.publisher.name, null, readType, true);
  }

  private recordAd(
    seg: Segments['segments'][number],
    sponsorName: string,
    companyId: string | null,
    readType: 'host_read' | 'pre_recorded',
    promo: boolean,
  ): void {
    const withLines = this.rng.chance(0.85);
    this.adReads.push({
      id: `ad_${this.id.slice(3)}_${this.adReads.length + 1}`,
      segment_id: seg.id,
      sponsor_name: sponsorName,
      company_id: companyId,
      read_type: readType,
      is_network_promo: promo,
      start_seconds: seg.start_seconds,
      end_seconds: seg.end_seconds,
      first_line: withLines ? seg.first_line : null,
      last_line: withLines ? seg.last_line : null,
    });
  }

  private makeClips(): Clips['clips'] {
    const { rng } = this;
    const candidates = this.segments.filter((s) => s.type === 'TOPIC_DISCUSSION' || s.type === 'INTERVIEW');
    const clips: Clips['clips'] = [];
    const count = candidates.length === 0 ? 0 : rng.int(2, 5);
    const typeOffset = (this.req.show.index * 7 + this.req.index * 5) % CLIP_TYPES.length;
    for (let k = 0; k < count; k++) {
      const seg = rng.pick(candidates);
      const len = rng.int(2, 5);
      const first = rng.int(seg.first_line, Math.max(seg.first_line, seg.last_line - len + 1));
      const last = Math.min(seg.last_line, first + len - 1);
      const span = this.lines.slice(first - 1, last);
      const counts = new Map<string, number>();
      for (const l of span) counts.set(l.speaker, (counts.get(l.speaker) ?? 0) + 1);
      const speaker = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
      const type = CLIP_TYPES[(typeOffset + k) % CLIP_TYPES.length]!;
      const key = [...this.labels].find(([, l]) => l === speaker)?.[0];
      const person = key ? this.participantsByKey.get(key)?.person : null;
      const headline =
        this.topic.concepts.find((c) => span.some((_, i) => this.lineConcepts[first - 1 + i]?.includes(c.id)))
          ?.headline ?? this.main.headline;
      const start = span[0]!.start_seconds;
      const end = span.at(-1)!.end_seconds;
      clips.push({
        id: `clip_${this.id.slice(3)}_${k + 1}`,
        type,
        title: `${capitalize(headline)} (${type.toLowerCase().replace(/_/g, ' ')})`,
        description: span[0]!.text,
        intro_statement: this.tpl(rng.pick(this.pack.clipIntros), {
          speaker: person?.entity.name ?? this.show.podcast.title,
          headline,
        }).text,
        engagement_score: Math.round(rng.normal(55, 18, 3, 99) * 10) / 10,
        start_seconds: start,
        end_seconds: end,
        audio_url: `${this.audioUrl}#t=${start},${end}`,
        segment_id: seg.id,
        speaker,
      });
    }
    return clips;
  }

  private addWordTimings(): void {
    for (const line of this.lines) {
      const words = line.text.split(/\s+/);
      const step = (line.end_seconds - line.start_seconds) / words.length;
      line.words = words.map((word, i) => ({
        word,
        start_seconds: Math.round((line.start_seconds + i * step) * 100) / 100,
        end_seconds: Math.round((line.start_seconds + (i + 1) * step) * 100) / 100,
        confidence: Math.round(this.rng.between(0.82, 0.995) * 1000) / 1000,
      }));
    }
  }
}

function entityId(e: AnyEntity): string {
  return e.type === 'company' ? e.c.entity.id : e.type === 'person' ? e.p.entity.id : e.t.entity.id;
}

function ambiguousOf(e: AnyEntity): AmbiguousDef | null {
  return e.type === 'company' ? e.c.ambiguous : e.type === 'thing' ? e.t.ambiguous : null;
}
