import type { SpeakerRole } from '../../schemas/event-enums.ts';
import { slug } from '../../schemas/text-folding.ts';
import type { AnalyticsStore, QueryParams, ScopeId } from './analytics-store.ts';
import { occupationTerm } from './occupations.ts';
import { instant, inWindow, scopeFilters } from './scope-filters.ts';

/**
 * Mention reads. A mention is a transcript line naming an entity (a line counts once per entity);
 * it is dated by its episode's publication time.
 *
 * Without a speaker-role filter the reads aggregate the per-episode rollup (`entity_episodes`);
 * with one they read the lines (`mention_lines`) whose speaker `episode_speakers` identifies in
 * that role. Both give the same counts for the same filters, so a timeseries and the by-podcast
 * totals always agree.
 */
/** The speaker roles a mention read can be narrowed to: the people of the show. */
export type MentionRole = Extract<SpeakerRole, 'GUEST' | 'HOST' | 'PANELIST' | 'CORRESPONDENT'>;

/** Speaker roles the `guest_*` filters describe. */
export const GUEST_ROLES: MentionRole[] = ['GUEST', 'PANELIST'];

export interface GuestCriteria {
  occupation?: string;
  field?: string;
  standing?: string;
  /** 1 professional, 2 senior, 3 distinguished: this level or above. */
  seniority?: number;
  capacity?: string;
  practicing?: boolean;
  inField?: boolean;
}

export interface MentionScope {
  entityId: string;
  /** Resolved podcast id; a reference that resolved to nothing matches nothing (NO_MATCH). */
  podcastId?: ScopeId;
  publisherId?: ScopeId;
  episodeId?: ScopeId;
  /** Role of the speaker of the mentioning line; absent for any speaker. */
  role?: MentionRole;
  includeAds: boolean;
  /** Primary language subtag (`fr` matches `fr-FR`). */
  lang?: string;
  guest?: GuestCriteria;
}

const LO = instant('lo');
const HI = instant('hi');

/** The table, conditions and aggregates a mention read runs over. */
export interface MentionSource {
  table: 'entity_episodes' | 'mention_lines';
  where: string[];
  /** Aggregate expressions (the -If variants take a condition). */
  mentions: (cond?: string) => string;
  episodes: (cond?: string) => string;
}

/**
 * Turns a mention scope (entity, podcast, publisher, episode, language, speaker role, guest
 * criteria) into the table a read scans and its conditions. Whether a term names a catalog
 * occupation is looked up once a minute per term.
 */
export class MentionSources {
  private readonly occupationCache = new Map<string, { known: boolean; until: number }>();

  constructor(private readonly store: AnalyticsStore) {}

  /** Whether any person in the catalog has an occupation the term names. */
  private async occupationKnown(term: string, condition: string, params: QueryParams): Promise<boolean> {
    const hit = this.occupationCache.get(term);
    if (hit && hit.until > Date.now()) return hit.known;
    const [row] = await this.store.query<{ known: number }>(
      `SELECT count() > 0 AS known FROM entities FINAL WHERE kind = 'PERSON' AND ${condition}`,
      params,
    );
    const known = Number(row?.known ?? 0) === 1;
    if (this.occupationCache.size > 1000) this.occupationCache.clear();
    this.occupationCache.set(term, { known, until: Date.now() + 60_000 });
    return known;
  }

