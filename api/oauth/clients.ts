import type { OutboundHttp } from '../../processors/alerts/index.ts';
import type { ClientMetadata, OAuthGrants } from '../../projections/state/oauth-grants.ts';

/** An OAuth error answer (RFC 6749 §5.2, RFC 7591 §3.2.2): `error` and a sentence for people. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

export interface ResolvedClient {
  id: string;
  name: string;
  redirectUris: string[];
  /** Registered here, or described by a metadata document at its id. */
  kind: 'registered' | 'metadata_document';
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const GRANT_TYPES = ['authorization_code', 'refresh_token'];

/** Why a redirect URI is refused, or undefined: https, plain http to loopback, or a private-use scheme. */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || uri.length === 0 || uri.length > 2000)
    return 'must be a URL of at most 2,000 characters';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.hash) return 'must not have a fragment';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:')
    return LOOPBACK_HOSTS.has(url.hostname)
      ? undefined
      : 'must be https (plain http only to a loopback address)';
  // Native apps: a private-use scheme in reverse-domain form (RFC 8252 §7.1).
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol)) return undefined;
  return 'must be https, http to a loopback address, or a private-use scheme such as com.example.app:/callback';
}

/**
 * The metadata of a registration request (RFC 7591), checked: public clients only
 * (`token_endpoint_auth_method` `none`: registering issues no credential), the authorization
 * code and refresh token grants only, response type `code`.
 */
export function registrationMetadata(body: unknown): ClientMetadata {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new OAuthError('invalid_client_metadata', 'The body must be a JSON object of client metadata.');
  const b = body as Record<string, unknown>;
  const uris = b.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10)
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must list 1 to 10 redirect URIs.');
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem)
      throw new OAuthError('invalid_redirect_uri', `redirect_uris: ${String(uri).slice(0, 200)} ${problem}.`);
  }
  const method = b.token_endpoint_auth_method ?? 'none';
  if (method !== 'none')
    throw new OAuthError(
      'invalid_client_metadata',
      'Only public clients are registered (token_endpoint_auth_method "none"): registration issues no credential.',
    );
  const grantTypes = b.grant_types ?? GRANT_TYPES;
  if (!Array.isArray(grantTypes) || grantTypes.some((g) => !GRANT_TYPES.includes(g as string)))
    throw new OAuthError(
      'invalid_client_metadata',
      'grant_types may hold only "authorization_code" and "refresh_token" (the device grant, client credentials and assertions are not supported).',
    );
  const responseTypes = b.response_types ?? ['code'];
  if (!Array.isArray(responseTypes) || responseTypes.some((r) => r !== 'code'))
    throw new OAuthError('invalid_client_metadata', 'response_types may hold only "code".');
  const name = b.client_name ?? 'Unnamed agent';
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 200)
    throw new OAuthError('invalid_client_metadata', 'client_name must be 1 to 200 characters.');
  const optional = (field: string, max: number) => {
    const v = b[field];
    if (v === undefined) return {};
    if (typeof v !== 'string' || v.length > max)
      throw new OAuthError(
        'invalid_client_metadata',
        `${field} must be a string of at most ${max} characters.`,
      );
    return { [field]: v };
  };
  return {
    client_name: name.trim(),
    redirect_uris: uris as string[],
    grant_types: grantTypes as string[],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...optional('client_uri', 2000),
    ...optional('logo_uri', 2000),
    ...optional('software_id', 200),
    ...optional('software_version', 200),
  };
}

const DOCUMENT_TTL_MS = 10 * 60_000;
const DOCUMENT_MAX_BYTES = 64 * 1024;

/**
 * Clients: registered ones from the state store; an https URL as `client_id` is a client-ID
 * metadata document, fetched through the outbound guard (public addresses only, no redirects,
 * 5 seconds, 64 KiB) and cached for 10 minutes. The document must name itself as `client_id`.
 */
export class Clients {
  private readonly documents = new Map<string, { at: number; client: ResolvedClient }>();

  constructor(
    private readonly grants: OAuthGrants,
    private readonly http: OutboundHttp,
    private readonly now: () => number = Date.now,
  ) {}

  async resolve(clientId: string): Promise<ResolvedClient> {
    if (clientId.startsWith('https://')) return this.document(clientId);
    const metadata = clientId.length <= 200 ? await this.grants.client(clientId) : undefined;
    if (!metadata) throw new OAuthError('invalid_client', 'The client is not registered here.', 401);
    return {
      id: clientId,
      name: metadata.client_name,
      redirectUris: metadata.redirect_uris,
      kind: 'registered',
    };
  }

  private async document(url: string): Promise<ResolvedClient> {
    const hit = this.documents.get(url);
    if (hit && this.now() - hit.at < DOCUMENT_TTL_MS) return hit.client;
    if (url.length > 2000) throw new OAuthError('invalid_client', 'The client ID URL is too long.', 401);
    const res = await this.http.get({
      url,
      headers: { accept: 'application/json' },
      timeoutMs: 5000,
      maxRedirects: 0,
      maxBodyBytes: DOCUMENT_MAX_BYTES,
    });
    if (res.status !== 200 || !res.body)
      throw new OAuthError(
        'invalid_client',
        `The client ID metadata document could not be fetched (${res.refused ? 'address refused' : (res.error ?? `HTTP ${res.status}`)}).`,
        401,
      );
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new OAuthError('invalid_client', 'The client ID metadata document is not JSON.', 401);
    }
    if (doc?.client_id !== url)
      throw new OAuthError(
        'invalid_client',
        'The metadata document does not name its own URL as client_id.',
        401,
      );
    let metadata: ClientMetadata;
    try {
      metadata = registrationMetadata(doc);
    } catch (err) {
      throw new OAuthError(
        'invalid_client',
        `The metadata document is not usable: ${(err as Error).message}`,
        401,
      );
    }
    const client: ResolvedClient = {
      id: url,
      name: metadata.client_name,
      redirectUris: metadata.redirect_uris,
      kind: 'metadata_document',
    };
    if (this.documents.size > 1000) this.documents.clear();
    this.documents.set(url, { at: this.now(), client });
    return client;
  }
}
