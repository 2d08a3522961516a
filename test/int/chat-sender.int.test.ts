import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetrySchedule } from '../../processors/alerts/delivery/retry-schedule.ts';
import type { DeliveryAbandoned, DeliveryDelivered } from '../../schemas/generated/index.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { startChatPlatform } from '../support/chat-platform.ts';
import { fixedContent, sampleAlert, sampleMatchDocument } from '../support/delivery.ts';
import { senderHarness } from '../support/senders.ts';
import { waitFor } from '../support/wait-for.ts';

type Harness = Awaited<ReturnType<typeof senderHarness>>;

const alert = sampleAlert({ title: 'Acme <watch>' });
const matches = Array.from({ length: 20 }, (_, i) => sampleMatchDocument(alert.id, `match_${i + 1}`));

describe('team-chat sender (local Web API)', () => {
  let h: Harness;
  let chat: Awaited<ReturnType<typeof startChatPlatform>>;
  let connectionId: string;

  beforeAll(async () => {
    chat = await startChatPlatform();
    h = await senderHarness({
      content: fixedContent([alert], matches),
      settings: { chatApiUrl: chat.apiUrl, schedule: new RetrySchedule([0, 20, 20, 20, 20]) },
    });
    const c = await h.kit.chat.create({ projectId: 'proj_test', name: 'Acme Newsroom', token: chat.token });
    connectionId = c.id;
  });
  afterAll(async () => {
    await h?.close();
    await chat?.close();
  });

  const channel = (chat_channel_id: string, chat_connection_id = connectionId) => ({
    type: 'CHAT' as const,
    chat_connection_id,
    chat_channel_id,
  });

  async function outcome(id: string) {
    await waitFor(
      async () =>
        (await h.events<DeliveryDelivered>(TOPICS.deliveriesDelivered)).some((d) => d.delivery_id === id) ||
        (await h.events<DeliveryAbandoned>(TOPICS.deliveriesAbandoned)).some((d) => d.delivery_id === id),
    );
    return {
      delivered: (await h.events<DeliveryDelivered>(TOPICS.deliveriesDelivered)).find(
        (d) => d.delivery_id === id,
      ),
      abandoned: (await h.events<DeliveryAbandoned>(TOPICS.deliveriesAbandoned)).find(
        (d) => d.delivery_id === id,
      ),
    };
  }

  it('posts a realtime match to the attached channel with the bot token', async () => {
    const [r] = await h.request([{ channel: channel('C001'), match_ids: ['match_1'] }]);
    expect((await outcome(r!.delivery_id)).delivered).toMatchObject({
      attempts: 1,
      channel_type: 'CHAT',
      destination: `${connectionId}/C001`,
    });
    const post = chat.posts().at(-1)!;
    expect(post.headers.authorization).toBe(`Bearer ${chat.token}`);
    expect(post.headers['content-type']).toMatch(/^application\/json/);
    const body = post.body as { channel: string; text: string; blocks: { text?: { text: string } }[] };
    expect(body.channel).toBe('C001');
    expect(body.text).toBe('Acme <watch>: Acme was mentioned on “Episode about match_1” (The Market Hour)');
    const markup = JSON.stringify(body.blocks);
    expect(markup).toContain('*Acme &lt;watch&gt;*');
    expect(markup).toContain('Acme shares moved &lt;a lot&gt; &amp; then some.');
    expect(markup).toContain('<https://cdn.example/audio/1.mp3#t=61,75.5|Listen>');
  });

  it('posts a digest as one message listing the matches', async () => {
    const ids = matches.map((m) => m.id);
    const [r] = await h.request([{ cadence: 'WEEKLY', channel: channel('C002'), match_ids: ids }]);
    expect((await outcome(r!.delivery_id)).delivered).toBeTruthy();
    const body = chat.posts().at(-1)!.body as { text: string; blocks: unknown[] };
    expect(body.text).toBe('Acme <watch>: weekly digest, 20 new matches');
    expect(JSON.stringify(body.blocks)).toContain('…and 5 more');
  });

  it('abandons on a permanent platform error and retries rate limits', async () => {
    const [gone] = await h.request([{ channel: channel('C404'), match_ids: ['match_2'] }]);
    const g = await outcome(gone!.delivery_id);
    expect(g.abandoned).toMatchObject({ attempts: 1, reason: 'channel_not_found' });

    chat.failPosts({
      status: 429,
      body: { ok: false, error: 'ratelimited' },
      headers: { 'retry-after': '0' },
    });
    const [limited] = await h.request([{ channel: channel('C001'), match_ids: ['match_3'] }]);
    await waitFor(() => chat.posts().length >= 5);
    chat.failPosts(undefined);
    const l = await outcome(limited!.delivery_id);
    expect(l.delivered?.attempts ?? l.abandoned?.attempts).toBeGreaterThan(1);
  });

  it('skips a deleted connection and a revoked token gives up', async () => {
    const other = await h.kit.chat.create({ projectId: 'proj_test', name: 'old', token: 'xoxb-revoked' });
    const deleted = await h.kit.chat.create({ projectId: 'proj_test', name: 'gone', token: chat.token });
    await h.kit.chat.delete('proj_test', deleted.id);
    const before = chat.posts().length;
    const [a, b] = await h.request([
      { channel: channel('C001', deleted.id), match_ids: ['match_4'] },
      { channel: channel('C001', other.id), match_ids: ['match_4'] },
    ]);
    expect((await outcome(a!.delivery_id)).abandoned).toMatchObject({
      attempts: 0,
      reason: 'chat connection deleted',
    });
    expect((await outcome(b!.delivery_id)).abandoned).toMatchObject({ attempts: 1, reason: 'invalid_auth' });
    expect(chat.posts().length).toBe(before + 1);
  });
});
