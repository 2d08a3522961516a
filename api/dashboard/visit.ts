import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../../projections/state/people.ts';
import { SESSION_TTL, type Session, type Sessions } from '../../projections/state/sessions.ts';

/**
 * Who is visiting a dashboard page: the session behind the signed cookie, and its person once
 * signed in. The cookie holds only the session's random id, signed (HMAC) so a forged or edited
 * one is dropped before any lookup; it is `HttpOnly`, `SameSite=Lax`, scoped to the dashboard's
 * path, and `Secure` when the dashboard is served over https.
 *
 * CSRF: every state-changing form carries `_csrf`, an HMAC of the session id under a key of its
 * own; a POST without the token of its session is refused (403) before its handler runs. A
 * visitor with a form open has a session without a person; signing in ends it and starts a new
 * one (new id, new token), so a session id planted before sign-in is worthless after it.
 */
export const SESSION_COOKIE = 'earshot_session';

export interface Visit {
  session?: Session;
  user?: User;
}

declare module 'fastify' {
  interface FastifyRequest {
    visit: Visit;
  }
}

/** Answered with a redirect by the dashboard's error handler. */
export class Redirect extends Error {
  constructor(readonly location: string) {
    super(`redirect to ${location}`);
    this.name = 'Redirect';
  }
}

/** Answered with an error page. */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'PageError';
  }
}

/** What a person who is not a member of an organization sees of its pages: nothing. */
export const notFound = () =>
  new PageError(
    404,
    'Page not found',
    'There is no such page here, or it belongs to an organization you are not in.',
  );

export interface VisitSettings {
  sessions: Sessions;
  /** Key of the CSRF tokens (HMAC-SHA256 of the session id). */
  csrfKey: Buffer;
  /** Cookie path: the dashboard's path prefix as people reach it. */
  path: string;
  /** The path prefix the server serves the pages under (`/dashboard`). */
  mountPath: string;
  secure: boolean;
}

export class Visits {
  constructor(private readonly settings: VisitSettings) {}

  csrfToken(session: Session): string {
    return createHmac('sha256', this.settings.csrfKey).update(session.id).digest('base64url');
  }

  private checkCsrf(session: Session | undefined, given: unknown): boolean {
    if (!session || typeof given !== 'string') return false;
    const expected = Buffer.from(this.csrfToken(session));
    const actual = Buffer.from(given);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  private setCookie(reply: FastifyReply, session: Session, maxAgeMs: number): void {
    reply.setCookie(SESSION_COOKIE, session.id, {
      path: this.settings.path,
      httpOnly: true,
      sameSite: 'lax',
      secure: this.settings.secure,
      signed: true,
      maxAge: Math.floor(maxAgeMs / 1000),
    });
  }

  /** Reads the visit of each request; refuses POSTs without their session's CSRF token. */
  register(app: FastifyInstance): void {
    app.decorateRequest('visit', null as unknown as Visit);
    app.addHook('onRequest', async (request) => {
      request.visit = {};
      const cookie = request.cookies[SESSION_COOKIE];
      if (!cookie) return;
      const unsigned = request.unsignCookie(cookie);
      if (!unsigned.valid || !unsigned.value) return;
      const session = await this.settings.sessions.find(unsigned.value);
      if (session) request.visit = { session, user: session.user };
    });
    app.addHook('preHandler', async (request) => {
      if (request.method !== 'POST') return;
      const given = (request.body as Record<string, unknown> | undefined)?._csrf;
      if (!this.checkCsrf(request.visit.session, given)) {
        throw new PageError(
          403,
          'This form has expired',
          'The form was not sent with its security token (it was open too long, or you signed in or out meanwhile). Go back, reload the page and try again.',
        );
      }
    });
  }

  /** The CSRF token of the visit's session, starting a visitor's session when there is none. */
  async formToken(request: FastifyRequest, reply: FastifyReply): Promise<string> {
    let session = request.visit.session;
    if (!session) {
      session = await this.settings.sessions.start(null);
      request.visit = { session };
      this.setCookie(reply, session, SESSION_TTL.visitorMs);
    }
    return this.csrfToken(session);
  }

  /** Signs a person in: the visit's session ends and a new one starts (new cookie, new token). */
  async signIn(request: FastifyRequest, reply: FastifyReply, user: User): Promise<Session> {
    if (request.visit.session) await this.settings.sessions.end(request.visit.session.id);
    const session = { ...(await this.settings.sessions.start(user.id)), user };
    request.visit = { session, user };
    this.setCookie(reply, session, SESSION_TTL.absoluteMs);
    return session;
  }

  async signOut(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (request.visit.session) await this.settings.sessions.end(request.visit.session.id);
    request.visit = {};
    reply.clearCookie(SESSION_COOKIE, { path: this.settings.path });
  }

  /** The signed-in person, or a redirect to sign in (and back here afterwards). */
  requireUser(request: FastifyRequest): User {
    const user = request.visit.user;
    if (user) return user;
    const base = this.settings.path === '/' ? '' : this.settings.path;
    const here = request.url.startsWith(this.settings.mountPath)
      ? base + request.url.slice(this.settings.mountPath.length)
      : `${base}/`;
    const next = request.method === 'GET' ? here : `${base}/`;
    throw new Redirect(`${base}/sign-in?next=${encodeURIComponent(next)}`);
  }
}

/** A `next` target that stays inside the dashboard (no open redirect), else the overview. */
export function safeNext(next: unknown, base: string): string {
  if (
    typeof next !== 'string' ||
    !next.startsWith(`${base}/`) ||
    next.startsWith('//') ||
    /[\\\s]/.test(next)
  )
    return `${base}/`;
  return next;
}
