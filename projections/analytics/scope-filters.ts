import { NO_MATCH, type QueryParams, type ScopeId } from './analytics-store.ts';

/**
 * SQL conditions the aggregate reads share: windows of time and the podcast / publisher / episode
 * a read is narrowed to. Values are bound as query parameters; a reference that resolved to
 * nothing (NO_MATCH) becomes a condition no row meets.
 */

/** The instant bound as parameter `name` (epoch milliseconds), as a DateTime64 in UTC. */
export const instant = (name: string) => `fromUnixTimestamp64Milli({${name}:Int64}, 'UTC')`;

/** `column` in `[lo, hi)`, the parameters `lo` and `hi` bound by the caller. */
export const inWindow = (column = 'published_at'): string[] => [
  `${column} >= ${instant('lo')}`,
  `${column} < ${instant('hi')}`,
];

/** `condition` with `id` bound as parameter `name`, or `0` (no row) when `id` is NO_MATCH. */
export function idFilter(params: QueryParams, name: string, id: ScopeId, condition: string): string {
  if (id === NO_MATCH) return '0';
  params[name] = id;
  return condition;
}

/** Rows of the podcasts of publisher `{publisher:String}`. */
export const PUBLISHER_PODCASTS =
  'podcast_id IN (SELECT id FROM podcasts FINAL WHERE publisher_id = {publisher:String})';

/** What a read is narrowed to; each absent field narrows nothing. */
export interface ScopeIds {
  podcastId?: ScopeId;
  publisherId?: ScopeId;
  episodeId?: ScopeId;
}

/** The conditions of `scope` (podcast, then publisher, then episode), binding their parameters. */
export function scopeFilters(params: QueryParams, scope: ScopeIds): string[] {
  const where: string[] = [];
  if (scope.podcastId !== undefined)
    where.push(idFilter(params, 'podcast', scope.podcastId, 'podcast_id = {podcast:String}'));
  if (scope.publisherId !== undefined)
    where.push(idFilter(params, 'publisher', scope.publisherId, PUBLISHER_PODCASTS));
  if (scope.episodeId !== undefined)
    where.push(idFilter(params, 'episode', scope.episodeId, 'episode_id = {episode:String}'));
  return where;
}
