import { CLIP_TYPES } from '../../schemas/event-enums.ts';
import type { EpisodePublished, Transcript } from '../../schemas/generated/index.ts';
import { nameSlug } from '../../schemas/text-folding.ts';
import type { Catalog, GenCompany, GenPodcast } from './catalog.ts';
import { AdBreaks } from './episode-ads.ts';
import {
  type AnyEntity,
  type Cast,
  castEpisode,
  chooseEntities,
  discussants,
  entityId,
  type Participant,
} from './episode-cast.ts';
import { Phrasing, type Subject } from './episode-phrasing.ts';
import { capitalize, join, plain } from './episode-pieces.ts';
import { EpisodeRecorder } from './episode-recorder.ts';
import {
  MONOLOGUE_TOKENS,
  type ScriptLine,
  ScriptWriter,
  speechTokens,
  type TurnLengths,
} from './episode-script.ts';
import type { EntityRelevanceTruth, GeneratedEpisode, SpeakerTruth } from './episode-truth.ts';
import { hash32, type Rng, stableId } from './rng.ts';
import type { LanguagePack } from './vocabulary/types.ts';

/**
 * The episode generator: one episode of a show, deterministic for its seed. Who speaks
 * (episode-cast.ts), what they say (episode-phrasing.ts, episode-script.ts) and the records of it
 * (episode-recorder.ts) are each in their own file; here is the episode's running order.
 */
export type {
  EntityRelevanceTruth,
  GeneratedEpisode,
  PlantedMention,
  SpeakerTruth,
} from './episode-truth.ts';

const DAY = 86_400_000;

export interface EpisodeRequest {
  catalog: Catalog;
  show: GenPodcast;
  index: number;
  episodesPerPodcast: number;
  asOf: number;
  rng: Rng;
  /** Target transcript length, lines (default 140-320: a 15-35 minute episode). */
  linesPerEpisode?: readonly [number, number];
  /** Turn lengths (episode-script.ts; default `short`). */
  turns?: TurnLengths;
  /** How publication dates fall before `asOf` (default `spread`; see `ReleaseSchedule`). */
  schedule?: ReleaseSchedule;
}

/**
 * How episodes are dated before `asOf`:
 * - `spread`: evenly over the 120 days before it (the newest at least an hour before);
 * - `recent`: each podcast keeps a cadence (daily, every 2 days, twice a week or weekly) up to
 *   `asOf`, so most episodes fall in the last two weeks, more in the last 7 days than in the 7
 *   before, and the first podcast's newest episode came out 20 minutes before `asOf`; none is
 *   about to age out of a read's default window (`WINDOW_EDGES_MS`).
 * Both draw the same random numbers, so an episode's content does not depend on the schedule.
 */
export type ReleaseSchedule = 'spread' | 'recent';

/** Days between episodes of a podcast on the `recent` schedule, by its index in the catalog. */
const RECENT_CADENCE_DAYS = [1, 3.5, 2, 7, 1, 2, 3.5, 1, 7, 2, 1, 3.5];
/** How long before `asOf` the first podcast's newest episode came out, on the `recent` schedule. */
export const NEWEST_EPISODE_AGE_MS = 20 * 60_000;
/**
 * The ages where the reads' default windows end (7 days: mentions and sponsor trends; 14: their
 * previous windows; 30: entities and ad timeseries). On the `recent` schedule no episode is within
 * `STEADY_MS` younger than one, so what those reads answer does not change for that long.
 */
