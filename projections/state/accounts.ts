import { createHash, randomBytes } from 'node:crypto';
import { slug } from '../../schemas/text-folding.ts';
import { type Queryable, type StateStore, sqlState, UNIQUE_VIOLATION } from './state-store.ts';

export interface Plan {
  code: string;
  name: string;
  includes_alerts: boolean;
  active_alerts_included: number;
  alerts_per_pack: number;
  premium_endpoints: boolean;
  requests_per_minute: number;
}

export interface Organization {
  id: string;
  slug: string;
  name: string;
  created_at: Date;
}

export interface Project {
  id: string;
  organization_id: string;
  slug: string;
  name: string;
  plan_code: string;
  alerts_packs: number;
  created_at: Date;
}

export interface ApiKeyRecord {
  id: string;
  project_id: string;
  name: string;
  display_prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  /** When the key stops authenticating; null: never. */
  expires_at: Date | null;
}

/**
 * What an operator grants a project beyond its plan, by arrangement
 * (`earshot projects grant <entitlement> --project P`): `archive` opens the archive replay and the
 * bulk download.
 */
export const ENTITLEMENTS = ['archive'] as const;
export type Entitlement = (typeof ENTITLEMENTS)[number];

/** Who a request acts as once its API key is verified. */
export interface Principal {
  /** The API key; for an OAuth grant (agent-tool server only), the grant's id. */
  keyId: string;
  /** Set when the caller is an agent acting under an OAuth grant (not an API key). */
  grantId?: string;
  project: Project;
  plan: Plan;
  /** The project's entitlements (read with the key: a grant or revoke shows within the key cache's time). */
  entitlements: Entitlement[];
  /** When the key stops authenticating (null: never); checked on every request. */
  expiresAt: Date | null;
}

/** Whether a verified key has expired at `now`. */
export function isExpired(principal: Principal, now = Date.now()): boolean {
  return principal.expiresAt !== null && principal.expiresAt.getTime() <= now;
}

const KEY_COLUMNS = 'id, project_id, name, display_prefix, created_at, last_used_at, revoked_at, expires_at';

export const API_KEY_PREFIX = 'esk_';
export const KEY_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

export function randomString(alphabet: string, length: number): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; out.length < length && i < bytes.length; i++) {
    const b = bytes[i]!;
    // Rejection sampling keeps every character equally likely.
    if (b < 256 - (256 % alphabet.length)) out += alphabet[b % alphabet.length];
  }
  return out.length === length ? out : randomString(alphabet, length);
}

export function newId(prefix: string): string {
  return `${prefix}_${randomString(ID_ALPHABET, 16)}`;
}

/** The non-secret start of a key (`esk_` + 6 characters) it is listed and told apart by. */
export function displayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 6);
}

