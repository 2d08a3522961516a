import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type ClusterState,
  clusterDown,
  clusterRestart,
  clusterStatus,
  clusterUp,
} from '../../infra/cluster.ts';
import { IngestState } from '../../ingest/loader/ingest-state.ts';
import { ClickHouseAnalyticsStore } from '../../projections/analytics/clickhouse-analytics-store.ts';
import { streamCatalog, streamEpisode } from '../support/cluster-stream.ts';
import { freePortRange } from '../support/free-port.ts';
import { startReceiver } from '../support/receiver.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import { missing } from './engines-env.ts';
import { scratchDatabase } from './scratch-database.ts';

/**
 * The local cluster on the real engines, two instances of each role, under faults: a stream of
 * episodes ingested over HTTP (alternating between the two ingest instances, each batch with an
 * `Idempotency-Key`), an alert on a company they name, webhooks to a local receiver, tool calls
 * to the agent-tool servers; one instance of each role is killed with SIGKILL in turn mid-stream
 * and started again — the ingest instance while it publishes a batch (its intent open in the
 * shared ingest state), the batch then retried with its key on the other one. At the end every
 * episode is in the feed, the search index and the analytics store exactly once, every match
 * exists once, every match reached the receiver (a repeat carries the same webhook id: at least
 * once, never a second delivery), every consumer group's lag is back to zero, and both
 * agent-tool servers answer tool calls with every episode (the surviving one answered while the
 * other was down).
 */
const reason = ['KAFKA_BROKERS', 'SCHEMA_REGISTRY_URL', 'DATABASE_URL', 'OPENSEARCH_URL']
  .map((v) => missing(v))
  .find(Boolean);

const KEY = `esk_cluster${randomBytes(12).toString('hex')}`;
const TOKEN = `eit_${randomBytes(24).toString('base64url')}`;
const EPISODES = 24;
const BATCH = 3;
const LINES = 8;
const run = randomBytes(4).toString('hex');
const POD = `pod_cluster_${run}`;

