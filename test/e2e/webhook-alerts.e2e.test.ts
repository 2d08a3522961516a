import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { transcriptOf } from '../support/alerts.ts';
import { startReceiver } from '../support/receiver.ts';
import { spawnEarshot } from '../support/service-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const KEY = 'esk_e2eWebhookAlertsKey0123456789abcdef';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DAY_MS = 86_400_000;

/** Runs one `earshot` command to completion, as an operator would. */
function earshot(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'bin/earshot.js'), ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

/** Writes NDJSON files of `{type, data}` records into a directory (one file per record type). */
function writeRecords(dir: string, files: Record<string, { type: string; data: unknown }[]>): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, records] of Object.entries(files)) {
    fs.writeFileSync(path.join(dir, file), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  }
  return dir;
}

function episode(id: string, publishedAt: number) {
  return {
    type: 'episode',
    data: {
      id,
      slug: `${id}-slug`,
      podcast_id: 'pod_e2e',
      guid: id,
      title: `Robots and markets (${id})`,
      description: null,
      published_at: publishedAt,
      duration_seconds: 48,
      audio_url: `https://cdn.example/${id}.mp3`,
      image_url: null,
      language: null,
      people: [],
      source: 'feed',
    },
  };
}

function transcript(episodeId: string) {
  const texts = [
    'Welcome back to the show, I am your host.',
    'Joining me today is our guest from the trading desk.',
    'Northwind Robotics shares jumped after the earnings call.',
    'Why do you think the market reacted that way?',
    'Margins improved. Northwind Robotics finally ships the new arm.',
    'And the guidance for next year?',
    'Northwind Robotics expects orders to double, which is bold.',
    'Thanks for listening.',
  ];
  return { type: 'transcript', data: transcriptOf(episodeId, texts) };
}

/**
 * The whole path on embedded engines, in a real service process, with nothing appended by hand:
 * the catalog and then the episodes are loaded with `earshot ingest` (the bulk loader, from
 * another process), mentions are found by the service's own detection, and the alert matcher,
 * planner and webhook sender do the rest. The receiver gets a signed alert.match.created that a
 * Standard Webhooks verifier accepts once the headers are renamed; the match carries the
 * podcast's popularity badge and political bias (from the analytics store). An archive episode
 * loaded with it (published 60 days ago) is matched as history and never sent.
 */
