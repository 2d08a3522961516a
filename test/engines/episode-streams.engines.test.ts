import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveStore } from '../../projections/archive/index.ts';
import { migrate } from '../../projections/state/migrations.ts';
import { PostgresStateStore } from '../../projections/state/postgres-state-store.ts';
import { testApi } from '../support/api.ts';
import { archiveParts, episodeEvents, podcastSummaryPart } from '../support/archive.ts';
import { sseClient } from '../support/sse-client.ts';
import { tempDir } from '../support/temp-dir.ts';
import { missing } from './engines-env.ts';
import { scratchDatabase } from './scratch-database.ts';

const reason = missing('DATABASE_URL');
const HOUR = 3_600_000;
const DAY = Date.UTC(2025, 9, 14);

/**
 * Two API instances on one PostgreSQL, each with its own connections, live feed and download
 * builds (as two processes would be), sharing the secrets key: a position one hands out resumes on
 * the other; the other sees new episodes by polling the live order (no projector of its own to
 * wake it); both build the same download bytes, so a download cut on one resumes on the other.
 */
if (reason) {
  describe('episode streams across API instances on PostgreSQL', () => {
    it.skip(reason, () => {});
  });
} else {
  describe('episode streams across API instances on PostgreSQL', () => {
    let db: Awaited<ReturnType<typeof scratchDatabase>>;
    const stores: PostgresStateStore[] = [];
    let a: Awaited<ReturnType<typeof testApi>>;
    let b: Awaited<ReturnType<typeof testApi>>;
    let urlA: string;
    let urlB: string;
    const builds = tempDir('earshot-engines-builds-');
    const secrets = { settings: { secretsKey: randomBytes(32) } };
    let n = 0;

    /** What the archive projector of a third process writes. */
    async function publish(publishedAt: number): Promise<string> {
      const id = `ep_pg_${++n}`;
      await new ArchiveStore(stores[2]!).write(
        archiveParts(episodeEvents({ id, podcastId: 'pod_pg', publishedAt }), Date.now()),
      );
      return id;
    }

    beforeAll(async () => {
      db = await scratchDatabase('earshot_streams');
      for (let i = 0; i < 3; i++) stores.push(new PostgresStateStore(db.url));
      await migrate(stores[0]!);
      await new ArchiveStore(stores[2]!).write([podcastSummaryPart('pod_pg')]);
      a = await testApi({ archiveBuildsDir: `${builds.dir}/a` }, undefined, {
        state: stores[0],
        archive: { pollMs: 100 },
        delivery: secrets,
      });
      b = await testApi({ archiveBuildsDir: `${builds.dir}/b` }, undefined, {
        state: stores[1],
        archive: { pollMs: 100 },
        delivery: secrets,
      });
      await a.accounts.grantEntitlement(a.projects.enterprise!, 'archive');
      urlA = await a.app.listen({ port: 0, host: '127.0.0.1' });
      urlB = await b.app.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      for (const s of stores) await s.close();
      await db?.drop();
      builds.remove();
    });

    it('resumes on one instance a live position handed out by the other, with no gap and no duplicate', async () => {
      const key = a.keys.enterprise!;
      const onA = sseClient(`${urlA}/v1/podcasts/episodes/stream`, key);
      const onB = sseClient(`${urlB}/v1/podcasts/episodes/stream`, key);
      try {
        await Promise.all([onA.waitForEvents('position', 1), onB.waitForEvents('position', 1)]);
        const first = await publish(DAY + HOUR);
        await Promise.all([onA.waitForEvents('episode', 1), onB.waitForEvents('episode', 1)]);
        expect(onB.episodes().map((e) => e.id)).toEqual([first]);
        const handedOutByA = onA.of('episode')[0]!.id;
        onA.close();
        const second = await publish(DAY + 2 * HOUR);
        const resumed = sseClient(`${urlB}/v1/podcasts/episodes/stream`, key, { lastEventId: handedOutByA });
        try {
          await resumed.waitForEvents('episode', 1);
          await new Promise((r) => setTimeout(r, 300));
          expect(resumed.episodes().map((e) => e.id)).toEqual([second]);
        } finally {
          resumed.close();
        }
      } finally {
        onA.close();
        onB.close();
      }
    });

    it('replays a period from a cursor of the other instance, and builds the same download bytes', async () => {
      const key = a.keys.enterprise!;
      const period = '2025-10-14';
      const onA = sseClient(`${urlA}/v1/podcasts/episodes/archive/stream?period=${period}`, key);
      await onA.waitForEvents('complete', 1);
      onA.close();
      expect(onA.of('episode').length).toBeGreaterThanOrEqual(2);
      const onB = sseClient(`${urlB}/v1/podcasts/episodes/archive/stream?period=${period}`, key, {
        lastEventId: onA.of('episode')[0]!.id,
      });
      await onB.waitForEvents('complete', 1);
      onB.close();
      expect(onB.episodes().map((e) => e.id)).toEqual(
        onA
          .episodes()
          .slice(1)
          .map((e) => e.id),
      );

      const download = async (url: string, headers: Record<string, string> = {}) => {
        const res = await fetch(`${url}/v1/podcasts/episodes/archive/download?period=${period}`, {
          headers: { 'x-api-key': key, 'accept-encoding': 'identity', ...headers },
        });
        return {
          status: res.status,
          etag: res.headers.get('etag'),
          body: Buffer.from(await res.arrayBuffer()),
        };
      };
      const fromA = await download(urlA);
      const fromB = await download(urlB);
      expect(fromB.etag).toBe(fromA.etag);
      expect(fromB.body.equals(fromA.body)).toBe(true);
      const rest = await download(urlB, { range: 'bytes=100-', 'if-range': fromA.etag! });
      expect(rest.status).toBe(206);
      expect(Buffer.concat([fromA.body.subarray(0, 100), rest.body]).equals(fromA.body)).toBe(true);
    });
  });
}
