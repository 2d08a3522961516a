import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpMailer } from '../../processors/alerts/delivery/channels/mailer.ts';
import { RetrySchedule } from '../../processors/alerts/delivery/retry-schedule.ts';
import type {
  DeliveryAbandoned,
  DeliveryAttempted,
  DeliveryDelivered,
} from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { fixedContent, sampleAlert, sampleMatchDocument } from '../support/delivery.ts';
import { senderHarness } from '../support/senders.ts';
import { startSmtp } from '../support/smtp.ts';
import { waitFor } from '../support/wait-for.ts';

type Harness = Awaited<ReturnType<typeof senderHarness>>;
type Smtp = Awaited<ReturnType<typeof startSmtp>>;

const alert = sampleAlert({ title: 'Acme & Co. watch' });
const matches = [
  sampleMatchDocument(alert.id, 'match_1'),
  sampleMatchDocument(alert.id, 'match_2', { detected_at: new Date(Date.now() - 5000).toISOString() }),
  sampleMatchDocument(alert.id, 'match_3', { llm_summary: 'Dana says <Apple> beat estimates.' }),
  sampleMatchDocument(alert.id, 'match_backfill', { is_backfilled: true }),
  sampleMatchDocument(alert.id, 'match_4'),
];

describe('email sender (real SMTP server on 127.0.0.1)', () => {
  let h: Harness;
  let smtp: Smtp;

  beforeAll(async () => {
    smtp = await startSmtp();
    h = await senderHarness({
      content: fixedContent([alert], matches),
      mailer: new SmtpMailer(smtp.url, 'Earshot Alerts <alerts@earshot.test>', { timeoutMs: 5000 }),
      settings: { schedule: new RetrySchedule([0, 30, 30, 30, 30]) },
    });
    for (const [email, verified] of [
      ['ana@example.com', true],
      ['ben@example.com', true],
      ['pending@example.com', false],
    ] as const) {
      await h.state.query(
        `INSERT INTO notification_emails (id, organization_id, email, verified_at) VALUES ($1, 'org_test', $2, $3)`,
        [`ne_${email.split('@')[0]}`, email, verified ? new Date() : null],
      );
    }
  });
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
  });

  const mailsTo = (address: string) =>
    smtp.mails.filter((m) => m.to.some((t) => t.toLowerCase() === address.toLowerCase()));
  const email = (address: string) => ({ type: 'EMAIL' as const, email: address });

  async function outcome(deliveryId: string) {
    await waitFor(
      async () =>
        (await h.events<DeliveryDelivered>(TOPICS.deliveriesDelivered)).some(
          (d) => d.delivery_id === deliveryId,
        ) ||
        (await h.events<DeliveryAbandoned>(TOPICS.deliveriesAbandoned)).some(
          (d) => d.delivery_id === deliveryId,
        ),
      { what: `outcome of ${deliveryId}` },
    );
    const delivered = (await h.events<DeliveryDelivered>(TOPICS.deliveriesDelivered)).find(
      (d) => d.delivery_id === deliveryId,
    );
    const abandoned = (await h.events<DeliveryAbandoned>(TOPICS.deliveriesAbandoned)).find(
      (d) => d.delivery_id === deliveryId,
    );
    return { delivered, abandoned };
  }

  it('mails one realtime email per match and recipient: subject from the title, text and HTML, disable footer', async () => {
    const [a, b] = await h.request([
      { channel: email('ana@example.com'), match_ids: ['match_1'] },
      { channel: email('Ben@Example.com'), match_ids: ['match_1'] },
    ]);
    expect((await outcome(a!.delivery_id)).delivered).toMatchObject({ attempts: 1, channel_type: 'EMAIL' });
    expect((await outcome(b!.delivery_id)).delivered).toBeTruthy();
    const [mail] = mailsTo('ana@example.com');
    expect(mailsTo('ana@example.com')).toHaveLength(1);
    expect(mailsTo('Ben@Example.com')).toHaveLength(1);
    expect(mail!.from).toBe('alerts@earshot.test');
    expect(mail!.subject).toBe('Acme & Co. watch: Acme on The Market Hour');
    expect(mail!.text).toContain('Acme was mentioned on "Episode about match_1" (The Market Hour)');
    expect(mail!.text).toContain('[1:06] Marcus (guest): » Acme shares moved <a lot> & then some.');
    expect(mail!.text).toContain('Listen: https://cdn.example/audio/1.mp3#t=61,75.5');
    expect(mail!.html).toContain('<mark>Acme shares moved &#60;a lot&#62; &#38; then some.</mark>');
    expect(mail!.html).not.toContain('<a lot>');
    // footer: a disable link carrying a token for this alert and recipient
    const link = /Disable this alert: (\S+)/.exec(mail!.text)![1]!;
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:8080\/v1\/alerts\/disable\?token=/);
    const token = decodeURIComponent(new URL(link).searchParams.get('token')!);
    expect(h.kit.disableTokens.verify(token)).toEqual({ a: alert.id, e: 'ana@example.com' });
    expect(mail!.html).toContain(link.replace(/&/g, '&#38;'));
    expect(mail!.headers['list-unsubscribe']).toBe(`<${link}>`);
    expect(mail!.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    const [attempt] = (await h.events<DeliveryAttempted>(TOPICS.deliveriesAttempted)).filter(
      (x) => x.delivery_id === a!.delivery_id,
    );
    expect(attempt).toMatchObject({ succeeded: true, destination: 'ana@example.com', channel_type: 'EMAIL' });
  });

  it('mails only verified addresses', async () => {
    const [p, unknown] = await h.request([
      { channel: email('pending@example.com'), match_ids: ['match_2'] },
      { channel: email('stranger@example.com'), match_ids: ['match_2'] },
    ]);
    expect((await outcome(p!.delivery_id)).abandoned).toMatchObject({
      attempts: 0,
      reason: 'recipient address is not verified',
    });
    expect((await outcome(unknown!.delivery_id)).abandoned?.reason).toBe('recipient address is not verified');
    expect(mailsTo('pending@example.com')).toHaveLength(0);
    expect(mailsTo('stranger@example.com')).toHaveLength(0);
  });

  it('never mails backfilled matches', async () => {
    const [r] = await h.request([{ channel: email('ana@example.com'), match_ids: ['match_backfill'] }]);
    expect((await outcome(r!.delivery_id)).abandoned?.reason).toBe('backfilled matches never send email');
    expect(mailsTo('ana@example.com').filter((m) => m.text.includes('match_backfill'))).toHaveLength(0);
  });

  it('bundles a daily digest in one mail per recipient, leaving backfilled matches out', async () => {
    const before = mailsTo('ben@example.com').length;
    const [r] = await h.request([
      {
        cadence: 'DAILY',
        channel: email('ben@example.com'),
        match_ids: ['match_2', 'match_3', 'match_backfill'],
        window_start: Date.now() - 86_400_000,
        window_end: Date.now(),
      },
    ]);
    expect((await outcome(r!.delivery_id)).delivered).toBeTruthy();
    const mails = mailsTo('ben@example.com').slice(before);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('Acme & Co. watch: daily digest, 2 new matches');
    expect(mails[0]!.text).toContain('2 new matches in your daily digest');
    expect(mails[0]!.text).toContain('"Episode about match_2"');
    expect(mails[0]!.text).toContain('"Episode about match_3"');
    expect(mails[0]!.text).not.toContain('match_backfill');
    // a match's summary, once written, under its item
    expect(mails[0]!.text).toContain('"Episode about match_3"');
    expect(mails[0]!.text).toContain('\n  Dana says <Apple> beat estimates.');
    expect(mails[0]!.html).toContain('Dana says &#60;Apple&#62; beat estimates.');
    // oldest first
    expect(mails[0]!.text.indexOf('match_2')).toBeLessThan(mails[0]!.text.indexOf('match_3'));
  });

  it('gives up at once on a permanent SMTP rejection and retries a temporary one', async () => {
    smtp.reject((rcpt) =>
      rcpt === 'ana@example.com'
        ? { code: 550, message: 'mailbox unavailable' }
        : rcpt === 'ben@example.com'
          ? { code: 451, message: 'try again later' }
          : undefined,
    );
    try {
      const [perm, temp] = await h.request([
        { channel: email('ana@example.com'), match_ids: ['match_4'] },
        { channel: email('ben@example.com'), match_ids: ['match_4'] },
      ]);
      const p = await outcome(perm!.delivery_id);
      expect(p.abandoned?.attempts).toBe(1);
      expect(p.abandoned?.reason).toMatch(/550/);
      const t = await outcome(temp!.delivery_id);
      expect(t.abandoned?.attempts).toBe(5);
      expect(t.abandoned?.reason).toMatch(/^5 attempts failed; last: smtp: .*451/);
    } finally {
      smtp.reject(undefined);
    }
  });
});

describe('email sender without SMTP_URL', () => {
  it('reports email unavailable on each attempt, then abandons', async () => {
    const h = await senderHarness({
      content: fixedContent([alert], matches),
      settings: { schedule: new RetrySchedule([0, 10]) },
    });
    try {
      await h.state.query(
        `INSERT INTO notification_emails (id, organization_id, email, verified_at) VALUES ('ne_a', 'org_test', 'ana@example.com', now())`,
      );
      const [r] = await h.request([
        { channel: { type: 'EMAIL', email: 'ana@example.com' }, match_ids: ['match_1'] },
      ]);
      await waitFor(async () =>
        (await h.events<DeliveryAbandoned>(TOPICS.deliveriesAbandoned)).some(
          (d) => d.delivery_id === r!.delivery_id,
        ),
      );
      const attempts = await h.events<DeliveryAttempted>(TOPICS.deliveriesAttempted);
      expect(attempts.map((a) => a.error)).toEqual([
        'email is unavailable: SMTP_URL is not set',
        'email is unavailable: SMTP_URL is not set',
      ]);
    } finally {
      await h.close();
    }
  });
});
