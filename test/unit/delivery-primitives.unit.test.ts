import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { digestEnvelope, matchEnvelope } from '../../processors/alerts/delivery/channels/envelope.ts';
import {
  newWebhookSecret,
  secretPrefix,
  signWebhook,
} from '../../processors/alerts/delivery/channels/webhook-signature.ts';
import {
  parseRetryAfter,
  parseSchedule,
  RetrySchedule,
} from '../../processors/alerts/delivery/retry-schedule.ts';
import { SecretBox, TokenSigner } from '../../processors/alerts/delivery/secrets.ts';

describe('webhook signatures', () => {
  it('makes whsec_ secrets of 32 random bytes and a masked prefix', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(secretPrefix(secret)).toBe(secret.slice(0, 12));
  });

  it('signs "{id}.{timestamp}.{body}" so a Standard Webhooks verifier accepts it with renamed headers', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ event_type: 'alert.match.created', delivery_id: 'msg_1', x: 'é' });
    const ts = Math.floor(Date.now() / 1000);
    const h = signWebhook(secret, 'msg_1', ts, body);
    expect(h['user-agent']).toBe('Earshot-Webhooks/1.0');
    expect(h['x-webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const renamed = {
      'webhook-id': h['x-webhook-id'],
      'webhook-timestamp': h['x-webhook-timestamp'],
      'webhook-signature': h['x-webhook-signature'],
    };
    expect(new Webhook(secret).verify(body, renamed)).toMatchObject({ delivery_id: 'msg_1' });
    expect(() => new Webhook(newWebhookSecret()).verify(body, renamed)).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, renamed)).toThrow();
  });
});

describe('retry schedule', () => {
  it('parses durations and defaults to 0 s, 5 s, 5 min, 30 min, 2 h', () => {
    expect(parseSchedule('0s,5s,5m,30m,2h')).toEqual([0, 5000, 300_000, 1_800_000, 7_200_000]);
    expect(parseSchedule('0ms, 10ms,1.5s')).toEqual([0, 10, 1500]);
    expect(() => parseSchedule('5 minutes')).toThrow();
  });

  it('spaces attempts by the schedule with ±10 % jitter and gives up after the last', () => {
    const s = RetrySchedule.parse('0s,5s,5m,30m,2h');
    expect(s.maxAttempts).toBe(5);
    for (let i = 0; i < 200; i++) {
      const d = s.nextDelay(1)!;
      expect(d).toBeGreaterThanOrEqual(4500);
      expect(d).toBeLessThanOrEqual(5500);
    }
    expect(new RetrySchedule([0, 5000, 300_000], 0).nextDelay(2)).toBe(300_000);
    expect(s.nextDelay(5)).toBeUndefined();
  });

  it('honours Retry-After as a later time, capped at the longest step', () => {
    const s = new RetrySchedule([0, 5000, 300_000, 1_800_000, 7_200_000], 0);
    expect(s.nextDelay(1, 60_000)).toBe(60_000);
    expect(s.nextDelay(1, 1000)).toBe(5000);
    expect(s.nextDelay(1, 86_400_000)).toBe(7_200_000);
    expect(parseRetryAfter('120', 0)).toBe(120_000);
    expect(parseRetryAfter(new Date(70_000).toUTCString(), 10_000)).toBe(60_000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
  });
});

describe('secrets at rest and link tokens', () => {
  it('seals and opens secrets bound to their row', () => {
    const box = new SecretBox(randomBytes(32));
    const sealed = box.encrypt('whsec_abc', 'whc_1');
    expect(sealed).not.toContain('whsec_abc');
    expect(box.decrypt(sealed, 'whc_1')).toBe('whsec_abc');
    expect(() => box.decrypt(sealed, 'whc_2')).toThrow();
    expect(() => new SecretBox(randomBytes(32)).decrypt(sealed, 'whc_1')).toThrow();
  });

  it('signs tokens per purpose and rejects tampering', () => {
    const box = new SecretBox(randomBytes(32));
    const disable = new TokenSigner(box, 'alert-disable');
    const token = disable.sign({ a: 'alrt_1', e: 'x@example.com' });
    expect(disable.verify(token)).toEqual({ a: 'alrt_1', e: 'x@example.com' });
    expect(new TokenSigner(box, 'other').verify(token)).toBeUndefined();
    const [body, mac] = token.split('.');
    const forged = `${Buffer.from(JSON.stringify({ a: 'alrt_2', e: 'x@example.com' })).toString('base64url')}.${mac}`;
    expect(disable.verify(forged)).toBeUndefined();
    expect(disable.verify(`${body}.`)).toBeUndefined();
    expect(disable.verify('garbage')).toBeUndefined();
  });
});

describe('webhook envelopes', () => {
  const match = {
    id: 'match_1',
    alert_id: 'alrt_1',
    kind: 'ENTITY_MENTION' as const,
    entity_type: 'COMPANY',
    entity_id: 'ent_1',
    source_type: 'PODCAST_EPISODE',
    source_id: 'ep_1',
    detected_at: '2026-11-20T23:00:05.000Z',
    mention_count: 1,
    relevance: 'on_target',
    is_backfilled: false,
    windows: [],
  };
  const alert = { id: 'alrt_1', title: 'Apple', kind: 'ENTITY_MENTION' as const };

  it('carries the detection time, the attempt id and `test` only on test sends', () => {
    const e = matchEnvelope({
      attemptId: 'msg_a',
      url: 'https://x/v1/alerts/deliveries/dlv_1',
      alert,
      match,
    });
    expect(e).toEqual({
      event_type: 'alert.match.created',
      delivery_id: 'msg_a',
      timestamp: Math.floor(Date.parse(match.detected_at) / 1000),
      url: 'https://x/v1/alerts/deliveries/dlv_1',
      alert,
      match,
    });
    expect('test' in e).toBe(false);
    expect(matchEnvelope({ attemptId: 'm', url: 'u', alert, match, test: true }).test).toBe(true);
  });

  it('stamps a digest with its latest match', () => {
    const later = { ...match, id: 'match_2', detected_at: '2026-11-21T10:00:00.000Z' };
    const e = digestEnvelope({ attemptId: 'msg_b', url: 'u', alert, matches: [match, later] });
    expect(e.event_type).toBe('alert.digest.created');
    expect(e.timestamp).toBe(Math.floor(Date.parse(later.detected_at) / 1000));
    expect(e.matches).toHaveLength(2);
  });
});
