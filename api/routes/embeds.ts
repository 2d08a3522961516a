import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { AnalyticsReads } from '../../projections/analytics/analytics-reads.ts';
import type { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import { html, type SafeHtml } from '../html.ts';
import { invalidParameter, problem } from '../problem.ts';
import { withProblems } from '../schemas.ts';
import { notFound } from '../views/analytics.ts';

/**
 * Public embeds (no credential; rate-limited per client address like every public `/v1` route):
 * a clip player, an episode card and oEmbed discovery. Pages may be framed anywhere
 * (`frame-ancestors *`) and load nothing but the audio and the show's image; a clip page shows
 * only the clip's own transcript lines, never the rest of the episode.
 */
export interface EmbedOptions {
  reads: AnalyticsReads;
  catalog: CatalogReader;
  /** Public base URL of the API: embed and oEmbed links are absolute. */
  publicUrl: string;
}

const CACHE = 'public, max-age=300';
const CSP =
  "default-src 'none'; media-src https: http:; img-src https: http: data:; style-src 'unsafe-inline'; frame-ancestors *; base-uri 'none'; form-action 'none'";
const CLIP_SIZE = { width: 480, height: 260 };
const EPISODE_SIZE = { width: 480, height: 200 };

const STYLE = html`<style>
  body{font:14px/1.4 system-ui,sans-serif;margin:0;padding:12px;color:#1b1b1b;background:#fff}
  h1{font-size:16px;margin:0 0 4px} p{margin:4px 0} .meta{color:#555;font-size:12px}
  audio{width:100%;margin:8px 0} blockquote{margin:6px 0;padding-left:8px;border-left:3px solid #ccc}
  img{float:right;width:64px;height:64px;margin-left:8px;object-fit:cover}
</style>`;

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
const HtmlPage = {
  description: 'an HTML page',
  content: { 'text/html': { schema: Type.String() } },
} as const;

function page(reply: FastifyReply, title: string, oembed: string, body: SafeHtml) {
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', CSP)
    .header('cache-control', CACHE)
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .send(
      html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="alternate" type="application/json+oembed" href="${oembed}" title="${title}">
${STYLE}</head><body>${body}</body></html>`.toString(),
    );
}

export const embedRoutes: FastifyPluginAsyncTypebox<EmbedOptions> = async (app, opts) => {
  const base = opts.publicUrl.replace(/\/$/, '');
  const { catalog } = opts;
  const { episodes } = opts.reads;
  const clipUrl = (id: string) => `${base}/v1/embed/clips/${encodeURIComponent(id)}`;
  const episodeUrl = (id: string) => `${base}/v1/embed/episodes/${encodeURIComponent(id)}`;
  const oembedUrl = (url: string) => `${base}/v1/embed/oembed?url=${encodeURIComponent(url)}&format=json`;

  async function clipOf(id: string, location: string) {
    const clip = await episodes.clip(id);
    if (!clip) throw notFound(location, 'no clip has this ID', id);
    const episode = await catalog.episode(clip.episode_id);
    const podcast = episode ? await catalog.podcast(episode.podcast_id) : undefined;
    return { clip, episode, podcast };
  }

  async function episodeOf(ref: string, location: string) {
    const episode = await catalog.episode(ref);
    if (!episode) throw notFound(location, 'no episode has this slug or ID', ref);
    const podcast = await catalog.podcast(episode.podcast_id);
    return { episode, podcast };
  }

  app.get(
    '/v1/embed/clips/:id',
    {
      config: { public: true },
      schema: {
        tags: ['embeds'],
        summary: 'Embeddable clip player (public, HTML)',
        description:
          'Audio, title, speaker, intro statement, the clip’s own transcript lines and a link back. Framable anywhere (`Content-Security-Policy: frame-ancestors *`), cacheable for 5 minutes.',
        params: IdParams,
        response: { 200: HtmlPage, '4XX': Type.Ref('Problem'), '5XX': Type.Ref('Problem') },
      },
    },
    async (request, reply) => {
      const { clip, episode, podcast } = await clipOf(request.params.id, 'path.id');
      const [lines, speakers] = await Promise.all([
        episodes.transcript(clip.episode_id),
        episodes.speakers([clip.episode_id]),
      ]);
      // Only the clip's own lines: those that lie within its start and end.
      const own = lines.filter(
        (l) => l.start_seconds >= clip.start_seconds && l.end_seconds <= clip.end_seconds,
      );
      const speaker = speakers.find((s) => s.label === clip.speaker);
      const speakerName = speaker?.name ?? null;
      const back = episode ? episodeUrl(episode.id) : null;
      return page(
        reply,
        clip.title,
        oembedUrl(clipUrl(clip.id)),
        html`<article>
${podcast?.image_url ? html`<img src="${podcast.image_url}" alt="">` : null}
<h1>${clip.title}</h1>
${speakerName ? html`<p class="meta">${speakerName}${speaker?.role ? html` · ${speaker.role.toLowerCase()}` : null}</p>` : null}
${clip.intro_statement ? html`<p>${clip.intro_statement}</p>` : null}
${clip.audio_url ? html`<audio controls preload="none" src="${clip.audio_url}"></audio>` : null}
${own.map((l) => html`<blockquote>${l.text}</blockquote>`)}
<p class="meta">${podcast?.title ?? ''}${episode ? html` — ${episode.title}` : null}
${back ? html` · <a href="${back}" target="_blank" rel="noopener">the episode</a>` : null}</p>
</article>`,
      );
    },
  );

  app.get(
    '/v1/embed/episodes/:id',
    {
      config: { public: true },
      schema: {
        tags: ['embeds'],
        summary: 'Embeddable episode card (public, HTML)',
        description:
          'Title, show, date, description and the audio. Framable anywhere, cacheable for 5 minutes.',
        params: IdParams,
        response: { 200: HtmlPage, '4XX': Type.Ref('Problem'), '5XX': Type.Ref('Problem') },
      },
    },
    async (request, reply) => {
      const { episode, podcast } = await episodeOf(request.params.id, 'path.id');
      return page(
        reply,
        episode.title,
        oembedUrl(episodeUrl(episode.id)),
        html`<article>
${podcast?.image_url ? html`<img src="${podcast.image_url}" alt="">` : null}
<h1>${episode.title}</h1>
<p class="meta">${podcast?.title ?? ''} · ${new Date(episode.published_at).toISOString().slice(0, 10)}</p>
${episode.description ? html`<p>${episode.description}</p>` : null}
${episode.audio_url ? html`<audio controls preload="none" src="${episode.audio_url}"></audio>` : null}
</article>`,
      );
    },
  );

  const OembedQuery = Type.Object({
    url: Type.String({
      minLength: 1,
      maxLength: 2000,
      description: 'the address of a clip or episode embed of this API',
    }),
    format: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 20,
        default: 'json',
        description: 'only `json` is served: another format (`xml`) is 501 `not_implemented`, as oEmbed asks',
      }),
    ),
    maxwidth: Type.Optional(Type.Integer({ minimum: 100, maximum: 4000 })),
    maxheight: Type.Optional(Type.Integer({ minimum: 100, maximum: 4000 })),
  });
  const Oembed = Type.Object({
    version: Type.Literal('1.0'),
    type: Type.Literal('rich'),
    title: Type.String(),
    author_name: Type.Optional(Type.String()),
    provider_name: Type.String(),
    provider_url: Type.String(),
    html: Type.String(),
    width: Type.Integer(),
    height: Type.Integer(),
    thumbnail_url: Type.Optional(Type.String()),
    cache_age: Type.Integer(),
  });

  app.get(
    '/v1/embed/oembed',
    {
      config: { public: true },
      schema: {
        tags: ['embeds'],
        summary: 'oEmbed discovery for clip and episode embeds (public)',
        querystring: OembedQuery,
        response: withProblems({ 200: Oembed }),
      },
    },
    async (request, reply) => {
      const q = request.query;
      // oEmbed 1.0, section 2.3.4: a format the provider does not serve is 501 Not Implemented.
      if (q.format !== undefined && q.format !== 'json') {
        throw problem(
          'not_implemented',
          `oEmbed format ${JSON.stringify(q.format)} is not served; use json.`,
          {
            errors: [{ location: 'query.format', message: 'only json is served', value: q.format }],
          },
        );
      }
      let target: URL;
      try {
        target = new URL(q.url);
      } catch {
        throw invalidParameter('query.url', 'is not a URL', q.url);
      }
      const m = /^\/v1\/embed\/(clips|episodes)\/([^/]+)$/.exec(target.pathname);
      if (!m || `${target.protocol}//${target.host}` !== new URL(base).origin)
        throw invalidParameter('query.url', `must be a clip or episode embed of ${base}`, q.url);
      const id = decodeURIComponent(m[2]!);
      const size = m[1] === 'clips' ? CLIP_SIZE : EPISODE_SIZE;
      const width = Math.min(size.width, q.maxwidth ?? size.width);
      const height = Math.min(size.height, q.maxheight ?? size.height);
      let title: string;
      let author: string | undefined;
      let thumbnail: string | null | undefined;
      let src: string;
      if (m[1] === 'clips') {
        const { clip, podcast } = await clipOf(id, 'query.url');
        title = clip.title;
        author = podcast?.title;
        thumbnail = podcast?.image_url;
        src = clipUrl(clip.id);
      } else {
        const { episode, podcast } = await episodeOf(id, 'query.url');
        title = episode.title;
        author = podcast?.title;
        thumbnail = podcast?.image_url;
        src = episodeUrl(episode.id);
      }
      reply.header('cache-control', CACHE);
      return {
        version: '1.0' as const,
        type: 'rich' as const,
        title,
        ...(author ? { author_name: author } : {}),
        provider_name: 'Earshot',
        provider_url: base,
        html: html`<iframe src="${src}" width="${width}" height="${height}" frameborder="0" loading="lazy" title="${title}"></iframe>`.toString(),
        width,
        height,
        ...(thumbnail ? { thumbnail_url: thumbnail } : {}),
        cache_age: 300,
      };
    },
  );
};
