import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutboundGuard } from '../../processors/alerts/delivery/outbound/outbound-guard.ts';
import { OutboundHttp } from '../../processors/alerts/delivery/outbound/outbound-http.ts';
import {
  ChatSummarizer,
  ModelSkippedError,
  SummaryFailedError,
} from '../../processors/alerts/summaries/chat-summarizer.ts';
import type { SummarizedMatch } from '../../processors/alerts/summaries/extractive.ts';
import { startReceiver } from '../support/receiver.ts';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const match: SummarizedMatch = {
  kind: 'ENTITY_MENTION',
  mention_variants: ['Apple'],
  windows: [
    {
      start_seconds: 0,
      end_seconds: 6,
      lines: [
        {
          number: 1,
          speaker: 'Dana',
          role: null,
          start_seconds: 0,
          end_seconds: 6,
          text: 'Apple shares barely moved.',
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

const answer = (content: string) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content } }] }),
});

/**
 * The summarizer's circuit breaker against a chat server on 127.0.0.1 that hangs: after the
 * configured failures in a row the model is skipped without a request until the cool-down ends,
 * then one summary tries it again.
 */
describe('chat summarizer circuit breaker', () => {
  let llm: Receiver | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await llm?.close();
  });

  const summarizer = (url: string, cooldownMs: number) =>
    new ChatSummarizer(new OutboundHttp(new OutboundGuard({ allowlist: '127.0.0.1/32', plainHttp: true })), {
      url,
      timeoutMs: 150,
      attempts: 2,
      backoffMs: 10,
      breakerFailures: 2,
      breakerCooldownMs: cooldownMs,
    });

  it('skips a hanging model after failures in a row, and tries it again after the cool-down', async () => {
    llm = await startReceiver(() => 'hang');
    const chat = summarizer(llm.url, 1_500);
    // Two summaries fail after their retries (2 requests each); the second opens the breaker.
    const first = await chat.summarize(match).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(SummaryFailedError);
    expect((first as SummaryFailedError).openedBreaker).toBe(false);
    const second = await chat.summarize(match).catch((e: unknown) => e);
    expect((second as SummaryFailedError).openedBreaker).toBe(true);
    expect(llm.received).toHaveLength(4);
    // Open: the model is not asked.
    for (let i = 0; i < 5; i++) {
      await expect(chat.summarize(match)).rejects.toBeInstanceOf(ModelSkippedError);
    }
    expect(llm.received).toHaveLength(4);
    // After the cool-down one trial goes through; the model answers now, which closes the breaker.
    llm.respond(() => answer('Dana says Apple shares barely moved.'));
    // The cool-down passes on the clock the breaker reads (Date), not in a wait.
    vi.setSystemTime(Date.now() + 1_600);
    await expect(chat.summarize(match)).resolves.toBe('Dana says Apple shares barely moved.');
    await expect(chat.summarize(match)).resolves.toBe('Dana says Apple shares barely moved.');
    expect(llm.received).toHaveLength(6);
  });

  it('opens again for a whole cool-down when the trial fails, and lets one trial through at a time', async () => {
    llm = await startReceiver(() => ({ status: 503 }));
    const chat = summarizer(llm.url, 800);
    await chat.summarize(match).catch(() => undefined);
    await chat.summarize(match).catch(() => undefined);
    expect(llm.received).toHaveLength(4);
    vi.setSystemTime(Date.now() + 900);
    llm.respond(() => 'hang');
    // Two summaries at once past the cool-down: one is the trial, the other is skipped.
    const results = await Promise.allSettled([chat.summarize(match), chat.summarize(match)]);
    const reasons = results.map((r) => (r.status === 'rejected' ? r.reason : undefined));
    expect(reasons.filter((e) => e instanceof ModelSkippedError)).toHaveLength(1);
    const trial = reasons.find((e) => !(e instanceof ModelSkippedError)) as SummaryFailedError;
    expect(trial.openedBreaker).toBe(true);
    expect(llm.received).toHaveLength(6);
    await expect(chat.summarize(match)).rejects.toBeInstanceOf(ModelSkippedError);
    expect(llm.received).toHaveLength(6);
  });

  it('counts only failures in a row: a success in between resets them', async () => {
    let n = 0;
    llm = await startReceiver(() => (n++ % 3 === 2 ? answer('ok') : { status: 500 }));
    const chat = summarizer(llm.url, 60_000);
    // request 0-1 fail (summary 1 fails), request 2 answers (summary 2 succeeds), 3-4 fail, 5 answers …
    await expect(chat.summarize(match)).rejects.toBeInstanceOf(SummaryFailedError);
    await expect(chat.summarize(match)).resolves.toBe('ok');
    await expect(chat.summarize(match)).rejects.toBeInstanceOf(SummaryFailedError);
    await expect(chat.summarize(match)).resolves.toBe('ok');
    expect(llm.received).toHaveLength(6);
  });
});