  /** Conditions on `episode_speakers` rows that select the guests the criteria describe. */
  async guestConditions(g: GuestCriteria, params: QueryParams): Promise<string[]> {
    const speaker: string[] = [];
    const person: string[] = [];
    const field = (name: string, term: string) => {
      params[name] = term.trim().toLowerCase();
      params[`${name}_slug`] = slug(term);
      return `(lower(field_code) = {${name}:String} OR field_slug = {${name}_slug:String} OR lower(field_title) = {${name}:String})`;
    };
    if (g.occupation !== undefined) {
      const { text, slugs } = occupationTerm(g.occupation);
      params.g_occ = text;
      params.g_occ_slugs = slugs;
      const occupation = `(lower(occupation_code) = {g_occ:String} OR occupation_slug IN {g_occ_slugs:Array(String)}
        OR lower(occupation_title) = {g_occ:String} OR lower(occupation_group) = {g_occ:String})`;
      if (await this.occupationKnown(text, occupation, { g_occ: text, g_occ_slugs: slugs })) {
        person.push(occupation);
      } else {
        // Not an occupation: the word names a research field or a speaking capacity instead.
        params.g_occ_capacity = slug(g.occupation).replaceAll('-', '_');
        speaker.push(
          `(capacity = {g_occ_capacity:String} OR person_id IN (SELECT id FROM entities FINAL WHERE kind = 'PERSON' AND ${field('g_occ_field', g.occupation)}))`,
        );
      }
    }
    if (g.field !== undefined) person.push(field('g_field', g.field));
    if (g.standing !== undefined) {
      params.g_standing = g.standing;
      person.push('standing = {g_standing:String}');
    }
    if (g.seniority !== undefined) {
      params.g_seniority = g.seniority;
      person.push('seniority_level >= {g_seniority:UInt8}');
    }
    if (g.practicing !== undefined) {
      params.g_practicing = g.practicing ? 1 : 0;
      person.push('practicing = {g_practicing:UInt8}');
    }
    if (g.capacity !== undefined) {
      params.g_capacity = g.capacity;
      speaker.push('capacity = {g_capacity:String}');
    }
    if (g.inField !== undefined) {
      params.g_in_field = g.inField ? 1 : 0;
      speaker.push('in_field = {g_in_field:UInt8}');
    }
    if (person.length > 0) {
      speaker.push(
        `person_id IN (SELECT id FROM entities FINAL WHERE kind = 'PERSON' AND ${person.join(' AND ')})`,
      );
    }
    return speaker;
  }

  /** The table, conditions and aggregates for a scope over `[lo, hi)`. */
  async resolve(scope: MentionScope, params: QueryParams, lines = false): Promise<MentionSource> {
    params.entity = scope.entityId;
    const where = ['entity_id = {entity:String}', ...inWindow(), ...scopeFilters(params, scope)];
    if (scope.lang !== undefined) {
      params.lang = scope.lang;
      where.push('lang = {lang:String}');
    }
    const guest =
      scope.guest && Object.keys(scope.guest).length > 0
        ? await this.guestConditions(scope.guest, params)
        : [];
    const speakers = (roles: string, extra: string[]) =>
      `SELECT episode_id, label FROM episode_speakers FINAL
       WHERE role IN ${roles} AND published_at >= ${LO} AND published_at < ${HI}${extra.map((c) => ` AND ${c}`).join('')}`;
    if (scope.role !== undefined || lines) {
      if (!scope.includeAds) where.push('in_ad = 0');
      if (scope.role !== undefined) {
        params.role = scope.role;
        const onSpeaker = GUEST_ROLES.includes(scope.role) ? guest : [];
        where.push(`(episode_id, speaker) IN (${speakers('({role:String})', onSpeaker)})`);
        if (guest.length > 0 && onSpeaker.length === 0) {
          where.push(`episode_id IN (SELECT episode_id FROM (${speakers("('GUEST', 'PANELIST')", guest)}))`);
        }
      } else if (guest.length > 0) {
        where.push(`episode_id IN (SELECT episode_id FROM (${speakers("('GUEST', 'PANELIST')", guest)}))`);
      }
      return {
        table: 'mention_lines',
        where,
        mentions: (c) => (c ? `countIf(${c})` : 'count()'),
        episodes: (c) => (c ? `uniqExactIf(episode_id, ${c})` : 'uniqExact(episode_id)'),
      };
    }
    where.push(scope.includeAds ? 'lines > 0' : 'lines > ad_lines');
    if (guest.length > 0) {
      where.push(`episode_id IN (SELECT episode_id FROM (${speakers("('GUEST', 'PANELIST')", guest)}))`);
    }
    const n = scope.includeAds ? 'lines' : '(lines - ad_lines)';
    return {
      table: 'entity_episodes',
      where,
      mentions: (c) => (c ? `sumIf(${n}, ${c})` : `sum(${n})`),
      episodes: (c) => (c ? `countIf(${c})` : 'count()'),
    };
  }
}
