import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../processors/alerts/delivery/clock.ts';
import { DeliveryJobs } from '../../processors/alerts/delivery/jobs.ts';
import { RetrySchedule } from '../../processors/alerts/delivery/retry-schedule.ts';
import type {
  DeliveryAbandoned,
  DeliveryAttempted,
  DeliveryDelivered,
} from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { fixedContent, sampleAlert, sampleMatchDocument } from '../support/delivery.ts';
import { freePort } from '../support/free-port.ts';
import { type ReceivedRequest, startReceiver } from '../support/receiver.ts';
import { senderHarness } from '../support/senders.ts';
import { waitFor } from '../support/wait-for.ts';

type Harness = Awaited<ReturnType<typeof senderHarness>>;
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const alert = sampleAlert();
const matches = Array.from({ length: 12 }, (_, i) => sampleMatchDocument(alert.id, `match_${i + 1}`));

function verify(secret: string, r: ReceivedRequest) {
  return new Webhook(secret).verify(r.raw.toString('utf8'), {
    'webhook-id': String(r.headers['x-webhook-id']),
    'webhook-timestamp': String(r.headers['x-webhook-timestamp']),
    'webhook-signature': String(r.headers['x-webhook-signature']),
  }) as Record<string, unknown>;
}

describe('webhook sender', () => {
  let h: Harness;
  let rx: Receiver;
  const content = fixedContent([alert], matches);

  beforeAll(async () => {
    rx = await startReceiver();
    // 0, 30 ms, 30 ms, 30 ms, 30 ms: the real schedule scaled down (the schedule itself is tested with a manual clock below)
    h = await senderHarness({ content, settings: { schedule: new RetrySchedule([0, 30, 30, 30, 30]) } });
  });
  afterAll(async () => {
    await h?.close();
    await rx?.close();
  });

  async function connection(path: string) {
    return h.kit.webhooks.create({ projectId: 'proj_test', url: `${rx.url}${path}` });
  }

  const byPath = (path: string) => rx.received.filter((r) => r.url === path);

  it('POSTs a signed alert.match.created that a Standard Webhooks verifier accepts', async () => {
    const { connection: c, secret } = await connection('/ok');
    const [req] = await h.request([
      { channel: { type: 'WEBHOOK', webhook_connection_id: c.id }, match_ids: ['match_1'] },
    ]);
    await waitFor(() => byPath('/ok').length === 1, { what: 'webhook received' });
    const r = byPath('/ok')[0]!;
    expect(r.method).toBe('POST');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['user-agent']).toBe('Earshot-Webhooks/1.0');
    const body = verify(secret, r);
    expect(body).toMatchObject({
      event_type: 'alert.match.created',
      delivery_id: r.headers['x-webhook-id'],
      timestamp: Math.floor(Date.parse(matches[0]!.detected_at) / 1000),
      url: `http://127.0.0.1:8080/dashboard/deliveries/${req!.delivery_id}`,
      alert: { id: alert.id, title: alert.title, kind: alert.kind },
      match: { id: 'match_1', windows: matches[0]!.windows },
    });
    expect('test' in body).toBe(false);
    expect(Math.abs(Number(r.headers['x-webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);

    await waitFor(async () =>
      (await h.events<DeliveryDelivered>(TOPICS.deliveriesDelivered)).some(
        (d) => d.delivery_id === req!.delivery_id,
      ),
    );
    const attempts = (await h.events<DeliveryAttempted>(TOPICS.deliveriesAttempted)).filter(
      (a) => a.delivery_id === req!.delivery_id,
    );
    expect(attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        attempt_id: r.headers['x-webhook-id'],
        succeeded: true,
        status_code: 200,
        channel_type: 'WEBHOOK',
        destination: `${rx.url}/ok`,
        next_attempt_at: null,
      }),
    ]);
  });

  it('sends every channel of a delivery that has several', async () => {
    const a = await connection('/multi-a');
    const b = await connection('/multi-b');
    await h.request([
      {
        delivery_id: 'dlv_multi',
        channel: { type: 'WEBHOOK', webhook_connection_id: a.connection.id },
        match_ids: ['match_2'],
      },
      {
        delivery_id: 'dlv_multi',
        channel: { type: 'WEBHOOK', webhook_connection_id: b.connection.id },
        match_ids: ['match_2'],
      },
    ]);
    await waitFor(() => byPath('/multi-a').length === 1 && byPath('/multi-b').length === 1, {
      what: 'both channels received',
    });
    expect(verify(a.secret, byPath('/multi-a')[0]!)).toMatchObject({ match: { id: 'match_2' } });
    expect(verify(b.secret, byPath('/multi-b')[0]!)).toMatchObject({ match: { id: 'match_2' } });
    await waitFor(
      async () =>
        (await h.events<DeliveryDelivered>(TOPICS.deliveriesDelivered)).filter(
          (d) => d.delivery_id === 'dlv_multi',
        ).length === 2,
    );
  });

  it('retries 500s with a fresh delivery_id each time and delivers on attempt 5', async () => {
    const { connection: c, secret } = await connection('/flaky');
    rx.respond((r) =>
      r.url === '/flaky' && byPath('/flaky').length <= 4 ? { status: 500 } : { status: 200 },
    );
    const [req] = await h.request([
      { channel: { type: 'WEBHOOK', webhook_connection_id: c.id }, match_ids: ['match_2'] },
    ]);
    await waitFor(
      async () =>
        (await h.events<DeliveryDelivered>(TOPICS.deliveriesDelivered)).some(
          (d) => d.delivery_id === req!.delivery_id,
        ),
      { what: 'delivered' },
    );
    const got = byPath('/flaky');
    expect(got).toHaveLength(5);
    const bodies = got.map((r) => verify(secret, r));
    expect(new Set(bodies.map((b) => b.delivery_id)).size).toBe(5);
    expect(bodies.map((b) => b.delivery_id)).toEqual(got.map((r) => r.headers['x-webhook-id']));
    expect(new Set(bodies.map((b) => (b.match as { id: string }).id))).toEqual(new Set(['match_2']));
    const attempts = (await h.events<DeliveryAttempted>(TOPICS.deliveriesAttempted))
      .filter((a) => a.delivery_id === req!.delivery_id)
      .sort((a, b) => a.attempt - b.attempt);
    expect(attempts.map((a) => [a.attempt, a.succeeded, a.status_code])).toEqual([
      [1, false, 500],
      [2, false, 500],
      [3, false, 500],
      [4, false, 500],
      [5, true, 200],
    ]);
    expect(attempts.slice(0, 4).every((a) => a.next_attempt_at !== null)).toBe(true);
    const delivered = (await h.events<DeliveryDelivered>(TOPICS.deliveriesDelivered)).find(
      (d) => d.delivery_id === req!.delivery_id,
    );
    expect(delivered).toMatchObject({ attempts: 5, channel_type: 'WEBHOOK' });
    rx.respond(() => ({ status: 200 }));
  });

  it('abandons after 5 attempts when the receiver is down', async () => {
    const port = await freePort();
    const { connection: c } = await h.kit.webhooks.create({
      projectId: 'proj_test',
      url: `http://127.0.0.1:${port}/down`,
    });
    const [req] = await h.request([
      { channel: { type: 'WEBHOOK', webhook_connection_id: c.id }, match_ids: ['match_3'] },
    ]);
    await waitFor(
      async () =>
        (await h.events<DeliveryAbandoned>(TOPICS.deliveriesAbandoned)).some(
          (d) => d.delivery_id === req!.delivery_id,
        ),
      { what: 'abandoned' },
    );
    const abandoned = (await h.events<DeliveryAbandoned>(TOPICS.deliveriesAbandoned)).find(
      (d) => d.delivery_id === req!.delivery_id,
    )!;
    expect(abandoned.attempts).toBe(5);
    expect(abandoned.reason).toMatch(/^5 attempts failed; last: .*ECONNREFUSED/);
    const attempts = (await h.events<DeliveryAttempted>(TOPICS.deliveriesAttempted)).filter(
      (a) => a.delivery_id === req!.delivery_id,
    );
    expect(attempts).toHaveLength(5);
    expect(new Set(attempts.map((a) => a.attempt_id)).size).toBe(5);
    expect(attempts.find((a) => a.attempt === 5)!.next_attempt_at).toBeNull();
    // The outcome event is produced before the job row is updated (a crash in between retries,
    // never loses), so the row may lag the event by a moment.
    await waitFor(
      async () =>
        (
          await h.state.query<{ state: string }>('SELECT state FROM delivery_jobs WHERE delivery_id = $1', [
            req!.delivery_id,
          ])
        )[0]?.state === 'ABANDONED',
      { what: 'job abandoned' },
    );
  });

  it('treats a redirect as a failure and never follows it', async () => {
    const { connection: c } = await connection('/moved');
    rx.respond((r) =>
      r.url === '/moved' ? { status: 302, headers: { location: `${rx.url}/elsewhere` } } : { status: 200 },
    );
    const [req] = await h.request([
      { channel: { type: 'WEBHOOK', webhook_connection_id: c.id }, match_ids: ['match_4'] },
    ]);
    await waitFor(
      async () =>
        (await h.events<DeliveryAbandoned>(TOPICS.deliveriesAbandoned)).some(
          (d) => d.delivery_id === req!.delivery_id,
        ),
      { what: 'abandoned' },
    );
    expect(byPath('/moved')).toHaveLength(5);
    expect(byPath('/elsewhere')).toHaveLength(0);
    const attempts = (await h.events<DeliveryAttempted>(TOPICS.deliveriesAttempted)).filter(
      (a) => a.delivery_id === req!.delivery_id,
    );
    expect(attempts[0]!.error).toMatch(/redirects are not followed/);
    rx.respond(() => ({ status: 200 }));
  });

  it('skips a deleted connection silently', async () => {
    const { connection: c } = await connection('/deleted');
    await h.kit.webhooks.delete('proj_test', c.id);
    const [req] = await h.request([
      { channel: { type: 'WEBHOOK', webhook_connection_id: c.id }, match_ids: ['match_5'] },
    ]);
    await waitFor(async () =>
      (await h.events<DeliveryAbandoned>(TOPICS.deliveriesAbandoned)).some(
        (d) => d.delivery_id === req!.delivery_id,
      ),
    );
    const abandoned = (await h.events<DeliveryAbandoned>(TOPICS.deliveriesAbandoned)).find(
      (d) => d.delivery_id === req!.delivery_id,
    )!;
    expect(abandoned).toMatchObject({ attempts: 0, reason: 'webhook connection deleted' });
    expect(byPath('/deleted')).toHaveLength(0);
    expect(
      (await h.events<DeliveryAttempted>(TOPICS.deliveriesAttempted)).filter(
        (a) => a.delivery_id === req!.delivery_id,
      ),
    ).toHaveLength(0);
  });

  it('signs with the rotated secret from the moment of rotation', async () => {
    const { connection: c, secret: old } = await connection('/rotated');
    const rotated = await h.kit.webhooks.rotate('proj_test', c.id);
    await h.request([{ channel: { type: 'WEBHOOK', webhook_connection_id: c.id }, match_ids: ['match_6'] }]);
    await waitFor(() => byPath('/rotated').length === 1);
    const r = byPath('/rotated')[0]!;
    expect(() => verify(old, r)).toThrow();
    expect(verify(rotated!.secret, r)).toMatchObject({ match: { id: 'match_6' } });
  });

  it('sends one alert.digest.created per digest with summarized matches', async () => {
    const { connection: c, secret } = await connection('/digest');
    const ids = ['match_7', 'match_8', 'match_9'];
    await h.request([
      {
        cadence: 'DAILY',
        channel: { type: 'WEBHOOK', webhook_connection_id: c.id },
        match_ids: ids,
        window_start: Date.now() - 86_400_000,
        window_end: Date.now(),
      },
    ]);
    await waitFor(() => byPath('/digest').length === 1);
    const body = verify(secret, byPath('/digest')[0]!);
    expect(body.event_type).toBe('alert.digest.created');
    expect('match' in body).toBe(false);
    const sent = body.matches as Record<string, unknown>[];
    expect(sent.map((m) => m.id).sort()).toEqual(ids);
    for (const m of sent) {
      expect('windows' in m).toBe(false);
      expect(m.clip_url).toBe('https://cdn.example/audio/1.mp3#t=61,75.5');
    }
    const latest = Math.max(...ids.map((id) => Date.parse(content.matches_.get(id)!.detected_at)));
    expect(body.timestamp).toBe(Math.floor(latest / 1000));
  });

  it('prunes finished jobs after 30 days and never re-sends a request older than that', async () => {
    const { connection: c } = await connection('/stale');
    const jobs = new DeliveryJobs(h.state);
    const day = 86_400_000;
    const [stale] = await h.request([
      {
        channel: { type: 'WEBHOOK', webhook_connection_id: c.id },
        match_ids: ['match_10'],
        requested_at: Date.now() - 31 * day,
      },
    ]);
    const [fresh] = await h.request([
      { channel: { type: 'WEBHOOK', webhook_connection_id: c.id }, match_ids: ['match_11'] },
    ]);
    await waitFor(() => byPath('/stale').length === 1);
    await h.dispatcher.idle();
    const states = async () =>
      h.state.query<{ delivery_id: string }>(
        'SELECT delivery_id FROM delivery_jobs WHERE delivery_id = ANY($1::text[])',
        [[stale!.delivery_id, fresh!.delivery_id]],
      );
    expect((await states()).map((r) => r.delivery_id)).toEqual([fresh!.delivery_id]);
    expect(await jobs.prune(Date.now() + 29 * day)).toBe(0);
    expect(await jobs.prune(Date.now() + 31 * day)).toBeGreaterThan(0);
    expect(await states()).toEqual([]);
    expect((await jobs.counts()).PENDING ?? 0).toBe(0);
  });

  it('delivers many requests concurrently, each once', async () => {
    const { connection: c } = await connection('/bulk');
    const reqs = await h.request(
      Array.from({ length: 200 }, (_, i) => ({
        channel: { type: 'WEBHOOK' as const, webhook_connection_id: c.id },
        match_ids: [`match_${(i % 12) + 1}`],
      })),
    );
    await waitFor(() => byPath('/bulk').length >= 200, { what: '200 webhooks', timeoutMs: 20_000 });
    await h.dispatcher.idle();
    expect(byPath('/bulk')).toHaveLength(200);
    const delivered = new Set(
      (await h.events<DeliveryDelivered>(TOPICS.deliveriesDelivered)).map((d) => d.delivery_id),
    );
    expect(reqs.every((r) => delivered.has(r.delivery_id))).toBe(true);
  });
});

