import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LmdbEventLog } from '../../ingest/event-log/lmdb-event-log.ts';
import { EventProducer } from '../../ingest/event-producer.ts';
import { AvroCodec } from '../../ingest/schema-registry/avro-codec.ts';
import { LmdbSchemaRegistry } from '../../ingest/schema-registry/lmdb-schema-registry.ts';
import { WebhookConnections } from '../../processors/alerts/delivery/connections/webhook-connections.ts';
import { SecretBox } from '../../processors/alerts/delivery/secrets.ts';
import { matchesProjector } from '../../processors/alerts/projectors/matches-projector.ts';
import { Accounts } from '../../projections/state/accounts.ts';
import { migrate } from '../../projections/state/migrations.ts';
import { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import type { AlertMatched, DeliveryRequested } from '../../schemas/generated/index.ts';
import { allTopicSpecs, TOPICS } from '../../schemas/topics.ts';
import { startReceiver } from '../support/receiver.ts';
import { spawnEarshot } from '../support/service-process.ts';
import { diskStateStore } from '../support/state.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';

const MATCHES = 60;

function match(i: number): AlertMatched {
  return {
    id: `match_crash_${i}`,
    alert_id: 'alrt_crash',
    project_id: 'proj_crash',
    kind: 'ENTITY_MENTION',
    entity_type: 'COMPANY',
    entity_id: 'ent_c_acme',
    source_type: 'PODCAST_EPISODE',
    source_id: `ep_crash_${i}`,
    podcast_id: 'pod_crash',
    published_at: Date.now() - 3_600_000,
    detected_at: Date.now() - 1000,
    mention_count: 1,
    mention_variants: ['Acme'],
    relevance: 'on_target',
    roles: [],
    is_backfilled: false,
    windows: [
      {
        start_seconds: 1,
        end_seconds: 4,
        lines: [
          {
            number: 1,
            speaker: 'Host',
            role: 'HOST',
            start_seconds: 1,
            end_seconds: 4,
            text: 'Acme!',
            is_mention: true,
          },
        ],
        clip_url: null,
        clip_id: null,
        clip_title: null,
        clip_type: null,
      },
    ],
  };
}

describe('webhook sender durability', () => {
  it('delivers every match at least once when the sender is killed with SIGKILL mid-delivery and restarted', async () => {
    const tmp = tempDir();
    const secretsKey = randomBytes(32).toString('base64');
    // Each request is held for a while, so that SIGKILL lands with deliveries in flight.
    const rx = await startReceiver(() => ({ status: 200, delayMs: 150 }));
    try {
      // The state the sender will find: a project, a webhook connection to the receiver, an
      // alert and its matches (the match read model alert management maintains).
      const state = diskStateStore(path.join(tmp.dir, 'state'));
      await migrate(state);
      const accounts = new Accounts(state);
      await accounts.createOrganization({ id: 'org_crash', name: 'Crash Org', slug: 'crash' });
      await accounts.createProject({
        id: 'proj_crash',
        organizationId: 'org_crash',
        name: 'Crash',
        plan: 'business',
      });
      const webhooks = new WebhookConnections(state, new SecretBox(Buffer.from(secretsKey, 'base64')));
      const { connection } = await webhooks.create({ projectId: 'proj_crash', url: `${rx.url}/hook` });
      await state.query(
        `INSERT INTO alerts (id, project_id, title, kind, delivery_cadence, entities, notifications)
         VALUES ('alrt_crash', 'proj_crash', 'Acme', 'ENTITY_MENTION', 'REALTIME', $1::jsonb, $2::jsonb)`,
        [
          JSON.stringify([{ entity_type: 'COMPANY', entity_id: 'ent_c_acme' }]),
          JSON.stringify([{ type: 'WEBHOOK', webhook_connection_id: connection.id }]),
        ],
      );
      await matchesProjector(state).sink.write(Array.from({ length: MATCHES }, (_, i) => match(i)));
      await state.close();

      // The planner's output: one realtime delivery per match.
      const log = new LmdbEventLog(path.join(tmp.dir, 'event-log'));
      const registry = new LmdbSchemaRegistry(path.join(tmp.dir, 'schema-registry'));
      const codec = new AvroCodec(registry);
      await log.createTopics(allTopicSpecs());
      for (const s of allTopicSpecs()) await codec.registerTopic(s.name, s.valueSchema);
      const requests: DeliveryRequested[] = Array.from({ length: MATCHES }, (_, i) => ({
        delivery_id: `dlv_crash_${i}`,
        alert_id: 'alrt_crash',
        project_id: 'proj_crash',
        cadence: 'REALTIME',
        channel: {
          type: 'WEBHOOK',
          email: null,
          webhook_connection_id: connection.id,
          chat_connection_id: null,
          chat_channel_id: null,
        },
        match_ids: [`match_crash_${i}`],
        window_start: null,
        window_end: null,
        requested_at: Date.now(),
      }));
      await new EventProducer(log, codec).send(
        TOPICS.deliveriesRequested,
        requests.map((value) => ({ key: value.delivery_id, value })),
      );
      await log.close();
      await registry.close();

      const env = {
        EARSHOT_DATA_DIR: tmp.dir,
        EARSHOT_DEMO: 'off',
        EARSHOT_SECRETS_KEY: secretsKey,
        EARSHOT_OUTBOUND_ALLOWLIST: '127.0.0.1/32',
        EARSHOT_DELIVERY_CONCURRENCY: '8',
        LOG_LEVEL: 'warn',
      };
      const first = await spawnEarshot(['start', '--roles', 'senders'], env);
      await waitFor(() => rx.received.length >= 20, { timeoutMs: 60_000, stepMs: 5, what: '20 webhooks' });
      first.child.kill('SIGKILL');
      const exit = await first.exited;
      expect(exit.signal).toBe('SIGKILL');
      const beforeRestart = new Set(rx.received.map((r) => (r.body as { match: { id: string } }).match.id));
      expect(beforeRestart.size).toBeLessThan(MATCHES);

      const second = await spawnEarshot(['start', '--roles', 'senders'], env);
      try {
        const seen = () => new Set(rx.received.map((r) => (r.body as { match: { id: string } }).match.id));
        await waitFor(() => seen().size === MATCHES, {
          timeoutMs: 60_000,
          stepMs: 50,
          what: 'every match delivered',
        });
        // Let the second run record its outcomes, then stop it cleanly.
        await new Promise((r) => setTimeout(r, 500));
      } finally {
        const stopped = await second.stop('SIGTERM');
        expect(stopped.code, second.output()).toBe(0);
      }
      // Every match at least once; each request a fresh attempt id.
      const ids = rx.received.map((r) => String(r.headers['x-webhook-id']));
      expect(new Set(ids).size).toBe(ids.length);
      // The killed run had deliveries in flight (received, not yet answered): they were sent again.
      expect(rx.received.length).toBeGreaterThan(MATCHES);
      expect(second.output()).toContain('released deliveries claimed by a previous run');
      const reopened = new PgliteStateStore(path.join(tmp.dir, 'state'));
      try {
        const rows = await reopened.query<{ state: string; n: number }>(
          'SELECT state, count(*)::int AS n FROM delivery_jobs GROUP BY state',
        );
        expect(rows).toEqual([{ state: 'DELIVERED', n: MATCHES }]);
      } finally {
        await reopened.close();
      }
    } finally {
      await rx.close();
      tmp.remove();
    }
  }, 150_000);
});