export function newApiKey(): string {
  return API_KEY_PREFIX + randomString(KEY_ALPHABET, 40);
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The slug of an organization or project name: at most 60 characters, `unnamed` when none is left. */
export function slugify(text: string): string {
  return slug(text).slice(0, 60) || 'unnamed';
}

function checkEntitlement(name: string): Entitlement {
  if (!(ENTITLEMENTS as readonly string[]).includes(name))
    throw new AccountError(
      'invalid',
      `unknown entitlement ${name}; entitlements: ${ENTITLEMENTS.join(', ')}`,
    );
  return name as Entitlement;
}

export class AccountError extends Error {
  constructor(
    readonly code: 'not_found' | 'conflict' | 'invalid',
    message: string,
  ) {
    super(message);
    this.name = 'AccountError';
  }
}

/**
 * Organizations, projects, plans and API keys in the state store. Revocations are announced to
 * `onRevoked` listeners (the API's key cache drops the key at once).
 */
export class Accounts {
  private readonly revokedListeners: ((keyId: string) => void)[] = [];

  constructor(private readonly db: StateStore) {}

  /** Calls `listener` with the id of every key this process revokes; returns how to stop. */
  onRevoked(listener: (keyId: string) => void): () => void {
    this.revokedListeners.push(listener);
    return () => {
      const i = this.revokedListeners.indexOf(listener);
      if (i >= 0) this.revokedListeners.splice(i, 1);
    };
  }

  async plans(): Promise<Plan[]> {
    return this.db.query<Plan>('SELECT * FROM plans ORDER BY sort_order');
  }

  async plan(code: string, db: Queryable = this.db): Promise<Plan> {
    const [plan] = await db.query<Plan>('SELECT * FROM plans WHERE code = $1', [code]);
    if (!plan)
      throw new AccountError(
        'invalid',
        `unknown plan ${code}; plans are starter, growth, team, business, enterprise`,
      );
    return plan;
  }

  async createOrganization(input: { name: string; slug?: string; id?: string }): Promise<Organization> {
    const [org] = await this.db.query<Organization>(
      'INSERT INTO organizations (id, slug, name) VALUES ($1, $2, $3) RETURNING *',
      [input.id ?? newId('org'), input.slug ?? slugify(input.name), input.name],
    );
    return org!;
  }

  async organization(idOrSlug: string): Promise<Organization | undefined> {
    const [org] = await this.db.query<Organization>(
      'SELECT * FROM organizations WHERE id = $1 OR slug = $1',
      [idOrSlug],
    );
    return org;
  }

  async createProject(input: {
    organizationId: string;
    name: string;
    plan: string;
    slug?: string;
    id?: string;
  }): Promise<Project> {
    await this.plan(input.plan);
    const [project] = await this.db.query<Project>(
      `INSERT INTO projects (id, organization_id, slug, name, plan_code) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
      [
        input.id ?? newId('proj'),
        input.organizationId,
        input.slug ?? slugify(input.name),
        input.name,
        input.plan,
      ],
    );
    return project!;
  }

  async project(idOrSlug: string): Promise<Project | undefined> {
    const [project] = await this.db.query<Project>(
      'SELECT * FROM projects WHERE id = $1 OR slug = $1 ORDER BY id LIMIT 1',
      [idOrSlug],
    );
    return project;
  }

  async projectsOf(organizationId: string, after?: string, limit = 100): Promise<Project[]> {
    return this.db.query<Project>(
      // '' sorts before every id: one index range, whether or not there is a cursor
      'SELECT * FROM projects WHERE organization_id = $1 AND id > $2 ORDER BY id LIMIT $3',
      [organizationId, after ?? '', limit],
    );
  }

  async renameProject(projectId: string, name: string): Promise<Project> {
    const [project] = await this.db.query<Project>(
      'UPDATE projects SET name = $2 WHERE id = $1 RETURNING *',
      [projectId, name],
    );
    if (!project) throw new AccountError('not_found', `no project ${projectId}`);
    return project;
  }

  async setPlan(projectId: string, plan: string, alertsPacks?: number): Promise<Project> {
    await this.plan(plan);
    const [project] = await this.db.query<Project>(
      'UPDATE projects SET plan_code = $2, alerts_packs = COALESCE($3, alerts_packs) WHERE id = $1 RETURNING *',
      [projectId, plan, alertsPacks ?? null],
    );
    if (!project) throw new AccountError('not_found', `no project ${projectId}`);
    return project;
  }

  /**
   * Mints a key for a project, valid until `expiresAt` when given. The returned `key` is the only
   * time the full key exists.
   */
  async createApiKey(input: {
    projectId: string;
    name?: string;
    key?: string;
    expiresAt?: Date;
  }): Promise<{ key: string; record: ApiKeyRecord }> {
    const project = await this.project(input.projectId);
    if (!project) throw new AccountError('not_found', `no project ${input.projectId}`);
    const key = input.key ?? newApiKey();
    if (!key.startsWith(API_KEY_PREFIX) || key.length < API_KEY_PREFIX.length + 24) {
      throw new AccountError(
        'invalid',
        `an API key starts with ${API_KEY_PREFIX} and has at least 24 more characters`,
      );
    }
    if (input.expiresAt && Number.isNaN(input.expiresAt.getTime())) {
      throw new AccountError('invalid', 'the expiry of an API key must be a valid date');
    }
    const [record] = await this.db.query<ApiKeyRecord>(
      `INSERT INTO api_keys (id, project_id, name, display_prefix, key_sha256, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${KEY_COLUMNS}`,
      [
        newId('key'),
        project.id,
        input.name ?? 'default',
        displayPrefix(key),
        sha256(key),
        input.expiresAt ?? null,
      ],
    );
    return { key, record: record! };
  }

  async apiKeys(projectId: string): Promise<ApiKeyRecord[]> {
    return this.db.query<ApiKeyRecord>(
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE project_id = $1 ORDER BY created_at, id`,
      [projectId],
    );
  }

  /** Revokes a key by id; revoking twice is harmless. */
  async revokeApiKey(keyId: string): Promise<ApiKeyRecord> {
    const [record] = await this.db.query<ApiKeyRecord>(
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
      [keyId],
    );
    if (!record) throw new AccountError('not_found', `no API key ${keyId}`);
    for (const listener of this.revokedListeners) listener(record.id);
    return record;
  }

  /**
   * The principal of a key that is not revoked, or undefined for an unknown or revoked one. An
   * expired key still has a principal (its `expiresAt` says so, see `isExpired`), so callers can
   * tell "expired" from "unknown".
   */
  async authenticate(key: string): Promise<Principal | undefined> {
    if (!key.startsWith(API_KEY_PREFIX)) return undefined;
    const rows = await this.db.query<
      { key_id: string; key_expires_at: Date | null; entitlements: Entitlement[] } & Project & { plan: Plan }
    >(
      `SELECT k.id AS key_id, k.expires_at AS key_expires_at, p.*, row_to_json(pl.*) AS plan,
         ARRAY(SELECT e.entitlement FROM project_entitlements e WHERE e.project_id = p.id ORDER BY 1) AS entitlements
       FROM api_keys k JOIN projects p ON p.id = k.project_id JOIN plans pl ON pl.code = p.plan_code
       WHERE k.key_sha256 = $1 AND k.revoked_at IS NULL`,
      [sha256(key)],
    );
    const row = rows[0];
    if (!row) return undefined;
    const { key_id, key_expires_at, plan, entitlements, ...project } = row;
    return {
      keyId: key_id,
      project: { ...project, created_at: new Date(project.created_at) },
      plan,
      entitlements,
      expiresAt: key_expires_at === null ? null : new Date(key_expires_at),
    };
  }

  /** Grants a project an entitlement; granting twice is harmless. */
  async grantEntitlement(projectId: string, entitlement: string): Promise<Entitlement[]> {
    await this.db.query(
      `INSERT INTO project_entitlements (project_id, entitlement) VALUES ($1, $2)
       ON CONFLICT (project_id, entitlement) DO NOTHING`,
      [projectId, checkEntitlement(entitlement)],
    );
    return this.entitlements(projectId);
  }

  /** Revokes an entitlement; revoking one the project does not have is harmless. */
  async revokeEntitlement(projectId: string, entitlement: string): Promise<Entitlement[]> {
    await this.db.query('DELETE FROM project_entitlements WHERE project_id = $1 AND entitlement = $2', [
      projectId,
      checkEntitlement(entitlement),
    ]);
    return this.entitlements(projectId);
  }

  async entitlements(projectId: string): Promise<Entitlement[]> {
    const rows = await this.db.query<{ entitlement: Entitlement }>(
      'SELECT entitlement FROM project_entitlements WHERE project_id = $1 ORDER BY entitlement',
      [projectId],
    );
    return rows.map((r) => r.entitlement);
  }

  async touchApiKey(keyId: string): Promise<void> {
    await this.db.query(
      `UPDATE api_keys SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [keyId],
    );
  }

  /**
   * The demo organization and project (Business plan: alerts and premium endpoints; the archive
   * entitlement). Mints a
   * key when the project has none, or registers `bootstrapKey` when given. Returns the new key
   * when one was minted, so the caller can show it once.
   */
  async ensureDemoAccount(
    bootstrapKey?: string,
  ): Promise<{ project: Project; mintedKey?: string; bootstrapped: boolean }> {
    // Several API instances starting together on one state store race to make the same rows: the
    // one that loses on a unique key finds the winner's rows when it looks again (three rows can
    // race: the organization, the project, the bootstrap key).
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.ensureDemoAccountOnce(bootstrapKey);
      } catch (err) {
        if (attempt >= 5 || sqlState(err) !== UNIQUE_VIOLATION) throw err;
      }
    }
  }

  private async ensureDemoAccountOnce(
    bootstrapKey?: string,
  ): Promise<{ project: Project; mintedKey?: string; bootstrapped: boolean }> {
    let org = await this.organization('org_demo');
    org ??= await this.createOrganization({ id: 'org_demo', slug: 'demo', name: 'Demo Organization' });
    let project = await this.project('proj_demo');
    if (!project) {
      project = await this.createProject({
        id: 'proj_demo',
        organizationId: org.id,
        slug: 'demo',
        name: 'Demo Project',
        plan: 'business',
      });
      // The demo shows the archive replay and bulk download too.
      await this.grantEntitlement(project.id, 'archive');
    }
    if (bootstrapKey) {
      const existing = await this.authenticate(bootstrapKey);
      if (existing && existing.project.id !== project.id) {
        throw new AccountError('conflict', 'EARSHOT_BOOTSTRAP_API_KEY belongs to another project');
      }
      if (existing && isExpired(existing)) {
        throw new AccountError('conflict', 'EARSHOT_BOOTSTRAP_API_KEY has expired; choose another key');
      }
      if (!existing) {
        const [revoked] = await this.db.query('SELECT id FROM api_keys WHERE key_sha256 = $1', [
          sha256(bootstrapKey),
        ]);
        if (revoked)
          throw new AccountError('conflict', 'EARSHOT_BOOTSTRAP_API_KEY was revoked; choose another key');
        await this.createApiKey({ projectId: project.id, name: 'bootstrap', key: bootstrapKey });
      }
      return { project, bootstrapped: true };
    }
    const now = Date.now();
    const live = (await this.apiKeys(project.id)).filter(
      (k) => !k.revoked_at && (k.expires_at === null || new Date(k.expires_at).getTime() > now),
    );
    if (live.length > 0) return { project, bootstrapped: false };
    const { key } = await this.createApiKey({ projectId: project.id, name: 'demo' });
    return { project, mintedKey: key, bootstrapped: false };
  }
}