export const WINDOW_EDGES_MS = [7, 14, 30].map((d) => d * DAY);
export const STEADY_MS = 6 * 3_600_000;

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
  private subject!: Subject;
  private words!: Phrasing;
  private script!: ScriptWriter;
  private rec!: EpisodeRecorder;
  private ads!: AdBreaks;

  constructor(private readonly req: EpisodeRequest) {
    this.rng = req.rng;
    this.show = req.show;
    this.pack = req.show.pack;
    this.catalog = req.catalog;
    this.id = stableId('ep_', `${req.rng.seed}/${req.show.podcast.id}/${req.index}`);
  }

  run(): GeneratedEpisode {
    const { rng, show, pack } = this;
    const publishedAt = this.publishedAt();
    const topicId = rng.chance(0.75) ? show.topics[0]! : rng.pick(show.topics);
    const topic = pack.topics.find((t) => t.id === topicId) ?? pack.topics[0]!;
    const main = rng.pick(topic.concepts);
    this.subject = { topic, main, focus: [], passing: [] };
    this.words = new Phrasing(rng, show, this.subject);
    this.script = new ScriptWriter(rng, pack, this.catalog, this.subject, this.words, this.req.turns);
    this.rec = new EpisodeRecorder(rng, this.id, this.subject);
    this.ads = new AdBreaks(rng, show, this.catalog, this.words, this.rec);

    const cast = castEpisode(rng, show, this.catalog, topic);
    const { hosts, guest, panel, corr, soundbite, caller, adVoice } = cast;
    for (const p of [...hosts, guest, ...panel, corr, soundbite, caller, adVoice]) {
      if (p) this.rec.participantsByKey.set(p.key, p);
    }
    const { focus, passing, sponsors } = chooseEntities(rng, this.catalog, show.lang, topic, cast);
    this.subject.focus = focus;
    this.subject.passing = passing;

    const featured = new Set<string>();
    const { title, description, slug } = this.titleAndDescription(guest, featured);
    this.rec.audioUrl = `https://cdn.${show.publisher.slug}.example/audio/${show.podcast.slug}/${slug}.mp3`;
    this.perform(cast, sponsors);
    return this.records({ title, description, slug, publishedAt }, cast, featured);
  }

  /** When the episode came out, to the minute, as the request's schedule says. */
  private publishedAt(): number {
    const { rng } = this;
    const E = this.req.episodesPerPodcast;
    if (this.req.schedule === 'recent') {
      const z = rng.normal(0, 1);
      const show = this.show.index;
      const cadence = RECENT_CADENCE_DAYS[show % RECENT_CADENCE_DAYS.length]! * DAY;
      // The newest episode: 20 minutes old for the first podcast, else within its first cadence
      // (at most a day), at a point fixed by the podcast's id.
      const newest =
        show === 0
          ? NEWEST_EPISODE_AGE_MS
          : (0.1 + (0.8 * hash32(this.show.podcast.id)) / 2 ** 32) * Math.min(cadence, DAY);
      const behind = E - 1 - this.req.index;
      const jitter = behind === 0 ? 0 : Math.max(-0.3, Math.min(0.3, z * 0.1)) * cadence;
      let age = newest + behind * cadence + jitter;
      // Nothing is about to leave a default window: the reads' answers hold for hours after `asOf`.
      for (const edge of WINDOW_EDGES_MS) if (age > edge - STEADY_MS && age <= edge) age = edge - STEADY_MS;
      return Math.floor((this.req.asOf - age) / 60_000) * 60_000;
    }
    const span = 120 * DAY;
    const gap = span / E;
    let publishedAt = this.req.asOf - span + (this.req.index + 0.5) * gap + rng.normal(0, gap * 0.15);
    publishedAt = Math.min(
      this.req.asOf - 3_600_000,
      Math.max(this.req.asOf - span + 3_600_000, publishedAt),
    );
    return Math.round(publishedAt / 60_000) * 60_000;
  }

  /** Title, description and slug; `featured` gets the entities they name. */
  private titleAndDescription(guest: Participant | null, featured: Set<string>) {
    const { rng, show, pack } = this;
    const headline = this.subject.main.headline;
    const focus0 = this.subject.focus[0];
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
    const slug = `${nameSlug(title).slice(0, 60)}-${this.id.slice(3, 9)}`;
    return { title, description, slug };
  }

  /** The episode's running order, spoken: intro, banter, ads, discussions, interview, calls, outro. */
  private perform(cast: Cast, sponsors: GenCompany[]): void {
    const { rng } = this;
    const H0 = cast.hosts[0]!;
    const [minLines, maxLines] = this.req.linesPerEpisode ?? [140, 320];
    const budget = rng.int(minLines, maxLines);
    this.opening(cast);
    if (rng.chance(0.65) && sponsors[0]) this.ads.sponsor(H0, cast.adVoice, sponsors[0]);
    this.discussions(cast, budget);
    if (rng.chance(0.35)) this.ads.promo(H0, cast.adVoice);
    else if (rng.chance(0.6) && sponsors[1]) this.ads.sponsor(H0, cast.adVoice, sponsors[1]);
    this.closing(cast, budget);
  }

  /** Intro (hosts, guest or panel) and, often, some banter. */
  private opening(cast: Cast): void {
    const { rng, show, pack } = this;
    const { hosts, guest, panel } = cast;
    const { everyone, lead: H0, leadFirst: hostFirst } = discussants(cast);
    const lang = show.lang;

    this.rec.segment('INTRO', rng.pick(pack.segmentTitles.INTRO), () => {
      if (guest && rng.chance(0.15)) this.rec.say(guest, this.words.conceptPiece(this.subject.main));
      this.rec.say(
        H0,
        this.words.tpl(rng.pick(pack.welcome), { host: this.words.personFill(show.hosts[0]!, 'full') }),
      );
      if (hosts[1])
        this.rec.say(
          hosts[1],
          this.words.tpl(rng.pick(pack.cohostIntro), { host: this.words.personFill(show.hosts[1]!, 'full') }),
        );
      if (guest) {
        this.rec.say(H0, this.words.tpl(rng.pick(pack.guestIntro), this.words.guestSlots(guest.person!)));
        this.rec.say(guest, this.words.tpl(rng.pick(pack.guestReply), { hostFirst }));
      } else if (panel.length > 0) {
        const names = panel.map((p) => p.person!.entity.name);
        const piece = this.words.tplMulti(
          rng.pick(pack.panelIntro),
          names,
          panel.map((p) => p.person!.entity.id),
        );
        this.rec.say(H0, piece);
      } else if (show.format === 'news') {
        this.rec.say(H0, this.words.conceptPiece(this.subject.main));
      }
    });

    if (rng.chance(0.7)) {
      this.rec.segment('PERSONAL_BANTER', rng.pick(pack.segmentTitles.PERSONAL_BANTER), () => {
        const n = rng.int(3, 8);
        const script: ScriptLine[] = [];
        let who = H0;
        for (let k = 0; k < n; k++) {
          who = this.script.nextSpeaker(everyone, who);
          const piece = rng.chance(0.6)
            ? plain(this.words.fresh(pack.banter))
            : plain(this.words.fresh(pack.reactions));
          script.push({ who, piece });
        }
        if (lang === 'en' && rng.chance(0.45)) this.script.insertOtherSense(script, everyone, 'banter');
        for (const s of script) this.rec.say(s.who, s.piece);
      });
    }
  }

  /** The main discussion (with a soundbite), a correspondent's piece, a transition. */
  private discussions(cast: Cast, budget: number): void {
    const { rng, show, pack } = this;
    const { guest, panel } = cast;
    const { everyone, lead: H0, leadFirst: hostFirst } = discussants(cast);
    const { corr, soundbite } = cast;
    const lang = show.lang;
    const headline = this.subject.main.headline;
    // Main discussion, with the newsroom pieces.
    const mainLen = Math.max(8, Math.round(budget * (guest ? 0.3 : 0.45)));
    this.rec.segment('TOPIC_DISCUSSION', capitalize(headline), () => {
      const script = this.script.discussion(mainLen, everyone, false, panel.length > 0);
      if (panel.length > 0) this.script.ensureHandoffs(script, H0, panel);
      this.script.plantFocus(script, everyone, 3);
      this.script.plantPassing(script, everyone);
      if (lang === 'en' && rng.chance(0.3))
        this.script.insertOtherSense(script, everyone, this.subject.topic.id);
      for (const s of script) this.rec.say(s.who, s.piece);
      if (soundbite) {
        this.rec.say(
          H0,
          this.words.tpl(rng.pick(pack.soundbiteIntro), {
            person: this.words.personFill(soundbite.person!, 'full'),
          }),
        );
        for (let k = rng.int(1, 2); k > 0; k--)
          this.rec.say(soundbite, this.words.conceptPiece(rng.pick(this.subject.topic.concepts)));
        this.rec.say(H0, plain(rng.pick(pack.soundbiteAfter)));
      }
    });
    if (corr) {
      this.rec.segment('TOPIC_DISCUSSION', capitalize(rng.pick(this.subject.topic.concepts).headline), () => {
        const city = rng.pick(pack.cities);
        this.rec.say(
          H0,
          this.words.tpl(rng.pick(pack.correspondentHandoff), {
            corr: this.words.personFill(corr.person!, 'full'),
            city,
          }),
        );
        this.rec.say(corr, this.words.tpl(rng.pick(pack.correspondentOpen), { hostFirst, city }));
        for (let k = rng.int(2, 5); k > 0; k--)
          this.rec.say(corr, this.words.conceptPiece(rng.pick(this.subject.topic.concepts)));
        this.rec.say(corr, plain(rng.pick(pack.correspondentClose)));
        this.rec.say(H0, plain(this.words.fresh(pack.reactions)));
      });
    }

    if (rng.chance(0.6))
      this.rec.segment('TRANSITION', rng.pick(pack.segmentTitles.TRANSITION), () =>
        this.rec.say(H0, plain(this.words.fresh(pack.transitions))),
      );
  }

  /** The interview (or a second topic), a caller, the outro. */
  private closing(cast: Cast, budget: number): void {
    const { rng, show, pack } = this;
    const { guest, panel } = cast;
    const { everyone, lead: H0, leadFirst: hostFirst } = discussants(cast);
    const { caller } = cast;

    const rest = Math.max(6, budget - this.rec.lines.length - 6);
    if (guest) {
      this.rec.segment('INTERVIEW', rng.pick(pack.segmentTitles.INTERVIEW), () => {
        const script = this.script.discussion(rest, [H0, guest], true);
        this.script.plantFocus(script, [H0, guest], 1);
        for (const s of script) this.rec.say(s.who, s.piece);
      });
    } else {
      const second = pack.topics.find((t) => t.id === show.topics[1]) ?? this.subject.topic;
      const concept = rng.pick(second.concepts);
      this.rec.segment(
        'TOPIC_DISCUSSION',
        capitalize(concept.headline),
        () => {
          const saved = this.subject.topic;
          this.subject.topic = second;
          const script = this.script.discussion(rest, everyone, false, panel.length > 0);
          this.subject.topic = saved;
          for (const s of script) this.rec.say(s.who, s.piece);
        },
        { topics: [second.id] },
      );
    }

    if (caller) {
      this.rec.segment('TOPIC_DISCUSSION', capitalize(rng.pick(this.subject.topic.concepts).headline), () => {
        this.rec.say(
          H0,
          this.words.tpl(rng.pick(pack.callerIntro), { caller: caller.name!, city: rng.pick(pack.cities) }),
        );
        this.rec.say(
          caller,
          join(
            plain(rng.pick(pack.callerOpen)),
            this.words.conceptPiece(rng.pick(this.subject.topic.concepts)),
          ),
        );
        if (rng.chance(0.5))
          this.rec.say(caller, this.words.conceptPiece(rng.pick(this.subject.topic.concepts)));
        this.rec.say(H0, join(plain(this.words.fresh(pack.reactions)), plain(rng.pick(pack.callerClose))));
      });
    }

    this.rec.segment('OUTRO', rng.pick(pack.segmentTitles.OUTRO), () => {
      if (guest) {
        this.rec.say(H0, this.words.tpl(rng.pick(pack.outroGuest), { guestFirst: guest.person!.first }));
        this.rec.say(guest, this.words.tpl(rng.pick(pack.guestReply), { hostFirst }));
      }
      this.rec.say(
        H0,
        this.words.tpl(rng.pick(pack.outro), { host: this.words.personFill(show.hosts[0]!, 'full') }),
      );
    });
  }

  /** The lines that end with a planted tail (a long answer's last sentence). */
  private tails(): GeneratedEpisode['tails'] {
    const planted = [...this.script.tails.values()];
    if (planted.length === 0) return [];
    const out: GeneratedEpisode['tails'] = [];
    for (const line of this.rec.lines) {
      if (speechTokens(line.text) < MONOLOGUE_TOKENS) continue;
      const tail = planted.find((t) => line.text.endsWith(t.text));
      if (!tail) continue;
      out.push({
        episode_id: this.id,
        line_number: line.number,
        tokens: speechTokens(line.text),
        concept: tail.concept,
        text: tail.text,
      });
    }
    return out;
  }

  private records(
    p: { title: string; description: string; slug: string; publishedAt: number },
    cast: Cast,
    featured: Set<string>,
  ): GeneratedEpisode {
    const { rng, show } = this;
    const { title, description, slug, publishedAt } = p;
    const { guest, panel, corr } = cast;
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

    const duration = Math.round((this.rec.t + rng.between(2, 8)) * 10) / 10;
    const episode: EpisodePublished = {
      id: this.id,
      slug,
      podcast_id: show.podcast.id,
      guid: `${show.podcast.slug}-${this.req.index + 1}`,
      title,
      description,
      published_at: publishedAt,
      duration_seconds: duration,
      audio_url: this.rec.audioUrl,
      image_url: show.podcast.image_url,
      language: null,
      people,
      source: 'corpus',
    };
    if (rng.chance(0.03)) this.rec.addWordTimings();
    const transcript: Transcript = {
      episode_id: this.id,
      language: show.podcast.language,
      lines: this.rec.lines,
      // Never after asOf: an episode 20 minutes old has been transcribed by then.
      transcribed_at: Math.min(this.req.asOf, publishedAt + rng.int(8, 45) * 60_000),
    };

    const hostIds = new Set(show.hosts.map((h) => h.entity.id));
    const entities: EntityRelevanceTruth[] = [];
    for (const [id, count] of this.rec.entityCounts) {
      const nonAd = this.rec.entityLines.get(id)?.size ?? 0;
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
    for (const [key, label] of this.rec.labels) {
      const p = this.rec.participantsByKey.get(key)!;
      speakers.push({
        label,
        person_id: p.person?.entity.id ?? null,
        name: p.person?.entity.name ?? p.name,
        role: p.role,
        line_count: this.rec.lineCounts.get(key) ?? 0,
      });
    }

    return {
      episode,
      transcript,
      segments: { episode_id: this.id, segments: this.rec.segments },
      clips: { episode_id: this.id, clips: this.clips() },
      adReads: { episode_id: this.id, ad_reads: this.rec.adReads },
      mentions: this.rec.mentions,
      speakers,
      entities,
      lineConcepts: this.rec.lineConcepts,
      tails: this.tails(),
    };
  }

  private clips() {
    const typeOffset = (this.req.show.index * 7 + this.req.index * 5) % CLIP_TYPES.length;
    return this.rec.clips(
      typeOffset,
      (speaker, headline) =>
        this.words.tpl(this.rng.pick(this.pack.clipIntros), {
          speaker: speaker ?? this.show.podcast.title,
          headline,
        }).text,
    );
  }
}
