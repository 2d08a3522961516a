import net from 'node:net';
import ipaddr from 'ipaddr.js';
import {
  type ChatConnection,
  closeListenSession,
  type DeliveryKit,
  ListenRefusedError,
  type ListenSession,
  openListenSession,
  renewListenSession,
} from '../processors/alerts/index.ts';
import type {
  Accounts,
  ApiKeyRecord,
  Entitlement,
  Organization,
  Project,
} from '../projections/state/accounts.ts';
import type { IngestTokenRecord, IngestTokens } from '../projections/state/ingest-tokens.ts';

/**
 * Operator actions on accounts. They run against the state store directly, or inside a running
 * service when the CLI reaches it through the admin socket (the embedded store is single-process).
 */
export interface OperatorActions {
  createOrganization(input: { name: string; slug?: string }): Promise<Organization>;
  createProject(input: { organization: string; name: string; plan: string; slug?: string }): Promise<Project>;
  setPlan(input: { project: string; plan: string; alertsPacks?: number }): Promise<Project>;
  listProjects(input: { organization: string }): Promise<Project[]>;
  /** Grants or revokes an entitlement (`archive`); returns the project's entitlements after it. */
  grantEntitlement(input: { project: string; entitlement: string }): Promise<EntitlementChange>;
  revokeEntitlement(input: { project: string; entitlement: string }): Promise<EntitlementChange>;
  /** `expiresIn`: a duration such as `90d` (see `parseExpiresIn`); absent: the key never expires. */
  createKey(input: {
    project: string;
    name?: string;
    expiresIn?: string;
  }): Promise<{ key: string; record: ApiKeyRecord }>;
  revokeKey(input: { keyId: string }): Promise<ApiKeyRecord>;
  listKeys(input: { project: string }): Promise<ApiKeyRecord[]>;
  /** Registers a team-chat workspace by bot token (checked with the platform's `auth.test`). */
  connectChat(input: { project: string; token: string; name?: string }): Promise<ChatConnection>;
  listChatConnections(input: { project: string }): Promise<ChatConnection[]>;
  /** Ingest tokens authenticate `POST /v1/ingest/batches`; the full token is returned once. */
  createIngestToken(input: { name?: string }): Promise<{ token: string; record: IngestTokenRecord }>;
  revokeIngestToken(input: { tokenId: string }): Promise<IngestTokenRecord>;
  listIngestTokens(input: Record<string, never>): Promise<IngestTokenRecord[]>;
  /** A new key signs access tokens from now on; the previous ones stay published for an hour. */
  rotateSigningKeys(input: Record<string, never>): Promise<{ kid: string; retired: string[] }>;
  /**
   * `earshot webhooks listen`: creates or reuses the project's listen connection, pointed at the
   * receiver's loopback `url`, and lets the outbound guard reach it for a lease the command
   * renews. Only in a running service that binds a loopback interface and attempts deliveries
   * itself (api and senders roles in the one process).
   */
  listenWebhooks(input: { project: string; url: string }): Promise<ListenSessionInfo>;
  renewWebhookListen(input: { leaseId: string }): Promise<{ renewed: boolean }>;
  closeWebhookListen(input: { leaseId: string }): Promise<{ closed: boolean }>;
}

export interface ListenSessionInfo extends ListenSession {
  project_id: string;
  /** Where the API answers (`EARSHOT_PUBLIC_URL` or `http://HOST:PORT`). */
  api_url: string;
}

/** What the operator actions know of the running service they are served by. */
export interface ServiceFacts {
  /** `HOST`: the interface the API binds. */
  host: string;
  roles: ReadonlySet<string>;
  apiUrl: string;
}

export interface EntitlementChange {
  project: Project;
  entitlements: Entitlement[];
}

export class OperatorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperatorError';
  }
}

const EXPIRY_UNITS_MS: Record<string, number> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  y: 365 * 86_400_000,
};
const LONGEST_EXPIRY_MS = 10 * EXPIRY_UNITS_MS.y!;

/** `90d` → milliseconds: a whole number of minutes (m), hours (h), days (d), weeks (w) or years (y), up to 10 years. */
export function parseExpiresIn(text: string): number {
  const m = /^(\d{1,6})(m|h|d|w|y)$/.exec(text.trim());
  const ms = m ? Number(m[1]) * EXPIRY_UNITS_MS[m[2]!]! : Number.NaN;
  if (!(ms > 0) || ms > LONGEST_EXPIRY_MS) {
    throw new OperatorError(
      `not a key lifetime: ${JSON.stringify(text)} (use e.g. 30m, 12h, 90d, 8w or 1y; at most 10y)`,
    );
  }
  return ms;
}

/** True for `localhost` and loopback IP addresses (127.0.0.0/8, ::1). */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  const ip = host.replace(/^\[|\]$/g, '');
  if (!net.isIP(ip)) return false;
  const addr = ipaddr.process(ip);
  return addr.range() === 'loopback';
}

