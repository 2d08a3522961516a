import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOfUtcDay } from '../../ingest/corpus/generate.ts';
import { projectedCorpus } from '../support/analytics.ts';
import { testApi } from '../support/api.ts';
import { freePort } from '../support/free-port.ts';

/** Debian's Chromium; `.ci/run` installs it when it is missing. */
const CHROMIUM = process.env.EARSHOT_CHROMIUM ?? '/usr/bin/chromium';

/**
 * The clip embed inside an `<iframe>` of a page served from another origin (another port on
 * 127.0.0.1), in Chromium: it renders, plays only the clip's own audio, shows only the clip's own
 * transcript lines, the host page cannot read into it, and it asks the API for nothing but its
 * page — no credential, no other read. Requests leaving 127.0.0.1 (the show's image, the audio
 * host) are recorded and refused.
 */
describe('clip embed in a cross-origin iframe', () => {
  let fx: Awaited<ReturnType<typeof projectedCorpus>>;
  let api: Awaited<ReturnType<typeof testApi>>;
  let host: http.Server;
  let browser: Browser;
  let apiUrl: string;
  let hostUrl: string;

  beforeAll(async () => {
    expect(fs.existsSync(CHROMIUM), `${CHROMIUM} (apt-get install -y chromium)`).toBe(true);
    fx = await projectedCorpus({
      podcasts: 4,
      episodesPerPodcast: 4,
      seed: 5,
      asOf: startOfUtcDay(Date.now()),
    });
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    api = await testApi({ publicUrl: apiUrl, rateLimitPerMinute: 10_000 }, undefined, {
      state: fx.state,
      analytics: fx.analytics,
    });
    await api.app.listen({ host: '127.0.0.1', port });
    host = http.createServer((req, res) => {
      const src = new URL(req.url ?? '/', 'http://x').searchParams.get('src') ?? '';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html><head><title>host</title></head><body><h1>A blog</h1>` +
          `<iframe id="embed" src="${src.replace(/"/g, '&quot;')}" width="480" height="260"></iframe></body></html>`,
      );
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => host?.close(resolve));
    await api?.close();
    await fx?.close();
  });

  it('renders the clip, its audio and its own lines only, and exposes nothing else', async () => {
    const transcripts = new Map(fx.corpus.transcripts.map((t) => [t.episode_id, t]));
    const found = fx.corpus.clips
      .flatMap((set) => set.clips.map((clip) => ({ episodeId: set.episode_id, clip })))
      .find(({ clip }) => clip.audio_url && clip.intro_statement)!;
    const { clip } = found;
    const lines = transcripts.get(found.episodeId)!.lines;
    const own = lines.filter(
      (l) => l.start_seconds >= clip.start_seconds && l.end_seconds <= clip.end_seconds,
    );
    const ownText = new Set(own.map((l) => l.text));
    const others = lines.filter((l) => !ownText.has(l.text));

    const context = await browser.newContext();
    const page = await context.newPage();
    const requests: { url: string; headers: Record<string, string> }[] = [];
    const refused: string[] = [];
    await page.route('**/*', async (route) => {
      const url = route.request().url();
      requests.push({ url, headers: route.request().headers() });
      if (new URL(url).hostname === '127.0.0.1') await route.continue();
      else {
        refused.push(url);
        await route.abort();
      }
    });
    const embedUrl = `${apiUrl}/v1/embed/clips/${encodeURIComponent(clip.id)}`;
    await page.goto(`${hostUrl}/?src=${encodeURIComponent(embedUrl)}`);
    const frame = page.frameLocator('#embed');
    await expect.poll(() => frame.locator('h1').textContent(), { timeout: 15_000 }).toBe(clip.title);

    // the clip's audio, not playing until asked; its intro; exactly its own lines
    expect(await frame.locator('audio').getAttribute('src')).toBe(clip.audio_url);
    expect(await frame.locator('audio').evaluate((a) => (a as unknown as { paused: boolean }).paused)).toBe(
      true,
    );
    expect(await frame.locator('body').textContent()).toContain(clip.intro_statement!);
    const quotes = await frame.locator('blockquote').allTextContents();
    expect(quotes).toEqual(own.map((l) => l.text));
    const text = (await frame.locator('body').textContent()) ?? '';
    for (const l of others) expect(text).not.toContain(l.text);

    // the host page cannot read into the frame (another origin)
    expect(await page.evaluate('document.getElementById("embed").contentDocument === null')).toBe(true);
    // the frame asked the API for its page only, with no credential; nothing left loopback
    // but public media of the clip and its show
    const toApi = requests.filter((r) => r.url.startsWith(apiUrl));
    expect(toApi.map((r) => new URL(r.url).pathname)).toEqual([`/v1/embed/clips/${clip.id}`]);
    for (const r of toApi) {
      expect(r.headers['x-api-key']).toBeUndefined();
      expect(r.headers.authorization).toBeUndefined();
      expect(r.headers.cookie).toBeUndefined();
    }
    const podcast = fx.corpus.podcasts.find(
      (p) => p.id === fx.corpus.episodes.find((e) => e.id === found.episodeId)!.podcast_id,
    )!;
    const publicMedia = new Set([clip.audio_url, podcast.image_url].filter(Boolean));
    for (const url of refused) expect(publicMedia.has(url), url).toBe(true);
    expect(await context.cookies()).toEqual([]);
    await context.close();
  }, 60_000);
});