describe('webhook sender: a slow endpoint does not hold up the others', () => {
  it('caps attempts in flight per connection and keeps claiming for other connections', async () => {
    const rx = await startReceiver((r) =>
      r.url === '/slow' ? { status: 200, delayMs: 1500 } : { status: 200 },
    );
    const h = await senderHarness({
      content: fixedContent([sampleAlert()], [sampleMatchDocument('alrt_test', 'match_1')]),
      settings: { concurrency: 12, perConnection: 3 },
    });
    try {
      const { connection: slow } = await h.kit.webhooks.create({
        projectId: 'proj_test',
        url: `${rx.url}/slow`,
      });
      const { connection: fast } = await h.kit.webhooks.create({
        projectId: 'proj_test',
        url: `${rx.url}/fast`,
      });
      await h.request(
        Array.from({ length: 30 }, () => ({
          channel: { type: 'WEBHOOK' as const, webhook_connection_id: slow.id },
        })),
      );
      await waitFor(() => rx.received.some((r) => r.url === '/slow'));
      const started = Date.now();
      await h.request(
        Array.from({ length: 10 }, () => ({
          channel: { type: 'WEBHOOK' as const, webhook_connection_id: fast.id },
        })),
      );
      await waitFor(() => rx.received.filter((r) => r.url === '/fast').length === 10, {
        what: 'fast endpoint served',
      });
      // Served while the slow endpoint still holds its three slots (each of its requests takes 4 s).
      expect(Date.now() - started).toBeLessThan(3500);
      expect(rx.received.filter((r) => r.url === '/slow').length).toBeLessThanOrEqual(3);
    } finally {
      await rx.close(); // drops the slow requests, so that stopping does not wait for them
      await h.close();
    }
  });
});