export function operatorActions(
  accounts: Accounts,
  delivery?: DeliveryKit,
  ingestTokens?: IngestTokens,
  service?: ServiceFacts,
  signingKeys?: { rotate(): Promise<{ kid: string; retired: string[] }> },
): OperatorActions {
  function tokens(): IngestTokens {
    if (!ingestTokens) throw new OperatorError('ingest tokens are not available here');
    return ingestTokens;
  }
  function chat(): DeliveryKit {
    if (!delivery) throw new OperatorError('team-chat connections are not available here');
    return delivery;
  }
  /** The delivery kit of a service where a local receiver may be reached, or why not. */
  function listening(): DeliveryKit {
    if (!service || !delivery) {
      throw new OperatorError(
        'earshot webhooks listen needs the running service: start it (npm start) and run the command again',
      );
    }
    if (!isLoopbackHost(service.host)) {
      throw new OperatorError(
        `this service binds ${service.host} (HOST), an interface other machines can reach: webhooks to a ` +
          'loopback receiver are allowed only on a service bound to a loopback interface (HOST=127.0.0.1). ' +
          'To deliver to a private network on purpose, list it in EARSHOT_OUTBOUND_ALLOWLIST.',
      );
    }
    const missing = ['api', 'senders'].filter((r) => !service.roles.has(r));
    if (missing.length > 0) {
      throw new OperatorError(
        `this process does not run the ${missing.join(' and ')} role${missing.length > 1 ? 's' : ''}: ` +
          'earshot webhooks listen needs a service that sends webhooks and answers the API in one process ' +
          '(npm start runs every role)',
      );
    }
    return delivery;
  }
  async function org(ref: string) {
    const found = await accounts.organization(ref);
    if (!found) throw new OperatorError(`no organization ${ref}`);
    return found;
  }
  async function project(ref: string) {
    const found = await accounts.project(ref);
    if (!found) throw new OperatorError(`no project ${ref}`);
    return found;
  }
  return {
    createOrganization: (input) => accounts.createOrganization(input),
    async createProject(input) {
      const o = await org(input.organization);
      return accounts.createProject({
        organizationId: o.id,
        name: input.name,
        plan: input.plan,
        slug: input.slug,
      });
    },
    async setPlan(input) {
      return accounts.setPlan((await project(input.project)).id, input.plan, input.alertsPacks);
    },
    async listProjects(input) {
      return accounts.projectsOf((await org(input.organization)).id);
    },
    async grantEntitlement(input) {
      const p = await project(input.project);
      return { project: p, entitlements: await accounts.grantEntitlement(p.id, input.entitlement) };
    },
    async revokeEntitlement(input) {
      const p = await project(input.project);
      return { project: p, entitlements: await accounts.revokeEntitlement(p.id, input.entitlement) };
    },
    async createKey(input) {
      const lifetime = input.expiresIn === undefined ? undefined : parseExpiresIn(input.expiresIn);
      return accounts.createApiKey({
        projectId: (await project(input.project)).id,
        name: input.name,
        ...(lifetime === undefined ? {} : { expiresAt: new Date(Date.now() + lifetime) }),
      });
    },
    revokeKey: (input) => accounts.revokeApiKey(input.keyId),
    async listKeys(input) {
      return accounts.apiKeys((await project(input.project)).id);
    },
    async connectChat(input) {
      const kit = chat();
      const p = await project(input.project);
      const who = await kit.chatApi.identify(input.token);
      if (!who.ok || !who.data) {
        throw new OperatorError(
          `the chat platform at ${kit.chatApi.baseUrl} refused the token: ${who.error}`,
        );
      }
      return kit.chat.create({
        projectId: p.id,
        name: input.name ?? who.data.team ?? 'team chat',
        token: input.token,
        teamId: who.data.team_id,
        teamName: who.data.team,
        botUserId: who.data.user_id,
      });
    },
    async listChatConnections(input) {
      return chat().chat.list((await project(input.project)).id, undefined, 1000);
    },
    async listenWebhooks(input) {
      const kit = listening();
      const p = await project(input.project);
      try {
        const session = await openListenSession(kit, { projectId: p.id, url: input.url });
        return { ...session, project_id: p.id, api_url: service!.apiUrl };
      } catch (err) {
        if (err instanceof ListenRefusedError) throw new OperatorError(err.message);
        throw err;
      }
    },
    async renewWebhookListen(input) {
      return { renewed: renewListenSession(listening(), input.leaseId) };
    },
    async closeWebhookListen(input) {
      return { closed: closeListenSession(listening(), input.leaseId) };
    },
    createIngestToken: (input) => tokens().create({ name: input.name }),
    revokeIngestToken: (input) => tokens().revoke(input.tokenId),
    listIngestTokens: () => tokens().list(),
    rotateSigningKeys: () => {
      if (!signingKeys) throw new OperatorError('the token-signing keys are not available here');
      return signingKeys.rotate();
    },
  };
}
