import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { dashboardLink, dashboardPaths } from '../dashboard-paths.ts';
import { ERROR_CODE_GUIDES } from '../docs/error-codes.ts';
import { ERROR_CODES, type ErrorCode, problem } from '../problem.ts';
import { html, page, withCode } from './html.ts';

const HTML = 'text/html; charset=utf-8';

function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

/**
 * The service's own pages: `GET /` (where to start), `/errors` and one page per `error_code`, so
 * that every problem `type` URL resolves when no separate docs host is configured, and
 * `/authentication` (the page problem `resolve` links name) → the authentication guide.
 */
export const pageRoutes: FastifyPluginAsyncTypebox<{ dashboardUrl: string }> = async (
  app,
  { dashboardUrl },
) => {
  // Documented as HTML pages (the OpenAPI document lists every route the service serves).
  const htmlPage = (summary: string) => ({
    schema: {
      tags: ['documentation'],
      summary,
      response: { 200: { description: 'an HTML page', content: { 'text/html': { schema: Type.String() } } } },
    },
  });

  app.get(
    '/',
    htmlPage('Landing page: links to the reference, the OpenAPI document, llms.txt and auth.md'),
    async (_request, reply) =>
      reply.type(HTML).send(
        page(
          'Earshot',
          html`<h1>Earshot</h1>
<p>Podcast intelligence over REST: diarized, speaker-identified transcripts; keyword, semantic and
hybrid dialogue search; who mentioned whom and how often; sponsors, charts and alerts.</p>
<p>Every data endpoint lives under <code>/v1/</code> and takes an API key in the
<code>X-API-Key</code> header.</p>
<ul>
<li><a href="${dashboardLink(dashboardUrl, dashboardPaths.home())}">Dashboard</a>: sign up, create a project, mint an API key, set up alerts</li>
<li><a href="/docs">Interactive API reference</a></li>
<li><a href="/openapi.json">OpenAPI document</a> (<code>/openapi.json</code>)</li>
<li><a href="/auth.md">Authentication guide</a>: keys, errors, rate limits</li>
<li><a href="/llms.txt">llms.txt</a>: an index for language models and agents</li>
<li><a href="/errors">Error codes</a>: what each <code>error_code</code> means</li>
<li><a href="/readyz">Readiness</a>: engines, consumers, search</li>
</ul>`,
        ),
      ),
  );

  app.get('/errors', htmlPage('Every error code, each linking its page'), async (_request, reply) =>
    reply.type(HTML).send(
      page(
        'Earshot error codes',
        html`<h1>Error codes</h1>
<p>Every error is an <code>application/problem+json</code> document (RFC 9457) with a stable
<code>error_code</code>; its <code>type</code> is the URL of the code's page below.</p>
<ul>${(Object.keys(ERROR_CODES) as ErrorCode[]).map(
          (code) =>
            html`<li><a href="/errors/${code}"><code>${code}</code></a> (${ERROR_CODES[code].status}) ${ERROR_CODES[code].title}</li>`,
        )}</ul>
<p><a href="/">Home</a></p>`,
      ),
    ),
  );

  app.get(
    '/errors/:code',
    {
      schema: {
        ...htmlPage('What an error code means and what to do: the page a problem `type` names').schema,
        params: Type.Object({ code: Type.String({ maxLength: 100 }) }),
      },
    },
    async (request, reply) => {
      const { code } = request.params;
      if (!isErrorCode(code)) throw problem('not_found', `No error code ${code}; see /errors.`);
      const { status, title } = ERROR_CODES[code];
      const guide = ERROR_CODE_GUIDES[code];
      return reply.type(HTML).send(
        page(
          `${code}: Earshot error`,
          html`<h1><code>${code}</code></h1>
<p><strong>${status} ${title}</strong></p>
<h2>What it means</h2><p>${withCode(guide.meaning)}</p>
<h2>What to do</h2><p>${withCode(guide.action)}</p>
<p>The problem document's <code>detail</code> and <code>errors[]</code> say what exactly was wrong with
the request; <code>resolve</code>, when present, says how to fix it.</p>
<p><a href="/errors">All error codes</a> · <a href="/auth.md">Authentication guide</a> · <a href="/">Home</a></p>`,
        ),
      );
    },
  );

  app.get(
    '/authentication',
    {
      schema: {
        tags: ['documentation'],
        summary: 'The page problem `resolve` links name for authentication: redirects to /auth.md',
        response: { 302: { description: 'to /auth.md', type: 'null' } },
      },
    },
    async (_request, reply) => reply.redirect('/auth.md', 302),
  );
};