describe('webhook sender: refusals at delivery time', () => {
  let h: Harness;

  beforeAll(async () => {
    // No allowlist: loopback and private destinations are refused.
    h = await senderHarness({
      content: fixedContent([sampleAlert()], [sampleMatchDocument('alrt_test', 'match_1')]),
      settings: { outboundAllowlist: '' },
    });
  });
  afterAll(async () => h?.close());

  it.each([
    ['http://127.0.0.1:9/hook', /loopback/],
    ['https://127.0.0.1:9/hook', /loopback/],
    ['https://10.20.30.40/hook', /private/],
    ['https://169.254.169.254/latest', /link-local/],
    ['https://[::1]:9/hook', /loopback/],
    ['https://localhost:9/hook', /loopback/],
  ])('refuses %s and abandons without retrying', async (url, why) => {
    // Stored directly (as if it had resolved to a public address when it was created).
    const { connection: c } = await h.kit.webhooks.create({ projectId: 'proj_test', url });
    const [req] = await h.request([{ channel: { type: 'WEBHOOK', webhook_connection_id: c.id } }]);
    await waitFor(async () =>
      (await h.events<DeliveryAbandoned>(TOPICS.deliveriesAbandoned)).some(
        (d) => d.delivery_id === req!.delivery_id,
      ),
    );
    const attempts = (await h.events<DeliveryAttempted>(TOPICS.deliveriesAttempted)).filter(
      (a) => a.delivery_id === req!.delivery_id,
    );
    expect(attempts).toHaveLength(1);
    expect(attempts[0]!.error).toMatch(/^refused: /);
    expect(attempts[0]!.error).toMatch(why);
    const abandoned = (await h.events<DeliveryAbandoned>(TOPICS.deliveriesAbandoned)).find(
      (d) => d.delivery_id === req!.delivery_id,
    )!;
    expect(abandoned.attempts).toBe(1);
  });
});

