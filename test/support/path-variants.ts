import http from 'node:http';

/** `/v1/a/b` → every character percent-encoded, with upper- or lower-case hex digits. */
function encodeAll(path: string, lower = false): string {
  return path
    .split('/')
    .map((segment) =>
      [...segment]
        .map((c) => {
          const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
          return `%${lower ? hex : hex.toUpperCase()}`;
        })
        .join(''),
    )
    .join('/');
}

/**
 * Spellings of a `/v1/…` path that a router may decode, normalise or refuse: percent-encoded
 * characters (`/%761/`, `/v%31/`, `/%76%31/`, every character), other case, doubled and encoded
 * slashes, dot segments, trailing dots and slashes, `;` parameters and look-alike characters.
 * Each either reaches the route the path names or no route at all; none may skip its checks.
 */
export function pathVariants(path: string): string[] {
  if (!path.startsWith('/v1/')) throw new Error(`not a /v1 path: ${path}`);
  const rest = path.slice(3); // '/podcasts/…'
  const segments = rest.split('/').filter(Boolean);
  const variants = [
    `/%761${rest}`,
    `/v%31${rest}`,
    `/%76%31${rest}`,
    `/%56%31${rest}`,
    `/V1${rest}`,
    `//v1${rest}`,
    `/v1/${rest}`,
    `/v1.${rest}`,
    `/v1%2e${rest}`,
    `/./v1${rest}`,
    `/%2e/v1${rest}`,
    `/x/../v1${rest}`,
    `/x/%2e%2e/v1${rest}`,
    `/%2fv1${rest}`,
    `/%2Fv1${rest}`,
    `/v1%2f${rest.slice(1)}`,
    `/v1%2F${rest.slice(1)}`,
    `/v1;x=1${rest}`,
    `/%EF%BD%961${rest}`, // fullwidth v
    `${path}/`,
    `${path}.`,
    `${path}%2e`,
    `${path}/.`,
    `${path};x=1`,
    `${path}?`,
    `${path}#x`,
    encodeAll(path),
    encodeAll(path, true),
    // One character of each later segment encoded (these name the route exactly).
    ...segments.map((s, i) => {
      const copy = [...segments];
      copy[i] = `%${s.charCodeAt(0).toString(16).toUpperCase()}${s.slice(1)}`;
      return `/v1/${copy.join('/')}`;
    }),
  ];
  return [...new Set(variants)];
}

export interface Answer {
  status: number;
  body: string;
}

/**
 * What a request without a credential may get: the authentication layer's 401 (naming the
 * missing `X-API-Key`) on a route that needs a key, or a problem saying no route matched
 * (404 `No route …`, 405). Anything else means the request reached a handler unauthenticated.
 */
export function refusedOrUnrouted(answer: Answer): boolean {
  let doc: { error_code?: string; detail?: string; errors?: { location?: string }[] } = {};
  try {
    doc = JSON.parse(answer.body) as typeof doc;
  } catch {
    return false;
  }
  if (answer.status === 401) {
    return doc.error_code === 'authentication_required' && doc.errors?.[0]?.location === 'header.x-api-key';
  }
  if (answer.status === 404)
    return doc.error_code === 'route_not_found' && /^No route /.test(doc.detail ?? '');
  return answer.status === 405 && doc.error_code === 'method_not_allowed';
}

/**
 * A GET over real HTTP with the path sent byte for byte (no client-side normalisation). An event
 * stream (the live episode stream never ends by itself) answers with its status and first bytes,
 * and the connection is closed.
 */
export function rawGet(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method: 'GET', path, headers }, (res) => {
      if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        res.once('data', (c: Buffer) => {
          resolve({ status: res.statusCode ?? 0, body: c.toString() });
          req.destroy();
        });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