describe.skipIf(Boolean(reason))('a local cluster, two instances of each role, under kill -9', () => {
  const tmp = tempDir('earshot-cluster-');
  let state: ClusterState | undefined;
  let db: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
  let rx: Awaited<ReturnType<typeof startReceiver>> | undefined;
  let ingestState: IngestState | undefined;
  afterAll(async () => {
    await ingestState?.close();
    await clusterDown({ dir: tmp.dir }).catch(() => 0);
    await rx?.close?.();
    await db?.drop().catch(() => undefined);
    tmp.remove();
  });

  it('loses and duplicates nothing a user sees, and catches up', { timeout: 900_000 }, async () => {
    const t0 = Date.now();
    const log = (msg: string) => console.log(`[cluster ${((Date.now() - t0) / 1000).toFixed(1)} s] ${msg}`);
    db = await scratchDatabase('cluster');
    rx = await startReceiver(() => ({ status: 200 }));
    const prefix = `cl${run}.`;
    state = await clusterUp({
      dir: tmp.dir,
      counts: { api: 2, ingest: 2, processors: 2, projectors: 2, senders: 2, mcp: 2 },
      basePort: await freePortRange(7),
      env: {
        DATABASE_URL: db.url,
        EARSHOT_TOPIC_PREFIX: prefix,
        EARSHOT_SEARCH_INDEX_PREFIX: `earshot-${prefix}`,
        EARSHOT_DEMO: 'off',
        EARSHOT_BOOTSTRAP_API_KEY: KEY,
        EARSHOT_INGEST_TOKEN: TOKEN,
        EARSHOT_OUTBOUND_ALLOWLIST: '127.0.0.1/32',
        EARSHOT_EMBEDDINGS_FETCH: 'off',
        // No model: keyword indexing only (the embeddings would take both cores of this machine).
        EARSHOT_MODELS_DIR: `${tmp.dir}/no-models`,
        LOG_LEVEL: 'info',
      },
      onProgress: log,
    });
    const apis = state.instances.filter((i) => i.role === 'api').map((i) => `http://127.0.0.1:${i.port}`);
    let turn = 0;
    const down = new Set<string>();
    /** A live API instance, alternating. */
    const apiUrl = () => {
      for (let k = 0; k < apis.length; k++) {
        const url = apis[turn++ % apis.length]!;
        if (!down.has(url)) return url;
      }
      throw new Error('no API instance up');
    };
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${apiUrl()}${url}`, {
        method,
        headers: { 'x-api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return {
        status: res.status,
        json: (await res.json().catch(() => undefined)) as Record<string, unknown>,
      };
    };
    /** A `tools/call` JSON-RPC POST (stateless Streamable HTTP) to one agent-tool instance. */
    const mcpPort = (name: string) => state!.instances.find((i) => i.name === name)!.port!;
    const toolsAnswered = new Map<string, number>();
    const tool = async (name: string, toolName: string, args: Record<string, unknown>) => {
      const res = await fetch(`http://127.0.0.1:${mcpPort(name)}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${KEY}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: toolName, arguments: args },
        }),
      });
      const body = (await res.json()) as {
        result?: { isError?: boolean; structuredContent?: { data?: Record<string, unknown>[] } };
      };
      if (res.status !== 200 || !body.result || body.result.isError)
        throw new Error(`${name} ${toolName}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      toolsAnswered.set(name, (toolsAnswered.get(name) ?? 0) + 1);
      return body.result.structuredContent?.data ?? [];
    };
    const listEpisodes = (name: string) =>
      tool(name, 'earshot_list_episodes', { podcast_id: POD, limit: 100 });
    const mcpDown = new Set<string>();
    let refusedWhileDown = 0;

    // HTTP batch ingest: the ingest instances, alternating (the live ones); one key per batch.
    const ingests = state.instances.filter((i) => i.role === 'ingest');
    const ingestUrl = (name: string) => `http://127.0.0.1:${ingests.find((i) => i.name === name)!.port}`;
    const ingestDown = new Set<string>();
    let ingestTurn = 0;
    const nextIngest = () => {
      for (let k = 0; k < ingests.length; k++) {
        const name = ingests[ingestTurn++ % ingests.length]!.name;
        if (!ingestDown.has(name)) return name;
      }
      throw new Error('no ingest instance up');
    };
    const post = (name: string, records: unknown[], key: string) =>
      fetch(`${ingestUrl(name)}/v1/ingest/batches`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({ records }),
      });
    const acceptedBy = new Map<string, number>();
    /** Whether the last accepted batch was answered from its key's first answer. */
    let replayed = false;
    const ingest = async (records: unknown[], key: string) => {
      let answer: Record<string, unknown> | undefined;
      await waitFor(
        async () => {
          const name = nextIngest();
          const res = await post(name, records, key).catch(() => undefined);
          if (res?.status !== 202) return false;
          answer = (await res.json()) as Record<string, unknown>;
          replayed = res.headers.get('idempotent-replayed') === 'true';
          acceptedBy.set(name, (acceptedBy.get(name) ?? 0) + 1);
          return true;
        },
        { timeoutMs: 60_000, stepMs: 500, what: 'batch accepted' },
      );
      return answer!;
    };
    // What the test sees of the shared ingest state: a batch's intent, open while it publishes.
    ingestState = new IngestState(path.join(tmp.dir, 'ingest-state'));
    const intentsOpen = () => ingestState!.openIntents().length;
    let killedMidBatch = false;
    let retryAnswer: Record<string, unknown> | undefined;
    let retryReplayed = false;

    await ingest(streamCatalog(POD, run), `catalog-${run}`);
    const created = await api('POST', '/v1/projects/proj_demo/webhooks/connections', {
      url: `${rx.url}/earshot`,
      name: 'cluster receiver',
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const connectionId = String(created.json.id);
    let alertId = '';
    await waitFor(
      async () => {
        const res = await api('POST', '/v1/projects/proj_demo/alerts', {
          title: 'Northwind on the cluster',
          entities: [{ entity_type: 'COMPANY', entity_id: 'northwind-robotics' }],
          notifications: [{ type: 'WEBHOOK', webhook_connection_id: connectionId }],
        });
        if (res.status !== 201) return false;
        alertId = String(res.json.id);
        return true;
      },
      { timeoutMs: 120_000, stepMs: 500, what: 'alert created (the catalog projected)' },
    );
    log(`alert ${alertId} created`);

    // The stream, with one instance of each role killed and started again along the way (after
    // the batch of that index), and a tool call to each live agent-tool instance after each batch.
    const killAfter = new Map([
      [1, 'api-1'],
      [2, 'mcp-1'],
      [3, 'processors-1'],
      [4, 'ingest-1'],
      [5, 'projectors-1'],
      [7, 'senders-1'],
    ]);
    const batches = EPISODES / BATCH;
    for (let b = 0; b < batches; b++) {
      const records = [];
      for (let i = b * BATCH; i < (b + 1) * BATCH; i++)
        records.push(...streamEpisode(POD, `ep_cluster_${run}_${i}`, i));
      const key = `batch-${run}-${b}`;
      const name = killAfter.get(b);
      const inst = name ? state.instances.find((i) => i.name === name)! : undefined;
      if (inst?.role === 'ingest') {
        // Killed while it publishes this batch: the instance runs in slices of about a
        // millisecond (SIGCONT, SIGSTOP), and while it is stopped the test reads the shared ingest
        // state; once the batch's intent is open the stopped process is sent SIGKILL (should the
        // batch be answered first, it is killed after it). Then the batch is sent again with its
        // key to the other instance, which resolves the dead instance's intent from the log.
        const attempt = post(inst.name, records, key).then(
          (res) => `answered ${res.status}`,
          (err: unknown) => `failed (${(err as Error).message})`,
        );
        const t = Date.now();
        let settled = false;
        void attempt.then(() => (settled = true));
        while (!settled && Date.now() - t < 30_000) {
          process.kill(-inst.pid, 'SIGSTOP');
          if (intentsOpen() > 0) break;
          process.kill(-inst.pid, 'SIGCONT');
          await new Promise((r) => setTimeout(r, 1));
        }
        ingestDown.add(inst.name);
        process.kill(-inst.pid, 'SIGKILL');
        // Read after the kill: an intent still open was interrupted (nothing settles it now).
        await new Promise((r) => setTimeout(r, 200));
        killedMidBatch = intentsOpen() > 0;
        log(
          `${inst.name} killed (pid ${inst.pid}) ${killedMidBatch ? 'with its batch intent open' : 'after its batch was recorded'}; the request ${await attempt}`,
        );
        retryAnswer = await ingest(records, key);
        retryReplayed = replayed;
        log(
          `batch ${b} again with its key: ${JSON.stringify(retryAnswer)}${retryReplayed ? ' (replayed)' : ''}`,
        );
      } else {
        await ingest(records, key);
      }
      for (const mcpName of ['mcp-1', 'mcp-2']) if (!mcpDown.has(mcpName)) await listEpisodes(mcpName);
      if (inst) {
        const url = inst.role === 'api' ? `http://127.0.0.1:${inst.port}` : undefined;
        if (inst.role !== 'ingest') {
          if (url) down.add(url);
          if (inst.role === 'mcp') mcpDown.add(inst.name);
          process.kill(-inst.pid, 'SIGKILL');
          log(`${inst.name} killed (pid ${inst.pid})`);
        }
        if (inst.role === 'mcp') {
          // The killed instance refuses (once its socket is gone); the surviving one answers,
          // with what has been projected so far.
          await waitFor(
            () =>
              listEpisodes(inst.name).then(
                () => false,
                () => true,
              ),
            {
              timeoutMs: 10_000,
              stepMs: 100,
              what: `${inst.name} refusing after its kill`,
            },
          );
          refusedWhileDown++;
          const seen = await listEpisodes('mcp-2');
          log(`${inst.name} down: mcp-2 answered tool calls (${seen.length} episodes so far)`);
        }
        const restarted = await clusterRestart({ dir: tmp.dir, name: inst.name });
        inst.pid = restarted.pid;
        if (url) down.delete(url);
        mcpDown.delete(inst.name);
        ingestDown.delete(inst.name);
        log(`${inst.name} started again (pid ${restarted.pid})`);
      }
    }
    const intentsLeft = intentsOpen();
    await ingestState.close();
    ingestState = undefined;
    log(`${EPISODES} episodes ingested`);

    // Lag back to zero on every group, twice 3 s apart (not a rebalance's empty assignment).
    let zeroSince = 0;
    await waitFor(
      async () => {
        const status = await clusterStatus({ dir: tmp.dir });
        const groups = Object.values(status?.groups ?? {});
        const zero = groups.length >= 10 && groups.every((g) => g.lag === 0);
        if (!zero) zeroSince = 0;
        else zeroSince ||= Date.now();
        return zero && Date.now() - zeroSince >= 3_000;
      },
      { timeoutMs: 300_000, stepMs: 2_000, what: 'every consumer group caught up' },
    );
    log('lag 0 on every group');

    // Feed: every episode once.
    const feed = await waitForCount(
      async () => {
        const res = await api('GET', `/v1/podcasts/episodes?podcast_id=${POD}&limit=100`);
        return ((res.json?.data as { id: string }[]) ?? []).map((e) => e.id);
      },
      EPISODES,
      'feed',
    );
    // Search: every line of every episode once in the lines index.
    const os = process.env.OPENSEARCH_URL!.replace(/\/$/, '');
    await fetch(`${os}/earshot-${prefix}lines/_refresh`, { method: 'POST' });
    const searchCounts = await waitForCount(
      async () => {
        const res = await fetch(`${os}/earshot-${prefix}lines/_search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            size: 0,
            aggs: { eps: { terms: { field: 'episode_id', size: 1000 } } },
          }),
        });
        const body = (await res.json()) as {
          aggregations?: { eps: { buckets: { key: string; doc_count: number }[] } };
        };
        return (body.aggregations?.eps.buckets ?? []).map((b) => `${b.key}:${b.doc_count}`);
      },
      EPISODES,
      'search',
    );
    // Analytics: every episode once under FINAL, and its lines.
    const store = await ClickHouseAnalyticsStore.connect(state.clickhouse.url);
    const analytics = await store.query<{ id: string; n: number; lines: number }>(
      `SELECT e.id AS id, count() AS n, any(l.c) AS lines FROM episodes AS e FINAL
       LEFT JOIN (SELECT episode_id, count() AS c FROM transcript_lines FINAL GROUP BY episode_id) AS l
         ON l.episode_id = e.id
       WHERE e.podcast_id = {p:String} GROUP BY e.id`,
      { p: POD },
    );
    await store.close();
    // Matches: one per episode.
    const matches = await waitForCount(
      async () => {
        const res = await api('GET', `/v1/alerts/${alertId}/matches?limit=100`);
        return ((res.json?.data as { source_id: string }[]) ?? []).map((m) => m.source_id);
      },
      EPISODES,
      'matches',
    );
    // Tool calls: both agent-tool instances (mcp-1 restarted after its kill) list every episode
    // once and find the company in what was said.
    const toolEpisodes: Record<string, string[]> = {};
    const toolSearch: Record<string, string[]> = {};
    for (const name of ['mcp-1', 'mcp-2']) {
      toolEpisodes[name] = (await listEpisodes(name)).map((e) => String(e.id));
      toolSearch[name] = (
        await tool(name, 'earshot_search_dialogue', {
          keyword_search: 'Northwind Robotics',
          podcast_id: POD,
          limit: 10,
        })
      ).map((r) => String((r.episode as { id?: string } | undefined)?.id));
    }
    // Webhooks: each match at least once; a repeat is the same delivery (same webhook id).
    await waitFor(() => new Set(rx!.received.map((r) => matchOf(r.body))).size >= EPISODES, {
      timeoutMs: 120_000,
      stepMs: 500,
      what: 'a webhook for every match',
    });
    const byMatch = new Map<string, Set<string>>();
    for (const r of rx.received) {
      const m = matchOf(r.body);
      byMatch.set(m, (byMatch.get(m) ?? new Set()).add(String(r.headers['x-webhook-id'])));
    }

    // What the instances logged about batches a kill interrupted (resolved from the event log).
    const resolved = state.instances
      .filter((i) => i.role === 'ingest' || i.role === 'api')
      .flatMap((i) => readFileSync(i.log, 'utf8').split('\n'))
      .filter((line) => line.includes('resolved from the event log'))
      .map((line) => JSON.parse(line.slice(line.indexOf('{'))) as { records: number; in_log: number });
    console.log(
      [
        `cluster counts: episodes ingested ${EPISODES}`,
        `feed ${feed.length} (distinct ${new Set(feed).size})`,
        `search episodes ${searchCounts.length}, lines ${searchCounts.reduce((s, c) => s + Number(c.split(':').pop()), 0)}`,
        `analytics episodes ${analytics.length} (rows under FINAL ${analytics.reduce((s, r) => s + Number(r.n), 0)})`,
        `matches ${matches.length} (distinct ${new Set(matches).size})`,
        `webhooks received ${rx.received.length} for ${byMatch.size} matches, deliveries per match max ${Math.max(...[...byMatch.values()].map((s) => s.size))}`,
        `ingest batches accepted ${[...acceptedBy].map(([n, c]) => `${n} ${c}`).join(', ')}; ingest-1 killed ${killedMidBatch ? 'mid-batch (its intent open after the kill)' : 'after its batch was recorded'}, retry with the key answered published ${retryAnswer?.published} of ${retryAnswer?.received} (duplicates ${retryAnswer?.duplicates}${retryReplayed ? ', replayed' : ''}); interrupted batches resolved from the log ${resolved.length} (${resolved.map((r) => `${r.records} records, ${r.in_log} in the log`).join('; ') || '-'}); intents left open ${intentsLeft}`,
        `tool calls answered ${[...toolsAnswered].map(([n, c]) => `${n} ${c}`).join(', ')} (refused while killed ${refusedWhileDown}); episodes listed by tool mcp-1 ${toolEpisodes['mcp-1']!.length}, mcp-2 ${toolEpisodes['mcp-2']!.length}; dialogue hits mcp-1 ${toolSearch['mcp-1']!.length}, mcp-2 ${toolSearch['mcp-2']!.length}`,
        `elapsed ${((Date.now() - t0) / 1000).toFixed(0)} s`,
      ].join('; '),
    );
    expect(feed.length).toBe(EPISODES);
    expect(new Set(feed).size).toBe(EPISODES);
    expect(searchCounts).toHaveLength(EPISODES);
    expect(searchCounts.every((c) => c.endsWith(`:${LINES}`))).toBe(true);
    expect(analytics).toHaveLength(EPISODES);
    expect(analytics.every((r) => Number(r.n) === 1 && Number(r.lines) === LINES)).toBe(true);
    expect(matches).toHaveLength(EPISODES);
    expect(new Set(matches).size).toBe(EPISODES);
    expect(byMatch.size).toBe(EPISODES);
    expect([...byMatch.values()].every((ids) => ids.size === 1)).toBe(true);
    const episodeIds = new Set(feed);
    for (const name of ['mcp-1', 'mcp-2']) {
      expect(new Set(toolEpisodes[name]).size).toBe(EPISODES);
      expect(toolEpisodes[name]!.every((id) => episodeIds.has(id))).toBe(true);
      expect(toolSearch[name]!.length).toBeGreaterThan(0);
      expect(toolSearch[name]!.every((id) => episodeIds.has(id))).toBe(true);
    }
    expect(refusedWhileDown).toBe(1);
    // Both ingest instances took batches; no batch intent was left open.
    expect(acceptedBy.size).toBe(2);
    expect(intentsLeft).toBe(0);
    // A batch interrupted by the kill was resolved from the event log (and published once: the
    // end counts above).
    if (killedMidBatch) expect(resolved.length).toBeGreaterThan(0);
  });
});

function matchOf(body: unknown): string {
  return String((body as { match?: { id?: string } })?.match?.id);
}

/** Polls until `read` returns at least `n` items, then returns them. */
async function waitForCount<T>(read: () => Promise<T[]>, n: number, what: string): Promise<T[]> {
  let last: T[] = [];
  await waitFor(
    async () => {
      last = await read().catch(() => []);
      return last.length >= n;
    },
    { timeoutMs: 120_000, stepMs: 1_000, what: `${what}: ${n}` },
  );
  return last;
}
