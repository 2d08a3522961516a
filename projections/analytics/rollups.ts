import type { AnalyticsStore } from './analytics-store.ts';

/**
 * Rollups the catalog-surface list reads scan instead of raw rows (schemas/clickhouse/008_rollups.sql),
 * recomputed at projection time from what the projectors wrote:
 *
 * - `episode_dates`: the catalog's episodes by publication time, for those a batch carried;
 * - `topic_episode_entities`: per (topic, episode), counts and the entities' lines inside the
 *   segments, for the episodes whose segments, mentions or catalog record a batch carried —
 *   whichever arrives last completes the row; then its day rollups `topic_days` (per topic and
 *   UTC day), `podcast_topic_days` (per podcast, topic and day) and `topic_podcasts` (per topic
 *   and podcast, its days) for the keys those episodes had before and have now
 *   (schemas/clickhouse/010_topic_days.sql);
 * - `guest_totals`: per person, for the people a batch's speaker sets name and those the same
 *   episodes named before (found through the deletion markers `guest_appearances` keeps, which
 *   carry the person in their key);
 * - `sponsor_totals`: per sponsor, for the sponsors a batch's ad reads name, now or at an earlier
 *   version (read from their ranges of `sponsor_ad_reads`, the ad reads sorted by sponsor);
 * - `sponsor_episodes`: per (sponsor, episode), for the episodes whose ad reads or catalog record
 *   a batch carried (schemas/clickhouse/011_sponsor_episodes.sql).
 *
 * Each recompute reads the source tables as they are (FINAL), writes deletion markers over what
 * the rollup held for its keys, then the new rows one version above: a replayed or duplicated
 * batch recomputes the same values (nothing counts twice), and a batch replayed after a crash
 * recomputes what the first attempt may have left undone, because the keys come from the batch,
 * not from what the writer found new.
 *
 * Versions are microseconds of the **store's** clock, read when a recompute starts (after the
 * batch's source rows are written, before they are read), kept strictly increasing in a process.
 * One clock for every process that writes the rollups: whichever recompute takes the highest
 * version read every source row written by the recomputes below it, so it holds the complete
 * figures whatever the hosts' clocks say. With each host's own clock, a host running ahead could
 * give an earlier recompute, which missed another instance's rows, the higher version for good.
 * Recomputes of one store in one process run one at a time.
 */
/** A key of the topic day rollups: a podcast's topic on a UTC day (`YYYY-MM-DD`). */
interface TopicDayKey {
  podcast_id: string;
  topic: string;
  day: string;
}

export class Rollups {
  #last = 0;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly store: AnalyticsStore) {}

