import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';

export interface Page {
  status: number;
  body: string;
  headers: OutgoingHttpHeaders;
  /** `location` of a redirect. */
  location?: string;
}

interface Sent {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

type Transport = (req: Sent) => Promise<{ status: number; headers: OutgoingHttpHeaders; body: string }>;

/** Requests through `inject` (an app in this process). */
function injected(app: FastifyInstance): Transport {
  return async (req) => {
    const res = await app.inject({
      method: req.method,
      url: req.url,
      headers: req.headers,
      payload: req.body,
    });
    return { status: res.statusCode, headers: res.headers, body: res.body };
  };
}

/** Requests over HTTP to `origin` (a service in another process); redirects are not followed by fetch. */
function overHttp(origin: string): Transport {
  return async (req) => {
    const res = await fetch(`${origin}${req.url}`, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      redirect: 'manual',
    });
    const headers: OutgoingHttpHeaders = {};
    res.headers.forEach((value, name) => {
      headers[name] = value;
    });
    headers['set-cookie'] = res.headers.getSetCookie();
    return { status: res.status, headers, body: await res.text() };
  };
}

/**
 * A browser-like client of the dashboard, over `inject` (an app) or HTTP (an origin): keeps the
 * cookies it is given, sends the CSRF token of the last form it read with each form (unless told
 * otherwise), and follows redirects when asked.
 */
export class PageClient {
  readonly cookies = new Map<string, string>();
  last?: Page;
  /** The form token of the last page that had a form. */
  csrf?: string;
  private readonly send: Transport;

  constructor(
    target: FastifyInstance | string,
    readonly base = '/dashboard',
  ) {
    this.send = typeof target === 'string' ? overHttp(target) : injected(target);
  }

  private cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }

  private keep(headers: OutgoingHttpHeaders): void {
    const set = headers['set-cookie'];
    for (const c of set === undefined ? [] : Array.isArray(set) ? set : [set]) {
      const [pair] = String(c).split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(String(c))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private url(path: string): string {
    return path.startsWith(this.base) ? path : `${this.base}${path}`;
  }

  private async request(req: Sent, follow: boolean | undefined): Promise<Page> {
    const res = await this.send(req);
    this.keep(res.headers);
    const page: Page = { ...res, location: res.headers.location as string | undefined };
    if (follow && page.location && res.status >= 300 && res.status < 400)
      return this.get(page.location, { follow });
    this.last = page;
    this.csrf = csrfOf(page.body) ?? this.csrf;
    return page;
  }

  get(path: string, opts: { follow?: boolean } = {}): Promise<Page> {
    return this.request({ method: 'GET', url: this.url(path), headers: this.cookieHeader() }, opts.follow);
  }

  /** Posts a form; `_csrf` is the token of the last form read unless `csrf` says otherwise (`null`: none). */
  post(
    path: string,
    fields: Record<string, string | string[]>,
    opts: { csrf?: string | null; follow?: boolean } = {},
  ): Promise<Page> {
    const body = new URLSearchParams();
    const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (csrf !== null && csrf !== undefined) body.append('_csrf', csrf);
    for (const [k, v] of Object.entries(fields))
      for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    return this.request(
      {
        method: 'POST',
        url: this.url(path),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.cookieHeader() },
        body: body.toString(),
      },
      opts.follow,
    );
  }
}

export function csrfOf(body: string): string | undefined {
  return /name="_csrf" value="([^"]*)"/.exec(body)?.[1];
}
