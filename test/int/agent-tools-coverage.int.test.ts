import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTools, TOOLS } from '../../api/agents/index.ts';
import { type AnalyticsStore, migrateAnalytics } from '../../projections/analytics/analytics-store.ts';
import { ChdbAnalyticsStore } from '../../projections/analytics/chdb-analytics-store.ts';
import { LanceDbSearchIndex } from '../../projections/search/lancedb/lancedb-search-index.ts';
import { CONTRACT_DIMENSIONS } from '../contracts/search-index.contract.ts';
import { testApi } from '../support/api.ts';
import { tempDir } from '../support/temp-dir.ts';

/**
 * Every REST read has a tool: the GET operations under /v1 of the OpenAPI document of an
 * application serving every route (analytics, search, archive), each matched to the tool that
 * mirrors it. A read that is not tool material is listed here with the reason.
 */
const NOT_TOOLS: Record<string, string> = {
  'GET /v1/podcasts/episodes/stream':
    'a live Server-Sent Events stream: no request/response a tool call can hold',
  'GET /v1/podcasts/episodes/archive/stream':
    'a Server-Sent Events replay of a whole month or day: bulk transfer, not a tool answer',
  'GET /v1/podcasts/episodes/archive/download':
    'bulk NDJSON download (ranged, gzip): bulk transfer, not a tool answer',
  'GET /v1/alerts/disable': 'the email footer link a person opens (token-based, public), not a data read',
  'GET /v1/notification-emails/verify': 'the verification link a person opens from a mail, not a data read',
  'GET /v1/projects/{projectId}/monitors': 'the old name of the alert list (earshot_list_alerts serves it)',
  'GET /v1/organizations/{orgId}/projects':
    "account administration (the organization's projects), the dashboard's, not podcast data",
  'GET /v1/organizations/{orgId}/notification-emails':
    'account administration (notification addresses), not podcast data',
  'GET /v1/projects/{projectId}/webhooks/connections':
    'delivery setup (webhook endpoints and their secrets), managed by people in the dashboard',
  'GET /v1/projects/{projectId}/webhooks/connections/{id}': 'delivery setup, as the connection list',
  'GET /v1/projects/{projectId}/slack/connections':
    'delivery setup (team-chat installs), managed by people in the dashboard',
  'GET /v1/projects/{projectId}/slack/connections/{id}/channels': 'delivery setup, as the connection list',
};

const tmp = tempDir('earshot-agent-tools-');
let analytics: AnalyticsStore;
let api: Awaited<ReturnType<typeof testApi>>;

beforeAll(async () => {
  analytics = new ChdbAnalyticsStore(`${tmp.dir}/analytics`);
  await migrateAnalytics(analytics);
  const searchIndex = new LanceDbSearchIndex(`${tmp.dir}/search`, {
    dimensions: CONTRACT_DIMENSIONS,
    model: 'contract',
  });
  await searchIndex.open();
  api = await testApi({}, undefined, { analytics, searchIndex, archive: {} });
}, 120_000);
afterAll(async () => {
  await api?.close();
  await analytics?.close();
  tmp.remove();
});

const openapiPath = (fastifyPath: string) => fastifyPath.replace(/:(\w+)/g, '{$1}');

describe('agent tools', () => {
  it('every REST read of the OpenAPI document has a tool, or is listed with a reason', async () => {
    const doc = (await api.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const reads = Object.entries(doc.paths)
      .filter(([path, ops]) => path.startsWith('/v1/') && 'get' in ops)
      .map(([path]) => `GET ${path}`);
    expect(reads.length).toBeGreaterThan(30);
    const mirrored = new Set(TOOLS.map((t) => `${t.operation.method} ${openapiPath(t.operation.path)}`));
    const missing = reads.filter((r) => !mirrored.has(r) && !(r in NOT_TOOLS));
    expect(missing, 'REST reads without a tool (declare one in api/agents/tools.ts)').toEqual([]);
    // An exception that no longer names a read is stale.
    expect(Object.keys(NOT_TOOLS).filter((r) => !reads.includes(r))).toEqual([]);
  });

  it('every declaration mirrors an operation this application serves, with object schemas', () => {
    const tools = buildTools(TOOLS, api.app.restOperations);
    expect(tools.map((t) => t.declaration.name)).toEqual(TOOLS.map((t) => t.name));
    for (const t of tools) {
      expect(t.declaration.name).toMatch(/^earshot_[a-z_]+$/);
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema.type).toBe('object');
      const writes = t.operation.method !== 'GET';
      if (writes && t.declaration.name !== 'earshot_preview_alert')
        expect(t.declaration.annotations.readOnlyHint).toBe(false);
      if (!writes) expect(t.declaration.annotations.readOnlyHint).toBe(true);
      // Lists page: the tool offers the cursor its REST operation takes.
      if (t.queryInputs.has('limit')) expect(t.queryInputs.has('cursor')).toBe(true);
    }
  });
});