  /** A version above every earlier one (markers take it, rows it + 1), from the store's clock. */
  private async version(): Promise<number> {
    const [row] = await this.store.query<{ now: string }>(
      'SELECT toString(toUnixTimestamp64Micro(now64(6))) AS now',
    );
    this.#last = Math.max(Number(row?.now ?? 0), this.#last + 2);
    return this.#last;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Recomputes the publication-time rows of these episodes. */
  episodes(episodeIds: readonly string[]): Promise<void> {
    if (episodeIds.length === 0) return Promise.resolve();
    return this.serial(async () => {
      const ids = [...new Set(episodeIds)];
      const v = await this.version();
      await this.store.command(
        `INSERT INTO episode_dates (published_at, id, version, is_deleted)
         SELECT published_at, id, {v:UInt64}, 1 FROM episode_dates FINAL WHERE id IN {ids:Array(String)}`,
        { ids, v },
      );
      await this.store.command(
        `INSERT INTO episode_dates (published_at, id, podcast_id, version, is_deleted)
         SELECT published_at, id, podcast_id, {v:UInt64} + 1, 0 FROM episodes FINAL WHERE id IN {ids:Array(String)}`,
        { ids, v },
      );
    });
  }

  /** Recomputes the topic rows of these episodes. */
  topics(episodeIds: readonly string[]): Promise<void> {
    if (episodeIds.length === 0) return Promise.resolve();
    return this.serial(async () => {
      // Only episodes with segments can have topic rows (a cheap look-up by key first: most
      // episodes of a backfill reach the catalog and the mentions before their segments).
      const ids = (
        await this.store.query<{ episode_id: string }>(
          `SELECT DISTINCT episode_id FROM episode_versions
           WHERE kind = 'segments' AND episode_id IN {ids:Array(String)}`,
          { ids: [...new Set(episodeIds)] },
        )
      ).map((r) => r.episode_id);
      if (ids.length === 0) return;
      // The (podcast, topic, day) keys these episodes had before: their day rollups change too.
      const before = await this.topicDayKeys(ids);
      const v = await this.version();
      await this.store.command(
        `INSERT INTO topic_episode_entities (topic, published_at, episode_id, version, is_deleted)
         SELECT topic, published_at, episode_id, {v:UInt64}, 1 FROM topic_episode_entities FINAL
         WHERE episode_id IN {ids:Array(String)}`,
        { ids, v },
      );
      // A line inside two segments on one topic counts in each, as the segments list it; per
      // entity, sumMap adds up its lines inside each segment.
      await this.store.command(
        `INSERT INTO topic_episode_entities (topic, published_at, episode_id, podcast_id, segments, lines, entity_ids,
           entity_lines, version, is_deleted)
         SELECT topic, published_at, episode_id, podcast_id, segments, lines, counted.1,
           arrayMap(n -> toUInt32(n), counted.2), {v:UInt64} + 1, 0
         FROM (
           SELECT t.topic AS topic, e.published_at AS published_at, t.episode_id AS episode_id,
             e.podcast_id AS podcast_id, count() AS segments,
             sum(arrayCount(l -> l >= t.first_line AND l <= t.last_line, m.line_numbers)) AS lines,
             sumMap(arrayFilter((x, l) -> l >= t.first_line AND l <= t.last_line, m.entity_ids, m.line_numbers) AS inside,
               arrayMap(x -> toUInt64(1), inside)) AS counted
           FROM (SELECT topic, episode_id, first_line, last_line FROM segment_topics FINAL
                 WHERE episode_id IN {ids:Array(String)}) AS t
           INNER JOIN (SELECT id, podcast_id, published_at FROM episodes FINAL WHERE id IN {ids:Array(String)}) AS e
             ON e.id = t.episode_id
           LEFT JOIN (SELECT episode_id, entity_ids, line_numbers FROM episode_mention_lines FINAL
                 WHERE episode_id IN {ids:Array(String)}) AS m
             ON m.episode_id = t.episode_id
           GROUP BY t.topic, e.published_at, t.episode_id, e.podcast_id)`,
        { ids, v },
      );
      await this.topicDays([...before, ...(await this.topicDayKeys(ids))], v);
    });
  }

  /** The (podcast, topic, UTC day) keys of these episodes' rows of `topic_episode_entities`. */
  private async topicDayKeys(ids: readonly string[]): Promise<TopicDayKey[]> {
    return this.store.query<TopicDayKey>(
      `SELECT DISTINCT toString(podcast_id) AS podcast_id, toString(topic) AS topic,
         toString(toDate(published_at)) AS day
       FROM topic_episode_entities FINAL WHERE episode_id IN {ids:Array(String)}`,
      { ids: [...ids] },
    );
  }

  /**
   * Recomputes the day rollups (`topic_days`, `podcast_topic_days`) of these keys from
   * `topic_episode_entities` as it is now, then the keys' (topic, podcast) days (`topic_podcasts`)
   * from `podcast_topic_days`: markers at `v` over what they held, new rows at v + 1. The sources
   * are read by their sorting keys (topic and publication time; podcast).
   */
  private async topicDays(keys: readonly TopicDayKey[], v: number): Promise<void> {
    if (keys.length === 0) return;
    const topicDays = [...new Set(keys.map((k) => `${k.topic}|${k.day}`))];
    const podcastDays = [...new Set(keys.map((k) => `${k.podcast_id}|${k.topic}|${k.day}`))];
    await this.store.insert(
      'topic_days',
      ['topic', 'day', 'version', 'is_deleted'],
      topicDays.map((k) => [...k.split('|'), v, 1]),
    );
    await this.store.insert(
      'podcast_topic_days',
      ['podcast_id', 'topic', 'day', 'version', 'is_deleted'],
      podcastDays.map((k) => [...k.split('|'), v, 1]),
    );
    const days = keys.map((k) => k.day).sort();
    const params = {
      topics: [...new Set(keys.map((k) => k.topic))],
      from: days[0]!,
      to: days[days.length - 1]!,
      topicDays,
      podcastDays,
      v,
    };
    const source = `FROM topic_episode_entities FINAL
       WHERE topic IN {topics:Array(String)} AND published_at >= toDateTime64({from:Date}, 3, 'UTC')
         AND published_at < toDateTime64({to:Date} + 1, 3, 'UTC')`;
    await this.store.command(
      `INSERT INTO topic_days (topic, day, episodes, segments, lines, version, is_deleted)
       SELECT topic, toDate(published_at) AS day, count(), sum(segments), sum(lines), {v:UInt64} + 1, 0
       ${source} AND concat(toString(topic), '|', toString(toDate(published_at))) IN {topicDays:Array(String)}
       GROUP BY topic, day`,
      params,
    );
    await this.store.command(
      `INSERT INTO podcast_topic_days (podcast_id, day, topic, episodes, segments, lines, version, is_deleted)
       SELECT podcast_id, toDate(published_at) AS day, topic, count(), sum(segments), sum(lines), {v:UInt64} + 1, 0
       ${source}
         AND concat(toString(podcast_id), '|', toString(topic), '|', toString(toDate(published_at)))
           IN {podcastDays:Array(String)}
       GROUP BY podcast_id, day, topic`,
      params,
    );
    // Then each pair's days, from the podcast's range of podcast_topic_days as just written.
    const pairs = [...new Set(keys.map((k) => `${k.podcast_id}|${k.topic}`))];
    await this.store.insert(
      'topic_podcasts',
      ['podcast_id', 'topic', 'version', 'is_deleted'],
      pairs.map((k) => [...k.split('|'), v, 1]),
    );
    await this.store.command(
      `INSERT INTO topic_podcasts (topic, podcast_id, days, version, is_deleted)
       SELECT topic, podcast_id, arraySort(groupUniqArray(toUInt16(day))), {v:UInt64} + 1, 0
       FROM podcast_topic_days FINAL
       WHERE podcast_id IN {podcasts:Array(String)} AND concat(toString(podcast_id), '|', toString(topic)) IN {pairs:Array(String)}
       GROUP BY topic, podcast_id`,
      { podcasts: [...new Set(keys.map((k) => k.podcast_id))], pairs, v },
    );
  }

  /**
   * Recomputes the guest totals of the people `persons` names and of every person the speaker
   * sets of `episodeIds` named at any version.
   */
  guests(episodeIds: readonly string[], persons: readonly string[]): Promise<void> {
    if (episodeIds.length === 0 && persons.length === 0) return Promise.resolve();
    return this.serial(async () => {
      const earlier =
        episodeIds.length === 0
          ? []
          : await this.store.query<{ person_id: string }>(
              // Without FINAL: the markers of replaced sets still name their people.
              `SELECT DISTINCT person_id FROM guest_appearances WHERE episode_id IN {ids:Array(String)}`,
              { ids: [...new Set(episodeIds)] },
            );
      const people = [...new Set([...persons, ...earlier.map((r) => r.person_id)])];
      if (people.length === 0) return;
      const v = await this.version();
      await this.store.insert(
        'guest_totals',
        ['person_id', 'version', 'is_deleted'],
        people.map((p) => [p, v, 1]),
      );
      await this.store.command(
        `INSERT INTO guest_totals (person_id, appearances, podcast_count, line_count, first_appearance,
           last_appearance, last_episode_id, capacities, roles, version, is_deleted)
         SELECT person_id, uniqExact(episode_id), uniqExact(podcast_id), sum(line_count), min(published_at),
           max(published_at), argMax(episode_id, (published_at, episode_id)),
           arraySort(arrayFilter(c -> c != '', groupUniqArray(toString(capacity)))),
           arraySort(groupUniqArray(toString(role))), {v:UInt64} + 1, 0
         FROM guest_appearances FINAL
         WHERE person_id IN {people:Array(String)} AND published_at > toDateTime64(0, 3, 'UTC')
         GROUP BY person_id`,
        { people, v },
      );
    });
  }

  /**
   * Recomputes the (sponsor, episode) rows of these episodes from their ad reads as they are now
   * (network promos left out, known dates only): markers over every row the episodes have, then
   * one row per sponsor with its ads in the episode.
   */
  sponsorEpisodes(episodeIds: readonly string[]): Promise<void> {
    if (episodeIds.length === 0) return Promise.resolve();
    return this.serial(async () => {
      const ids = [...new Set(episodeIds)];
      const v = await this.version();
      await this.store.command(
        `INSERT INTO sponsor_episodes (published_at, sponsor_key, episode_id, version, is_deleted)
         SELECT published_at, sponsor_key, episode_id, {v:UInt64}, 1 FROM sponsor_episodes FINAL
         WHERE episode_id IN {ids:Array(String)}`,
        { ids, v },
      );
      await this.store.command(
        `INSERT INTO sponsor_episodes (published_at, sponsor_key, episode_id, podcast_id, sponsor_name, company_id, ads,
           version, is_deleted)
         SELECT any(published_at), sponsor_key, episode_id, any(podcast_id), any(sponsor_name), any(company_id), count(),
           {v:UInt64} + 1, 0
         FROM ad_reads FINAL
         WHERE episode_id IN {ids:Array(String)} AND is_network_promo = 0 AND published_at > toDateTime64(0, 3, 'UTC')
         GROUP BY sponsor_key, episode_id`,
        { ids, v },
      );
    });
  }

  /**
   * Recomputes the all-time figures of these sponsors from their ranges of `sponsor_ad_reads`
   * (sorted by sponsor): a sponsor with no ad left is marked deleted.
   */
  sponsors(sponsorKeys: readonly string[]): Promise<void> {
    if (sponsorKeys.length === 0) return Promise.resolve();
    return this.serial(async () => {
      const keys = [...new Set(sponsorKeys)];
      const v = await this.version();
      await this.store.insert(
        'sponsor_totals',
        ['sponsor_key', 'version', 'is_deleted'],
        keys.map((k) => [k, v, 1]),
      );
      await this.store.command(
        `INSERT INTO sponsor_totals (sponsor_key, sponsor_name, company_id, ad_count, episode_reach, podcast_reach,
           first_seen, last_seen, version, is_deleted)
         SELECT toString(sponsor_key), toString(any(sponsor_name)), toString(any(company_id)), count(),
           uniqExact(episode_id), uniqExact(podcast_id), min(published_at), max(published_at), {v:UInt64} + 1, 0
         FROM sponsor_ad_reads FINAL
         WHERE sponsor_key IN {keys:Array(String)} AND is_network_promo = 0
           AND published_at > toDateTime64(0, 3, 'UTC')
         GROUP BY sponsor_key`,
        { keys, v },
      );
    });
  }
}