describe('webhook alerts end to end', () => {
  const tmp = tempDir();
  afterAll(() => tmp.remove());

  it('ingests an episode mentioning the watched entity and delivers a signed alert.match.created', async () => {
    const rx = await startReceiver(() => ({ status: 200 }));
    const env = {
      EARSHOT_DATA_DIR: path.join(tmp.dir, 'data'),
      EARSHOT_DEMO: 'off',
      EARSHOT_BOOTSTRAP_API_KEY: KEY,
      EARSHOT_OUTBOUND_ALLOWLIST: '127.0.0.1/32',
      EARSHOT_EMBEDDINGS_FETCH: 'off',
    };
    const svc = await spawnEarshot(['start'], { ...env, LOG_LEVEL: 'warn' });
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${svc.url}${url}`, {
        method,
        headers: { 'x-api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return {
        status: res.status,
        json: (await res.json().catch(() => undefined)) as Record<string, unknown>,
      };
    };
    try {
      await waitFor(async () => (await fetch(`${svc.url}/readyz`).catch(() => undefined))?.status === 200, {
        timeoutMs: 90_000,
        stepMs: 250,
        what: '/readyz 200',
      });

      // The catalog, loaded by the bulk loader: a top-charting podcast with a bias evaluation,
      // and the company to watch.
      const catalog = writeRecords(path.join(tmp.dir, 'catalog'), {
        'podcasts.ndjson': [
          {
            type: 'podcast',
            data: {
              id: 'pod_e2e',
              slug: 'the-e2e-hour',
              directory_id: null,
              title: 'The E2E Hour',
              description: null,
              publisher_id: null,
              language: 'en-US',
              categories: [],
              hosts: [],
              image_url: 'https://img.example/e2e.jpg',
              feed_url: null,
              website_url: null,
              content_advisory_rating: null,
              popularity: 97.4,
              updated_at: Date.now(),
            },
          },
        ],
        'entities.ndjson': [
          {
            type: 'entity',
            data: {
              id: 'ent_c_northwind',
              slug: 'northwind-robotics',
              kind: 'COMPANY',
              name: 'Northwind Robotics',
              description: null,
              wikipedia_url: null,
              image_url: null,
              category: { slug: 'technology', name: 'Technology' },
              aliases: ['Northwind Robotics'],
              nicknames: [],
              handles: [],
              context_terms: ['shares', 'earnings'],
              company: { domain: 'northwind-robotics.example', ticker: 'NWRB' },
              person: null,
              updated_at: Date.now(),
            },
          },
        ],
        'bias_evaluations.ndjson': [
          {
            type: 'bias_evaluation',
            data: {
              id: 'bias_pod_e2e_1',
              podcast_id: 'pod_e2e',
              evaluated_at: Date.now() - DAY_MS,
              political_context: 'US',
              is_political: true,
              political_topic_percentage: 40,
              lean_score: -0.35,
              bias: 'LEAN_LEFT',
              episodes_analyzed: 12,
              model: 'bias-eval-test',
            },
          },
        ],
      });
      const loadedCatalog = await earshot(['ingest', catalog], env);
      expect(loadedCatalog.code, loadedCatalog.out).toBe(0);

      // A webhook connection to the receiver, and an alert on the company (once the catalog
      // projection knows it).
      const created = await api('POST', '/v1/projects/proj_demo/webhooks/connections', {
        url: `${rx.url}/earshot`,
        name: 'e2e receiver',
      });
      expect(created.status).toBe(201);
      const { id: connectionId, secret } = created.json as { id: string; secret: string };
      let alertId = '';
      await waitFor(
        async () => {
          const res = await api('POST', '/v1/projects/proj_demo/alerts', {
            title: 'Northwind on air',
            entities: [{ entity_type: 'COMPANY', entity_id: 'northwind-robotics' }],
            notifications: [{ type: 'WEBHOOK', webhook_connection_id: connectionId }],
          });
          if (res.status !== 201) return false;
          alertId = String(res.json.id);
          return true;
        },
        { timeoutMs: 30_000, stepMs: 250, what: 'alert created' },
      );
      // The bias evaluation has reached the analytics store.
      await waitFor(async () => (await api('GET', '/v1/podcasts/pod_e2e?include=bias')).json?.bias != null, {
        timeoutMs: 30_000,
        stepMs: 250,
        what: 'bias evaluation projected',
      });

      // Two episodes loaded the same way: one that just aired, one from the archive.
      const now = Date.now();
      const episodes = writeRecords(path.join(tmp.dir, 'episodes'), {
        'episodes.ndjson': [
          episode('ep_e2e_fresh', now - 10 * 60_000),
          episode('ep_e2e_archive', now - 60 * DAY_MS),
        ],
        'transcripts.ndjson': [transcript('ep_e2e_fresh'), transcript('ep_e2e_archive')],
      });
      const loadedEpisodes = await earshot(['ingest', episodes], env);
      expect(loadedEpisodes.code, loadedEpisodes.out).toBe(0);

      await waitFor(() => rx.received.length > 0, {
        timeoutMs: 60_000,
        stepMs: 50,
        what: 'webhook received',
      });
      const r = rx.received[0]!;
      expect(r.url).toBe('/earshot');
      expect(r.headers['user-agent']).toBe('Earshot-Webhooks/1.0');
      const body = new Webhook(secret).verify(r.raw.toString('utf8'), {
        'webhook-id': String(r.headers['x-webhook-id']),
        'webhook-timestamp': String(r.headers['x-webhook-timestamp']),
        'webhook-signature': String(r.headers['x-webhook-signature']),
      }) as Record<string, unknown>;
      expect(body).toMatchObject({
        event_type: 'alert.match.created',
        delivery_id: r.headers['x-webhook-id'],
        alert: { id: alertId, title: 'Northwind on air', kind: 'ENTITY_MENTION' },
        match: {
          alert_id: alertId,
          entity_id: 'ent_c_northwind',
          source_id: 'ep_e2e_fresh',
          mention_count: 3,
          mention_variants: ['Northwind Robotics'],
          relevance: 'on_target',
          is_backfilled: false,
          episode: {
            podcast_id: 'pod_e2e',
            podcast_title: 'The E2E Hour',
            podcast_popularity_badge: 'Very Popular',
            podcast_bias: {
              bias: 'LEAN_LEFT',
              lean_score: -0.35,
              is_political: true,
              political_context: 'US',
            },
          },
        },
      });
      expect('test' in body).toBe(false);
      const match = body.match as Record<string, unknown> & {
        windows: { lines: { is_mention: boolean; text: string }[] }[];
        episode: Record<string, unknown>;
      };
      // The webhook match is the single-match read minus deliveries, monitor_id and the raw percentile.
      expect(match).not.toHaveProperty('deliveries');
      expect(match).not.toHaveProperty('monitor_id');
      expect(match.episode).not.toHaveProperty('podcast_popularity');
      expect(
        match.windows.some((w) => w.lines.some((l) => l.is_mention && l.text.includes('Northwind Robotics'))),
      ).toBe(true);
      // The envelope links to the delivery landing page of the dashboard (issue 17).
      expect(body.url).toMatch(/\/dashboard\/deliveries\/dlv_/);

      // The delivery landing read reflects the outcome; the REST single-match read adds the percentile.
      const deliveryId = String(body.url).split('/').pop()!;
      await waitFor(
        async () =>
          JSON.stringify((await api('GET', `/v1/alerts/deliveries/${deliveryId}`)).json).includes(
            'DELIVERED',
          ),
        { timeoutMs: 20_000, stepMs: 200, what: 'delivery recorded as delivered' },
      );
      const single = await api('GET', `/v1/alerts/matches/${String(match.id)}`);
      expect(single.json).toMatchObject({
        episode: { podcast_popularity: 97.4, podcast_bias: { bias: 'LEAN_LEFT' } },
      });

      // The archive episode is matched as history: listed, never delivered.
      await waitFor(
        async () =>
          ((await api('GET', `/v1/alerts/${alertId}/matches`)).json.data as unknown[] | undefined)?.length ===
          2,
        { timeoutMs: 30_000, stepMs: 250, what: 'both episodes matched' },
      );
      const listed = (await api('GET', `/v1/alerts/${alertId}/matches`)).json.data as {
        source_id: string;
        is_backfilled: boolean;
      }[];
      expect(listed.map((m) => [m.source_id, m.is_backfilled]).sort()).toEqual([
        ['ep_e2e_archive', true],
        ['ep_e2e_fresh', false],
      ]);
      const deliveries = (await api('GET', `/v1/alerts/${alertId}/deliveries`)).json.data as unknown[];
      expect(deliveries).toHaveLength(1);
      expect(rx.received).toHaveLength(1);
    } finally {
      const exit = await svc.stop('SIGTERM');
      await rx.close();
      expect(exit.code, svc.output()).toBe(0);
    }
  }, 240_000);
});
