import path from 'node:path';
import { freePort } from '../support/free-port.ts';
import { spawnEarshot } from '../support/service-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { type Bench, type BenchResult, percentile } from './bench.ts';

const KEY = 'esk_McpBenchMcpBenchMcpBenchMcpBench0001';
const WARMUP = 50;
const ROUNDS = 400;
/** What a tool call may add to the same REST call at p50 (issue 18). */
const TARGET_ADDED_MS = 2;

async function readyz(url: string) {
  try {
    return (await fetch(`${url}/readyz`)).status === 200;
  } catch {
    return false;
  }
}

async function timed(fn: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/**
 * A tool call against the REST call it mirrors, on the demo service (`earshot start`, all roles,
 * demo corpus): the same read, one client, one request at a time, alternating, API key as
 * `Authorization: Bearer` on both hosts. Tool calls are `tools/call` JSON-RPC POSTs to `/mcp`
 * (stateless Streamable HTTP, JSON answers).
 */
export const mcpBench: Bench = {
  name: 'mcp',
  description: `tool call p50/p99 against the same REST call on the demo service, ${ROUNDS} calls each; target: at most ${TARGET_ADDED_MS} ms added at p50`,
  async run(progress) {
    const tmp = tempDir('earshot-bench-mcp-');
    const mcpPort = await freePort();
    const svc = await spawnEarshot(['start'], {
      EARSHOT_DATA_DIR: path.join(tmp.dir, 'data'),
      EARSHOT_BOOTSTRAP_API_KEY: KEY,
      EARSHOT_EMBEDDINGS_FETCH: 'off',
      MCP_PORT: String(mcpPort),
      RATE_LIMIT_PER_MINUTE: '1000000',
      LOG_LEVEL: 'warn',
    });
    const mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
    const results: BenchResult[] = [];
    try {
      progress('starting the demo service');
      const deadline = Date.now() + 300_000;
      while (!(await readyz(svc.url))) {
        if (svc.child.exitCode !== null) throw new Error(`the service exited:\n${svc.output().slice(-2000)}`);
        if (Date.now() > deadline) throw new Error('the demo service was not ready within 300 s');
        await new Promise((r) => setTimeout(r, 500));
      }
      const auth = { authorization: `Bearer ${KEY}` };
      const podcasts = (await (await fetch(`${svc.url}/v1/podcasts?limit=1`, { headers: auth })).json()) as {
        data: { slug: string }[];
      };
      const episodes = (await (
        await fetch(`${svc.url}/v1/podcasts/episodes?podcast_id=${podcasts.data[0]!.slug}&limit=1`, {
          headers: auth,
        })
      ).json()) as { data: { slug: string }[] };
      const episode = episodes.data[0]!.slug;
      const cases = [
        {
          label: 'episode read',
          rest: `/v1/podcasts/episodes/${episode}`,
          tool: { name: 'earshot_get_episode', arguments: { episode_id: episode } },
        },
        {
          label: 'podcast list (10)',
          rest: '/v1/podcasts?limit=10',
          tool: { name: 'earshot_list_podcasts', arguments: { limit: 10 } },
        },
      ];
      let id = 0;
      for (const c of cases) {
        const rest = async () => {
          const res = await fetch(`${svc.url}${c.rest}`, { headers: auth });
          if (res.status !== 200) throw new Error(`REST ${c.rest}: ${res.status}`);
          await res.arrayBuffer();
        };
        const tool = async () => {
          const res = await fetch(mcpUrl, {
            method: 'POST',
            headers: {
              ...auth,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2025-11-25',
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: c.tool }),
          });
          const body = (await res.json()) as { result?: { isError?: boolean } };
          if (res.status !== 200 || !body.result || body.result.isError)
            throw new Error(`tool ${c.tool.name}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
        };
        progress(`${c.label}: warming up`);
        for (let i = 0; i < WARMUP; i++) {
          await rest();
          await tool();
        }
        const restMs: number[] = [];
        const toolMs: number[] = [];
        for (let i = 0; i < ROUNDS; i++) {
          restMs.push(await timed(rest));
          toolMs.push(await timed(tool));
        }
        restMs.sort((a, b) => a - b);
        toolMs.sort((a, b) => a - b);
        const round = (v: number) => Math.round(v * 100) / 100;
        const p50Rest = percentile(restMs, 50);
        const p50Tool = percentile(toolMs, 50);
        results.push(
          { bench: 'mcp', metric: `${c.label}: REST p50`, value: round(p50Rest), unit: 'ms' },
          { bench: 'mcp', metric: `${c.label}: REST p99`, value: round(percentile(restMs, 99)), unit: 'ms' },
          { bench: 'mcp', metric: `${c.label}: tool call p50`, value: round(p50Tool), unit: 'ms' },
          {
            bench: 'mcp',
            metric: `${c.label}: tool call p99`,
            value: round(percentile(toolMs, 99)),
            unit: 'ms',
          },
          {
            bench: 'mcp',
            metric: `${c.label}: added by the tool call at p50`,
            value: round(p50Tool - p50Rest),
            unit: 'ms',
            target: { op: '<=', value: TARGET_ADDED_MS },
          },
        );
        progress(`${c.label}: REST p50 ${round(p50Rest)} ms, tool call p50 ${round(p50Tool)} ms`);
      }
    } finally {
      await svc.stop();
      tmp.remove();
    }
    return results;
  },
};
