import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';
import { EventProducer } from '../../ingest/event-producer.ts';
import { AvroCodec } from '../../ingest/schema-registry/avro-codec.ts';
import { LmdbSchemaRegistry } from '../../ingest/schema-registry/lmdb-schema-registry.ts';
import type { Entity, Podcast } from '../../schemas/generated/index.ts';
import { allTopicSpecs, TOPICS } from '../../schemas/topics.ts';
import { episodeEvents } from '../support/alerts.ts';
import { startReceiver } from '../support/receiver.ts';
import { spawnEarshot } from '../support/service-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const KEY = 'esk_e2eWebhookAlertsKey0123456789abcdef';

/**
 * The whole path on embedded engines, in a real service process: a webhook connection to a local
 * receiver, an alert on an entity, then an episode that mentions it (its events appended to the
 * service's event log, as the ingest and detectors append them). The receiver gets a signed
 * alert.match.created that a Standard Webhooks verifier accepts once the headers are renamed.
 */
describe('webhook alerts end to end', () => {
  const tmp = tempDir();
  afterAll(() => tmp.remove());

  it('delivers a signed alert.match.created for an episode mentioning the watched entity', async () => {
    const rx = await startReceiver(() => ({ status: 200 }));
    const svc = await spawnEarshot(['start'], {
      EARSHOT_DATA_DIR: tmp.dir,
      EARSHOT_DEMO: 'off',
      EARSHOT_BOOTSTRAP_API_KEY: KEY,
      EARSHOT_OUTBOUND_ALLOWLIST: '127.0.0.1/32',
      LOG_LEVEL: 'warn',
    });
    const log = new LmdbEventLog(path.join(tmp.dir, 'event-log'));
    const registry = new LmdbSchemaRegistry(path.join(tmp.dir, 'schema-registry'));
    const codec = new AvroCodec(registry);
    const producer = new EventProducer(log, codec);
    const api = (method: string, url: string, body?: unknown) =>
      fetch(`${svc.url}${url}`, {
        method,
        headers: { 'x-api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    try {
      await waitFor(async () => (await fetch(`${svc.url}/readyz`).catch(() => undefined))?.status === 200, {
        timeoutMs: 90_000,
        stepMs: 250,
        what: '/readyz 200',
      });

      for (const spec of allTopicSpecs()) await codec.registerTopic(spec.name, spec.valueSchema);

      // The catalog: the entity to watch and the podcast.
      const entity: Entity = {
        id: 'ent_c_apple',
        slug: 'apple',
        kind: 'COMPANY',
        name: 'Apple Inc.',
        description: null,
        wikipedia_url: null,
        image_url: null,
        category: { slug: 'technology', name: 'Technology' },
        aliases: ['Apple'],
        nicknames: [],
        handles: [],
        context_terms: ['shares'],
        company: { domain: 'apple.com', ticker: 'AAPL' },
        person: null,
        updated_at: Date.now(),
      };
      const podcast: Podcast = {
        id: 'pod_e2e',
        slug: 'the-e2e-hour',
        directory_id: null,
        title: 'The E2E Hour',
        description: null,
        publisher_id: null,
        language: 'en-US',
        categories: [],
        hosts: [],
        image_url: null,
        feed_url: null,
        website_url: null,
        content_advisory_rating: null,
        popularity: 50,
        updated_at: Date.now(),
      };
      await producer.send(TOPICS.entities, [{ key: entity.id, value: entity }]);
      await producer.send(TOPICS.podcasts, [{ key: podcast.id, value: podcast }]);

      // A webhook connection to the receiver, and an alert on the entity.
      const created = await api('POST', '/v1/projects/proj_demo/webhooks/connections', {
        url: `${rx.url}/earshot`,
        name: 'e2e receiver',
      });
      expect(created.status).toBe(201);
      const { id: connectionId, secret } = (await created.json()) as { id: string; secret: string };
      let alertId = '';
      await waitFor(
        async () => {
          const res = await api('POST', '/v1/projects/proj_demo/alerts', {
            title: 'Apple on air',
            entities: [{ entity_type: 'COMPANY', entity_id: 'apple' }],
            notifications: [{ type: 'WEBHOOK', webhook_connection_id: connectionId }],
          });
          if (res.status !== 201) return false; // the catalog projection has not caught up yet
          alertId = ((await res.json()) as { id: string }).id;
          return true;
        },
        { timeoutMs: 30_000, stepMs: 250, what: 'alert created' },
      );

      // An episode that mentions the entity, as ingest and the detectors publish it.
      const now = Date.now();
      const ep = episodeEvents({
        id: 'ep_e2e_1',
        podcastId: podcast.id,
        publishedAt: now,
        mentioned: [{ entityId: entity.id, relevance: 'on_target', lines: [3, 5] }],
      });
      await producer.send(TOPICS.episodes, [{ key: ep.episode.id, value: ep.episode }]);
      await producer.send(TOPICS.transcripts, [{ key: ep.episode.id, value: ep.transcript }]);
      await producer.send(TOPICS.speakers, [{ key: ep.episode.id, value: ep.speakers }]);
      await producer.send(TOPICS.mentions, [{ key: ep.episode.id, value: ep.mentions }]);

      await waitFor(() => rx.received.length > 0, {
        timeoutMs: 30_000,
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
        alert: { id: alertId, title: 'Apple on air', kind: 'ENTITY_MENTION' },
        match: {
          alert_id: alertId,
          entity_id: entity.id,
          source_id: 'ep_e2e_1',
          is_backfilled: false,
          episode: { podcast_id: podcast.id, podcast_title: 'The E2E Hour' },
        },
      });
      expect('test' in body).toBe(false);
      const match = body.match as { id: string; windows: { lines: { is_mention: boolean }[] }[] };
      expect(match.windows.some((w) => w.lines.some((l) => l.is_mention))).toBe(true);
      expect(body.url).toMatch(/\/v1\/alerts\/deliveries\/dlv_/);

      // The delivery landing read reflects the outcome.
      const deliveryId = String(body.url).split('/').pop()!;
      await waitFor(
        async () => {
          const res = await api('GET', `/v1/alerts/deliveries/${deliveryId}`);
          return res.status === 200 && JSON.stringify(await res.json()).includes('DELIVERED');
        },
        { timeoutMs: 20_000, stepMs: 200, what: 'delivery recorded as delivered' },
      );
    } finally {
      await log.close();
      await registry.close();
      const exit = await svc.stop('SIGTERM');
      await rx.close();
      expect(exit.code, svc.output()).toBe(0);
    }
  }, 180_000);
});