describe('webhook sender: the retry schedule', () => {
  // A manual clock runs the real schedule (hours) in milliseconds.
  const clock = new ManualClock(Date.parse('2026-11-21T12:00:00Z'));
  let h: Harness;
  let rx: Receiver;

  beforeAll(async () => {
    rx = await startReceiver((r) =>
      r.url === '/429'
        ? { status: 429, headers: { 'retry-after': '120' } }
        : r.url === '/hang'
          ? 'hang'
          : { status: 503 },
    );
    h = await senderHarness({
      content: fixedContent([sampleAlert()], [sampleMatchDocument('alrt_test', 'match_1')]),
      clock,
      // 30 s per attempt, scaled down so that a hanging receiver times out quickly
      settings: { schedule: RetrySchedule.parse('0s,5s,5m,30m,2h'), requestTimeoutMs: 400 },
    });
  });
  afterAll(async () => {
    await h?.close();
    await rx?.close();
  });

  async function attemptsOf(deliveryId: string) {
    return (await h.events<DeliveryAttempted>(TOPICS.deliveriesAttempted))
      .filter((a) => a.delivery_id === deliveryId)
      .sort((a, b) => a.attempt - b.attempt);
  }

  /** Lets each retry fall due by moving the clock, checking nothing happens a moment before. */
  async function runAllAttempts(deliveryId: string) {
    for (let n = 1; n <= 5; n++) {
      await waitFor(async () => (await attemptsOf(deliveryId)).length === n, { what: `attempt ${n}` });
      const last = (await attemptsOf(deliveryId)).at(-1)!;
      if (n === 5) break;
      expect(last.next_attempt_at).not.toBeNull();
      clock.advance(last.next_attempt_at! - clock.now() - 1);
      h.dispatcher.wake();
      await new Promise((r) => setTimeout(r, 30));
      expect(await attemptsOf(deliveryId)).toHaveLength(n);
      clock.advance(1);
    }
    return attemptsOf(deliveryId);
  }

  it('attempts at 0 s, then 5 s, 5 min, 30 min and 2 h after each failure (±10 %), then abandons', async () => {
    const { connection: c } = await h.kit.webhooks.create({ projectId: 'proj_test', url: `${rx.url}/503` });
    const [req] = await h.request([{ channel: { type: 'WEBHOOK', webhook_connection_id: c.id } }]);
    const attempts = await runAllAttempts(req!.delivery_id);
    const delays = attempts.slice(0, 4).map((a) => a.next_attempt_at! - a.attempted_at);
    const expected = [5_000, 300_000, 1_800_000, 7_200_000];
    delays.forEach((d, i) => {
      expect(d).toBeGreaterThanOrEqual(expected[i]! * 0.9);
      expect(d).toBeLessThanOrEqual(expected[i]! * 1.1);
    });
    await waitFor(async () =>
      (await h.events<DeliveryAbandoned>(TOPICS.deliveriesAbandoned)).some(
        (d) => d.delivery_id === req!.delivery_id,
      ),
    );
    expect(rx.received.filter((r) => r.url === '/503')).toHaveLength(5);
  });

  it('waits as long as Retry-After asks (capped), not less', async () => {
    const { connection: c } = await h.kit.webhooks.create({ projectId: 'proj_test', url: `${rx.url}/429` });
    const [req] = await h.request([{ channel: { type: 'WEBHOOK', webhook_connection_id: c.id } }]);
    await waitFor(async () => (await attemptsOf(req!.delivery_id)).length === 1);
    const [first] = await attemptsOf(req!.delivery_id);
    expect(first!.status_code).toBe(429);
    expect(first!.next_attempt_at! - first!.attempted_at).toBe(120_000);
  });

  it('gives each attempt a time budget (30 s; scaled down here) and retries a timeout', async () => {
    const { connection: c } = await h.kit.webhooks.create({ projectId: 'proj_test', url: `${rx.url}/hang` });
    const [req] = await h.request([{ channel: { type: 'WEBHOOK', webhook_connection_id: c.id } }]);
    const attempts = await runAllAttempts(req!.delivery_id);
    for (const a of attempts) {
      expect(a.error).toMatch(/^timeout/);
      expect(a.duration_ms).toBeGreaterThanOrEqual(350);
      expect(a.duration_ms).toBeLessThan(3000);
    }
  });
});
