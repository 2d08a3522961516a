import { randomUUID } from 'node:crypto';
import dns, { type LookupAddress } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';

/**
 * The one gate every outbound request passes (webhooks, the chat Web API, feed fetches):
 * a destination must be `https` and resolve only to public unicast addresses — private,
 * loopback, link-local, carrier-grade NAT, unique-local, unspecified, multicast, reserved and
 * IPv4 addresses embedded in IPv6 (mapped, NAT64, 6to4) are refused — unless the address lies
 * inside an allowlisted CIDR (`EARSHOT_OUTBOUND_ALLOWLIST`, empty by default) or is a loopback
 * address and port leased for a while (`lease`: a local receiver of `earshot webhooks listen`).
 * Only allowlisted and leased addresses may be reached over plain `http`, unless the guard is made with `plainHttp` (feeds,
 * which carry no secrets and are often served over http).
 *
 * The check runs twice: before a request (clear errors at create time, IP literals) and again
 * inside the connection's DNS lookup, so the address connected to is the address checked
 * (a DNS answer that changes between the two — rebinding — cannot slip through).
 * The guard follows no redirects itself; `OutboundHttp` (outbound-http.ts) decides per use
 * (webhooks: never; feeds: a bounded number, each hop checked again).
 */
export class OutboundRefusedError extends Error {
  readonly code = 'EARSHOT_OUTBOUND_REFUSED';
  constructor(
    message: string,
    /** The address range that was refused (`loopback`, `private`, …), when that was the reason. */
    readonly range?: string,
  ) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

/** The host name did not resolve (transient at delivery time; refused at create time). */
export class OutboundResolveError extends Error {
  readonly code = 'EARSHOT_OUTBOUND_UNRESOLVED';
  constructor(
    readonly host: string,
    cause: unknown,
  ) {
    super(`${host} does not resolve (${(cause as NodeJS.ErrnoException)?.code ?? String(cause)})`);
    this.name = 'OutboundResolveError';
  }
}

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses a comma- or space-separated CIDR list; a bare address means that one address. */
export function parseAllowlist(text: string): Cidr[] {
  const out: Cidr[] = [];
  for (const part of text.split(/[\s,]+/).filter(Boolean)) {
    if (part.includes('/')) out.push(ipaddr.parseCIDR(part));
    else {
      const addr = ipaddr.parse(part);
      out.push([addr, addr.kind() === 'ipv4' ? 32 : 128]);
    }
  }
  return out;
}

/** Throws a readable message when an allowlist is malformed (for configuration validation). */
export function allowlistProblem(text: string): string | undefined {
  try {
    parseAllowlist(text);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export type Resolver = (host: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

export interface CheckedUrl {
  url: URL;
  /** Every address the host resolved to, all of them permitted. */
  addresses: string[];
}

export interface OutboundGuardOptions {
  /** CIDRs that may be reached although not public, and over plain http. */
  allowlist?: string;
  resolver?: Resolver;
  /** Plain http to any permitted address (default: only to allowlisted ones). */
  plainHttp?: boolean;
  /** The clock leases expire by (tests). */
  now?: () => number;
}

/** A loopback address and port that may be reached until `until` (see `OutboundGuard.lease`). */
export interface LoopbackLease {
  id: string;
  address: string;
  port: number;
  until: number;
}

export class OutboundGuard {
  private readonly allow: Cidr[];
  private readonly resolver: Resolver;
  private readonly plainHttp: boolean;
  private readonly now: () => number;
  private readonly leases = new Map<string, LoopbackLease>();

  constructor(options: OutboundGuardOptions = {}) {
    this.allow = parseAllowlist(options.allowlist ?? '');
    this.resolver = options.resolver ?? systemResolver;
    this.plainHttp = options.plainHttp ?? false;
    this.now = options.now ?? Date.now;
  }

  /** Whether an address is inside the allowlist. */
  allowlisted(address: string): boolean {
    const addr = normalise(ipaddr.parse(address));
    return this.allow.some(([range, bits]) => range.kind() === addr.kind() && addr.match(range, bits));
  }

  /**
   * Lets one loopback address and port be reached (also over plain http) for `ttlMs`: a local
   * receiver (`earshot webhooks listen`) while it runs. Only an IP literal in a URL, with that
   * port, is let through — a name that resolves to loopback, or another port, is refused as
   * before. Renew before it ends; a lease not renewed lapses by itself.
   */
  lease(address: string, port: number, ttlMs: number): LoopbackLease {
    const parsed = ipaddr.isValid(address) ? normalise(ipaddr.parse(address)) : undefined;
    if (parsed?.range() !== 'loopback')
      throw new Error(`only a loopback address can be leased, not ${address}`);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`not a port: ${port}`);
    const lease = { id: randomUUID(), address: parsed.toString(), port, until: this.now() + ttlMs };
    this.leases.set(lease.id, lease);
    return { ...lease };
  }

  /** Extends a lease by `ttlMs` from now; undefined when it has lapsed or was released. */
  renew(id: string, ttlMs: number): LoopbackLease | undefined {
    const lease = this.leases.get(id);
    if (!lease || lease.until <= this.now()) {
      this.leases.delete(id);
      return undefined;
    }
    lease.until = this.now() + ttlMs;
    return { ...lease };
  }

  /** Ends a lease at once. */
  release(id: string): boolean {
    return this.leases.delete(id);
  }

  /** Whether a live lease lets this address and port through. */
  leased(address: string, port: number): boolean {
    if (this.leases.size === 0 || !ipaddr.isValid(address)) return false;
    const addr = normalise(ipaddr.parse(address)).toString();
    const now = this.now();
    for (const [id, lease] of this.leases) {
      if (lease.until <= now) this.leases.delete(id);
      else if (lease.address === addr && lease.port === port) return true;
    }
    return false;
  }

  /** Why an address may not be reached, or undefined when it may. */
  refusal(address: string): string | undefined {
    return this.refusalOf(address)?.why;
  }

  private refusalOf(address: string): { why: string; range?: string } | undefined {
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      parsed = ipaddr.parse(address);
    } catch {
      return { why: `${address} is not an IP address` };
    }
    if (this.allowlisted(address)) return undefined;
    const addr = normalise(parsed);
    const range = addr.range();
    if (range === 'unicast') return undefined;
    return { why: `${address} is a ${RANGE_NAMES[range] ?? `${range} (non-public)`} address`, range };
  }

  /**
   * Parses and checks a URL: its canonical form (see `canonicalUrl`), every resolved address
   * permitted, plain http only to allowlisted addresses. The returned `url` is the one to use
   * and store. Throws OutboundRefusedError or OutboundResolveError.
   */
  async check(rawUrl: string): Promise<CheckedUrl> {
    const url = canonicalUrl(rawUrl);
    const host = hostOf(url);
    let addresses: string[];
    if (net.isIP(host)) {
      if (this.leased(host, portOf(url))) return { url, addresses: [host] };
      addresses = [host];
    } else {
      try {
        addresses = (await this.resolver(host)).map((a) => a.address);
      } catch (err) {
        throw new OutboundResolveError(host, err);
      }
      if (addresses.length === 0) throw new OutboundResolveError(host, 'no addresses');
    }
    for (const address of addresses) {
      const refused = this.refusalOf(address);
      if (refused) {
        throw new OutboundRefusedError(
          `resolves to ${refused.why}; only public addresses can be reached`,
          refused.range,
        );
      }
    }
    if (url.protocol === 'http:' && !this.plainHttp && !addresses.every((a) => this.allowlisted(a))) {
      throw new OutboundRefusedError('must use https');
    }
    return { url, addresses };
  }

  /** A `net` lookup function that resolves, then refuses any non-permitted answer. */
  lookup(requireAllowlisted: boolean): net.LookupFunction {
    return ((hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
      this.resolver(hostname).then(
        (answers) => {
          const family = options.family === 4 || options.family === 6 ? options.family : undefined;
          const wanted = family ? answers.filter((a) => a.family === family) : answers;
          for (const a of answers) {
            const why = this.refusal(a.address);
            if (why) return callback(new OutboundRefusedError(`${hostname} resolves to ${why}`), '', 0);
            if (requireAllowlisted && !this.allowlisted(a.address)) {
              return callback(new OutboundRefusedError(`${hostname}: plain http needs https`), '', 0);
            }
          }
          if (wanted.length === 0) {
            const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
            return callback(err, '', 0);
          }
          if (options.all) return (callback as unknown as LookupAllCallback)(null, wanted);
          return callback(null, wanted[0]!.address, wanted[0]!.family);
        },
        (err: unknown) => callback(err as NodeJS.ErrnoException, '', 0),
      );
    }) as net.LookupFunction;
  }

  /** An undici Agent whose connections resolve through the guarded lookup. */
  agent(
    options: { connections?: number; connectTimeoutMs?: number; keepAliveTimeoutMs?: number } = {},
  ): Agent {
    const timeout = options.connectTimeoutMs ?? 10_000;
    const https = buildConnector({ timeout, lookup: this.lookup(false) } as buildConnector.BuildOptions);
    const http = buildConnector({
      timeout,
      lookup: this.lookup(!this.plainHttp),
    } as buildConnector.BuildOptions);
    return new Agent({
      connections: options.connections ?? 64,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
      connect: (opts, callback) => {
        // An IP literal never reaches `lookup`: check it here.
        const host = opts.hostname.replace(/^\[|\]$/g, '');
        const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
        if (net.isIP(host) && !this.leased(host, port)) {
          const why = this.refusal(host);
          if (why) return callback(new OutboundRefusedError(`refused: ${why}`), null);
          if (opts.protocol === 'http:' && !this.plainHttp && !this.allowlisted(host)) {
            return callback(new OutboundRefusedError('plain http needs https'), null);
          }
        }
        return (opts.protocol === 'https:' ? https : http)(opts, callback);
      },
    });
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string, family: number) => void;
type LookupAllCallback = (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;

const RANGE_NAMES: Record<string, string> = {
  private: 'private',
  loopback: 'loopback',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local (private)',
  carrierGradeNat: 'carrier-grade NAT (private)',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'broadcast',
  reserved: 'reserved',
  benchmarking: 'benchmarking (reserved)',
};

/** IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry. */
function normalise(addr: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (addr as ipaddr.IPv6).toIPv4Address();
  }
  return addr;
}

/**
 * The one reading of a destination URL: the WHATWG URL parser's (the parser undici and every
 * browser use), whose serialisation (`href`) is what is stored and sent. Refused, because
 * another parser could read another host from the same text or because nothing can listen
 * there:
 * - a scheme other than http/https;
 * - userinfo of any form, including an empty `:@` or `@` that the serialisation would drop, and
 *   an `@` after a backslash (`https://a.example\@b.example/`: WHATWG reads host `a.example`,
 *   lenient RFC 3986 parsers read userinfo `a.example\` and host `b.example`);
 * - port 0, and URLs without a host.
 */
export function canonicalUrl(raw: string): URL {
  // The parser drops ASCII tabs and newlines anywhere: look at the text it reads.
  const text = raw.replace(/[\t\n\r]/g, '');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OutboundRefusedError('is not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new OutboundRefusedError(`must use https (got ${url.protocol.replace(/:$/, '')})`);
  }
  if (url.username || url.password || rawAuthority(text).includes('@')) {
    throw new OutboundRefusedError('must not contain userinfo (credentials before an @)');
  }
  if (url.port === '0') throw new OutboundRefusedError('must not use port 0');
  if (!hostOf(url)) throw new OutboundRefusedError('has no host');
  return url;
}

/**
 * The authority as the widest reading sees it: after the scheme and any slashes or backslashes,
 * up to the first `/`, `?` or `#` (a backslash does not end it, as it does for WHATWG).
 */
function rawAuthority(text: string): string {
  const rest = text.slice(text.indexOf(':') + 1);
  return /^[/\\]*([^/?#]*)/.exec(rest)?.[1] ?? '';
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}
