import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import {
  type AlertApiServices,
  checkDestination,
  sendTestToConnection,
} from '../../processors/alerts/index.ts';
import type { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import type { Accounts } from '../../projections/state/accounts.ts';
import type { LinkSigner } from '../../projections/state/people.ts';
import type { ToolUsage } from '../../projections/state/tool-usage.ts';
import { dashboardPaths } from '../dashboard-paths.ts';
import { html, type SafeHtml } from '../html.ts';
import type { AgentAuth } from '../oauth/agent-auth.ts';
import type { UsageCounter } from '../plugins/usage.ts';
import { ERROR_CODES, ProblemError } from '../problem.ts';
import {
  ATTEMPT_LIMITS,
  type AttemptLimits,
  type ChatOAuthSettings,
  createLink,
  type DashboardContext,
  type EntityHit,
  memberProject,
  type PeopleServices,
} from './context.ts';
import { page, type View } from './layout.ts';
import { AccountMail } from './mails.ts';
import { accountPages } from './pages/account.ts';
import { agentPages } from './pages/agents.ts';
import { alertPages } from './pages/alerts.ts';
import { chatPages } from './pages/chat.ts';
import { deliveryPages } from './pages/deliveries.ts';
import { keyPages } from './pages/keys.ts';
import { notificationEmailPages } from './pages/notification-emails.ts';
import { organizationPages } from './pages/organizations.ts';
import { projectPages } from './pages/projects.ts';
import { webhookPages } from './pages/webhooks.ts';
import { notFound, PageError, Redirect, Visits } from './visit.ts';

/** Where the api role serves the dashboard. */
export const DASHBOARD_PREFIX = '/dashboard';

export interface DashboardOptions {
  services: PeopleServices & {
    accounts: Accounts;
    usageCounter: UsageCounter;
    alerting: AlertApiServices;
    catalog: CatalogReader;
    entitySearch?: (q: string) => Promise<EntityHit[]>;
    agentAuth: AgentAuth;
    toolUsage: ToolUsage;
  };
  /**
   * `{dashboard_url}` (public address of the pages), the API's public URL, and the per-key rate
   * limit that overrides every plan's when set (`RATE_LIMIT_PER_MINUTE`).
   */
  settings: {
    dashboardUrl: string;
    publicUrl: string;
    rateLimitPerMinute?: number;
    chatOAuth?: ChatOAuthSettings;
  };
  /** Keys of the cookie signature and of the CSRF tokens, and the signer of install states (from the secrets key). */
  keys: { cookie: Buffer; csrf: Buffer; chatInstall: LinkSigner };
  limits?: AttemptLimits;
}

const ASSETS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');

function asset(file: string, type: string) {
  const body = fs.readFileSync(path.join(ASSETS_DIR, file));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const [name, ext] = file.split('.');
  return { file: `${name}.${hash}.${ext}`, body, type };
}

/** Headers of every dashboard answer: no framing, no referrer (links carry tokens), scripts only from here. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/**
 * The account dashboard: server-rendered pages under `/dashboard` (no front-end build; app.js
 * only enhances). Pages are typed template functions (html.ts); forms are
 * `application/x-www-form-urlencoded` (parsed only here: the `/v1` API stays JSON-only). The
 * pages are another client of the API's services: keys are minted and revoked by `Accounts`,
 * alerts and connections by the alerting services, usage read from what the API counts.
 */
export const dashboardPlugin: FastifyPluginAsync<DashboardOptions> = async (app, opts) => {
  const { services, settings } = opts;
  const dashboardUrl = settings.dashboardUrl.replace(/\/$/, '');
  const publicBase = new URL(dashboardUrl).pathname.replace(/\/$/, '');
  const mountBase = (app.prefix || DASHBOARD_PREFIX).replace(/\/$/, '');

  await app.register(cookie, { secret: opts.keys.cookie });
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  // Server time of each answer (`Server-Timing: app;dur=<ms>`), from the request's arrival to its
  // answer being ready: what the dashboard bench reads.
  const arrived = new WeakMap<FastifyRequest, bigint>();
  app.addHook('onRequest', async (request) => {
    arrived.set(request, process.hrtime.bigint());
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const start = arrived.get(request);
    if (start !== undefined)
      reply.header('server-timing', `app;dur=${(Number(process.hrtime.bigint() - start) / 1e6).toFixed(1)}`);
    return payload;
  });
  const visits = new Visits({
    sessions: services.sessions,
    csrfKey: opts.keys.csrf,
    path: publicBase || '/',
    mountPath: mountBase,
    secure: dashboardUrl.startsWith('https:'),
  });
  visits.register(app);

  const css = asset('app.css', 'text/css; charset=utf-8');
  const js = asset('app.js', 'text/javascript; charset=utf-8');
  const assets = { css: `${publicBase}/assets/${css.file}`, js: `${publicBase}/assets/${js.file}` };
  for (const a of [css, js]) {
    app.get(`/assets/${a.file}`, { schema: { hide: true } }, async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=31536000, immutable').type(a.type).send(a.body),
    );
  }

  app.addHook('onSend', async (_request, reply, payload) => {
    // A page may narrow or extend one (the consent page lets its form lead on to the client).
    for (const [name, value] of Object.entries(SECURITY_HEADERS))
      if (!reply.hasHeader(name)) reply.header(name, value);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });

  const view = (request: FastifyRequest, csrf?: string): View => {
    const session = request.visit?.session;
    return {
      base: publicBase,
      csrf: csrf ?? (session ? visits.csrfToken(session) : undefined),
      user: request.visit?.user,
      assets,
    };
  };
  const send = (reply: FastifyReply, body: SafeHtml, status = 200) =>
    reply.code(status).type('text/html; charset=utf-8').send(body.value);

  const ctx: DashboardContext = {
    ...services,
    visits,
    delivery: services.alerting.delivery,
    mail: new AccountMail(services.alerting.delivery.mailer, app.log),
    chatOAuth: settings.chatOAuth,
    chatInstallLinks: opts.keys.chatInstall,
    limits: opts.limits ?? ATTEMPT_LIMITS,
    dashboardUrl,
    base: publicBase,
    publicUrl: settings.publicUrl.replace(/\/$/, ''),
    requestsPerMinute: (plan) => settings.rateLimitPerMinute ?? plan.requests_per_minute,
    view,
    send,
    link: createLink(dashboardUrl),
    memberProject: (request, projectId) => memberProject(ctx, request, projectId),
    destination: (url) => checkDestination(services.alerting.delivery.guard, url),
    async testWebhook(projectId, connectionId) {
      const link = createLink(dashboardUrl)(dashboardPaths.webhooks(projectId));
      const sent = await sendTestToConnection(services.alerting.delivery, projectId, connectionId, link);
      if (!sent) throw notFound();
      return sent;
    },
  };

  const errorPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    title: string,
    message: string,
  ) =>
    send(
      reply,
      page(view(request), {
        title,
        body: html`<p>${message}</p><p><a href="${publicBase}/">Back to the overview</a></p>`,
      }),
      status,
    );

  app.setErrorHandler(async (error: FastifyError | Error, request, reply) => {
    if (error instanceof Redirect) return reply.redirect(error.location, 303);
    if (error instanceof PageError) {
      reply.headers(error.headers);
      return errorPage(request, reply, error.status, error.title, error.message);
    }
    if (error instanceof ProblemError) {
      for (const [k, v] of Object.entries(error.options.headers ?? {})) reply.header(k, v);
      return errorPage(request, reply, error.status, ERROR_CODES[error.code].title, error.detail);
    }
    const status = (error as FastifyError).statusCode ?? 500;
    if (status >= 400 && status < 500)
      return errorPage(request, reply, status, 'This request cannot be served', error.message);
    request.log.error({ err: error }, 'dashboard page failed');
    return errorPage(
      request,
      reply,
      500,
      'Something went wrong',
      'It has been logged. Try again in a moment.',
    );
  });
  app.setNotFoundHandler((request, reply) =>
    errorPage(request, reply, 404, 'Page not found', 'There is no such page here.'),
  );

  accountPages(app, ctx);
  organizationPages(app, ctx);
  projectPages(app, ctx);
  keyPages(app, ctx);
  chatPages(app, ctx);
  webhookPages(app, ctx);
  notificationEmailPages(app, ctx);
  alertPages(app, ctx);
  deliveryPages(app, ctx);
  agentPages(app, ctx);

  // Expired sessions are deleted now and then (a visitor's lasts 2 hours).
  const sweep = setInterval(() => {
    services.sessions
      .sweep()
      .catch((err: unknown) => app.log.warn({ err }, 'could not delete expired sessions'));
  }, 15 * 60_000).unref();
  app.addHook('onClose', async () => clearInterval(sweep));
};

/** Registers the dashboard under `/dashboard` of an app. */
export async function registerDashboard(app: FastifyInstance, opts: DashboardOptions): Promise<void> {
  await app.register(dashboardPlugin, { ...opts, prefix: DASHBOARD_PREFIX });
}
