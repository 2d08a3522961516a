import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { episodePart, transcriptPart } from '../../projections/archive/archive-parts.ts';
import { ArchiveStore } from '../../projections/archive/archive-store.ts';
import { migrate } from '../../projections/state/migrations.ts';
import type { StateStore } from '../../projections/state/state-store.ts';
import { archiveParts, episodeEvents, podcastSummaryPart } from '../support/archive.ts';

export interface ArchiveFixture {
  store: StateStore;
  cleanup(): Promise<void>;
}

const HOUR = 3_600_000;

/**
 * The episode archive on a state store adapter (PGlite in `npm test`, PostgreSQL in
 * `npm run test:engines`): completeness, idempotent versioned parts, publication order per UTC
 * day with its build generation, the live order in commit order, and a rebuild.
 */
export function archiveStoreContract(adapter: string, setup: () => Promise<ArchiveFixture>) {
  describe(`archive store contract: ${adapter}`, () => {
    let fx: ArchiveFixture;
    let archive: ArchiveStore;
    // Days of their own: a year no other test writes.
    const year = 2100 + Math.floor(Math.random() * 90);
    const dayStart = (d: number) => Date.UTC(year, 0, d);
    const run = randomUUID().slice(0, 8);
    const id = (n: string) => `ep_${run}_${n}`;
    const day = (d: number) => `${year}-01-${String(d).padStart(2, '0')}`;

    beforeAll(async () => {
      fx = await setup();
      await migrate(fx.store);
      archive = new ArchiveStore(fx.store);
      await archive.write([
        podcastSummaryPart('pod_x'),
        podcastSummaryPart('pod_y', 1, { publisherId: 'pub_y' }),
      ]);
    });
    afterAll(async () => {
      await fx?.cleanup();
    });

    const ids = async (from: number, to: number) =>
      (await archive.page({ from: day(from), to: day(to), limit: 1000, heavy: [] })).rows.map(
        (r) => r.episode_id,
      );
    const dayOf = async (d: number) => (await archive.days(day(d), day(d)))[0];
    const liveIds = async (after: number) =>
      (await archive.liveAfter(after, 1000)).entries.map((e) => e.episode_id);

    it('holds an episode once its episode, transcript, mentions and speakers are in; segments and clips join later', async () => {
      const head = await archive.liveHead();
      const e = episodeEvents({ id: id('a'), podcastId: 'pod_x', publishedAt: dayStart(1) + 10 * HOUR });
      const [episode, transcript, segments, clips, mentions, speakers] = archiveParts(e, 1000);
      expect(await archive.write([episode!, transcript!, mentions!])).toEqual({
        changed: 1,
        completed: 0,
        announced: 0,
      });
      expect(await ids(1, 1)).toEqual([]);
      expect(await liveIds(head)).toEqual([]);
      expect(await archive.write([speakers!])).toEqual({ changed: 1, completed: 1, announced: 1 });
      expect(await ids(1, 1)).toEqual([id('a')]);
      expect(await liveIds(head)).toEqual([id('a')]);
      const [row] = await archive.records([id('a')], ['transcript', 'segments', 'clips']);
      expect(row).toMatchObject({ episode_id: id('a'), podcast_id: 'pod_x', day: day(1), segments: null });
      expect(JSON.parse(row!.transcript!).lines).toHaveLength(3);
      const before = await dayOf(1);
      expect(before).toMatchObject({ day: day(1), episodes: 1 });
      await archive.write([segments!, clips!]);
      const [later] = await archive.records([id('a')], ['segments', 'clips']);
      expect(JSON.parse(later!.segments!)).toHaveLength(1);
      expect(JSON.parse(later!.clips!)).toHaveLength(1);
      // New content: a new change stamp, the same generation (the order did not change).
      const after = await dayOf(1);
      expect(after!.generation).toBe(before!.generation);
      expect(after!.changed).toBeGreaterThan(before!.changed);
      // Announced once, whatever comes later.
      expect(await liveIds(head)).toEqual([id('a')]);
    });

    it('completes an episode when its podcast arrives, and restamps its days when the podcast changes', async () => {
      const head = await archive.liveHead();
      const pod = `pod_${run}`;
      const e = episodeEvents({
        id: id('p'),
        podcastId: pod,
        publishedAt: dayStart(15) + HOUR,
        language: 'fr',
      });
      expect(await archive.write(archiveParts(e, 1))).toMatchObject({ completed: 0 });
      expect(await liveIds(head)).toEqual([]);
      expect(
        await archive.write([podcastSummaryPart(pod, 1, { publisherId: 'pub_p', language: 'de' })]),
      ).toEqual({
        changed: 1,
        completed: 1,
        announced: 1,
      });
      const { entries } = await archive.liveAfter(head, 10);
      expect(entries).toMatchObject([
        { episode_id: id('p'), podcast_id: pod, publisher_id: 'pub_p', language: 'fr' },
      ]);
      const [row] = await archive.records([id('p')], []);
      expect(JSON.parse(row!.podcast)).toEqual({
        id: pod,
        title: `Podcast ${pod}`,
        image_url: null,
        slug: `${pod}-slug`,
      });
      const before = (await dayOf(15))!;
      expect(
        await archive.write([podcastSummaryPart(pod, 1, { publisherId: 'pub_p', language: 'de' })]),
      ).toMatchObject({
        changed: 0,
      });
      await archive.write([podcastSummaryPart(pod, 2, { publisherId: 'pub_q', language: 'de' })]);
      const after = (await dayOf(15))!;
      expect(after.changed).toBeGreaterThan(before.changed);
      expect(after.generation).toBe(before.generation);
      expect((await archive.liveAfter(head, 10)).entries[0]!.publisher_id).toBe('pub_q');
    });

    it('ignores a replay and an older version; takes a newer one, or an equal one with other content', async () => {
      const e = episodeEvents({ id: id('b'), podcastId: 'pod_x', publishedAt: dayStart(2) + HOUR });
      await archive.write(archiveParts(e, 5000));
      const stamp = (await dayOf(2))!;
      expect(await archive.write(archiveParts(e, 5000))).toEqual({ changed: 0, completed: 0, announced: 0 });
      const older = transcriptPart({ ...e.transcript, lines: e.transcript.lines.slice(0, 1) }, 4000);
      expect(await archive.write([older])).toMatchObject({ changed: 0 });
      expect(await dayOf(2)).toEqual(stamp);
      const same = transcriptPart({ ...e.transcript, lines: e.transcript.lines.slice(0, 2) }, 5000);
      expect(await archive.write([same])).toMatchObject({ changed: 1 });
      const [row] = await archive.records([id('b')], ['transcript']);
      expect(JSON.parse(row!.transcript!).lines).toHaveLength(2);
      // Within one batch the later of two equal versions wins (log order).
      const first = transcriptPart({ ...e.transcript, lines: e.transcript.lines.slice(0, 1) }, 6000);
      const second = transcriptPart(e.transcript, 6000);
      await archive.write([first, second]);
      const [again] = await archive.records([id('b')], ['transcript']);
      expect(JSON.parse(again!.transcript!).lines).toHaveLength(3);
    });

    it('reads a period in publication order, page by page, and changes a day’s generation only for a late episode', async () => {
      const at = (h: number) => dayStart(3) + h * HOUR;
      await archive.write(
        archiveParts(episodeEvents({ id: id('c1'), podcastId: 'pod_x', publishedAt: at(5) }), 1),
      );
      const g1 = (await dayOf(3))!.generation;
      // After the last one: appended, same generation.
      await archive.write(
        archiveParts(episodeEvents({ id: id('c3'), podcastId: 'pod_y', publishedAt: at(9) }), 1),
      );
      expect((await dayOf(3))!.generation).toBe(g1);
      // Before the last one: late, a new generation.
      await archive.write(
        archiveParts(episodeEvents({ id: id('c2'), podcastId: 'pod_x', publishedAt: at(7) }), 1),
      );
      const g2 = (await dayOf(3))!.generation;
      expect(g2).toBeGreaterThan(g1);
      await archive.write(
        archiveParts(episodeEvents({ id: id('d1'), podcastId: 'pod_x', publishedAt: dayStart(4) }), 1),
      );
      expect(await ids(3, 4)).toEqual([id('c1'), id('c2'), id('c3'), id('d1')]);
      expect((await dayOf(3))!.episodes).toBe(3);
      // Page after a position.
      const page = await archive.page({
        from: day(3),
        to: day(4),
        after: { publishedMs: at(7), episodeId: id('c2') },
        limit: 1,
        heavy: [],
      });
      expect(page.rows.map((r) => r.episode_id)).toEqual([id('c3')]);
      expect(page.days.map((d) => d.day)).toEqual([day(3), day(4)]);
    });

    it('moves an episode whose publication time changes: both days reorder, an emptied day goes', async () => {
      const e = episodeEvents({ id: id('m'), podcastId: 'pod_x', publishedAt: dayStart(6) + HOUR });
      await archive.write(archiveParts(e, 1));
      await archive.write(
        archiveParts(
          episodeEvents({ id: id('n'), podcastId: 'pod_x', publishedAt: dayStart(7) + 5 * HOUR }),
          1,
        ),
      );
      const g7 = (await dayOf(7))!.generation;
      await archive.write([episodePart({ ...e.episode, published_at: dayStart(7) + 9 * HOUR }, 2)]);
      expect(await dayOf(6)).toBeUndefined();
      expect((await dayOf(7))!.generation).toBeGreaterThan(g7);
      expect(await ids(6, 7)).toEqual([id('n'), id('m')]);
    });

    it('makes live positions visible in commit order while writers run at once', async () => {
      const head = await archive.liveHead();
      const seen: number[][] = [];
      let writing = true;
      const reader = (async () => {
        while (writing) seen.push((await archive.liveAfter(head, 1000)).entries.map((e) => e.seq));
      })();
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          archive.write(
            archiveParts(
              episodeEvents({ id: id(`w${i}`), podcastId: 'pod_x', publishedAt: dayStart(10) + i * 60_000 }),
              1,
            ),
          ),
        ),
      );
      writing = false;
      await reader;
      const final = (await archive.liveAfter(head, 1000)).entries.map((e) => e.seq);
      expect(final).toHaveLength(12);
      expect([...final].sort((a, b) => a - b)).toEqual(final);
      // Every read saw a prefix of the final order: no position appeared before a smaller one.
      for (const snapshot of seen) expect(final.slice(0, snapshot.length)).toEqual(snapshot);
      expect(await archive.liveHead()).toBe(final.at(-1));
      const next = await archive.liveNext(head);
      expect(next?.seq).toBe(final[0]);
      expect(await archive.liveOldestSince(0)).toBeLessThanOrEqual(final[0]!);
    });

    it('rebuilds: emptied, written again with new generations, nothing announced twice, the live order waiting meanwhile', async () => {
      const e = episodeEvents({ id: id('r'), podcastId: 'pod_x', publishedAt: dayStart(20) + HOUR });
      const head = await archive.liveHead();
      await archive.write(archiveParts(e, 1));
      const before = (await dayOf(20))!;
      const live = await archive.liveAfter(head, 10);
      expect(live.entries.map((x) => x.episode_id)).toEqual([id('r')]);
      await archive.clear();
      expect(await ids(1, 31)).toEqual([]);
      expect(await archive.liveAfter(head, 10)).toEqual({ entries: [], held: true });
      expect(await archive.write(archiveParts(e, 1))).toEqual({ changed: 1, completed: 0, announced: 0 });
      expect(await archive.write([podcastSummaryPart('pod_x')])).toEqual({
        changed: 1,
        completed: 1,
        announced: 0,
      });
      const after = (await dayOf(20))!;
      expect(after.generation).not.toBe(before.generation);
      expect(after.generation).toBeGreaterThan(before.generation);
      expect((await archive.liveAfter(head, 10)).entries.map((x) => x.episode_id)).toEqual([id('r')]);
    });
  });
}
