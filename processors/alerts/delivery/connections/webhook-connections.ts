import { newId } from '../../../../projections/state/accounts.ts';
import type { StateStore } from '../../../../projections/state/state-store.ts';
import { newWebhookSecret, secretPrefix } from '../channels/webhook-signature.ts';
import type { SecretBox } from '../secrets.ts';

/**
 * Webhook connections of a project. The signing secret exists in full only in the create and
 * rotate answers; the store keeps it sealed (see SecretBox) and reads show `secret_prefix`.
 * Rotation replaces the sealed secret in place, so the old one signs nothing from then on.
 * Deletion is soft: deliveries to a deleted connection are skipped.
 */
export interface WebhookConnection {
  id: string;
  project_id: string;
  name: string;
  url: string;
  surface: string;
  secret_prefix: string;
  created_at: Date;
  secret_rotated_at: Date | null;
  deleted_at: Date | null;
}

export interface DeliverableWebhook extends WebhookConnection {
  secret: string;
}

const COLUMNS =
  'id, project_id, name, url, surface, secret_prefix, created_at, secret_rotated_at, deleted_at';

export class WebhookConnections {
  constructor(
    private readonly db: StateStore,
    private readonly box: SecretBox,
  ) {}

  async create(input: {
    projectId: string;
    url: string;
    name?: string;
    surface?: string;
  }): Promise<{ connection: WebhookConnection; secret: string }> {
    const id = newId('whc');
    const secret = newWebhookSecret();
    const [connection] = await this.db.query<WebhookConnection>(
      `INSERT INTO webhook_connections (id, project_id, name, url, surface, secret_sealed, secret_prefix)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      [
        id,
        input.projectId,
        input.name ?? new URL(input.url).host,
        input.url,
        input.surface ?? 'PLATFORM',
        this.box.encrypt(secret, id),
        secretPrefix(secret),
      ],
    );
    return { connection: connection!, secret };
  }

  /** Live connections of a project, by id, after `after`. */
  async list(projectId: string, after: string | undefined, limit: number): Promise<WebhookConnection[]> {
    return this.db.query<WebhookConnection>(
      `SELECT ${COLUMNS} FROM webhook_connections
       WHERE project_id = $1 AND deleted_at IS NULL AND ($2::text IS NULL OR id > $2) ORDER BY id LIMIT $3`,
      [projectId, after ?? null, limit],
    );
  }

  /** A live connection of a project. */
  async get(projectId: string, id: string): Promise<WebhookConnection | undefined> {
    const [row] = await this.db.query<WebhookConnection>(
      `SELECT ${COLUMNS} FROM webhook_connections WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL`,
      [id, projectId],
    );
    return row;
  }

  /**
   * Replaces the signing secret; the old one is invalid from now on. `url`, when given, replaces
   * the stored URL (its canonical form).
   */
  async rotate(
    projectId: string,
    id: string,
    url?: string,
  ): Promise<{ connection: WebhookConnection; secret: string } | undefined> {
    const secret = newWebhookSecret();
    const [connection] = await this.db.query<WebhookConnection>(
      `UPDATE webhook_connections
       SET secret_sealed = $3, secret_prefix = $4, secret_rotated_at = now(), url = coalesce($5, url)
       WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
      [id, projectId, this.box.encrypt(secret, id), secretPrefix(secret), url ?? null],
    );
    return connection ? { connection, secret } : undefined;
  }

  /** The newest live connection of a project with this name and surface. */
  async findByName(
    projectId: string,
    name: string,
    surface = 'PLATFORM',
  ): Promise<WebhookConnection | undefined> {
    const [row] = await this.db.query<WebhookConnection>(
      `SELECT ${COLUMNS} FROM webhook_connections
       WHERE project_id = $1 AND name = $2 AND surface = $3 AND deleted_at IS NULL
       ORDER BY created_at DESC, id DESC LIMIT 1`,
      [projectId, name, surface],
    );
    return row;
  }

  /** Points a live connection at another URL (its canonical form), keeping its secret. */
  async setUrl(projectId: string, id: string, url: string): Promise<WebhookConnection | undefined> {
    const [row] = await this.db.query<WebhookConnection>(
      `UPDATE webhook_connections SET url = $3 WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL
       RETURNING ${COLUMNS}`,
      [id, projectId, url],
    );
    return row;
  }

  /** Soft delete; false when there was no live connection. */
  async delete(projectId: string, id: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE webhook_connections SET deleted_at = now() WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL
       RETURNING id`,
      [id, projectId],
    );
    return rows.length > 0;
  }

  /** Connections by id with their secrets, deleted ones included (callers skip them). */
  async forDelivery(ids: string[]): Promise<Map<string, DeliverableWebhook>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.query<WebhookConnection & { secret_sealed: string }>(
      `SELECT ${COLUMNS}, secret_sealed FROM webhook_connections WHERE id = ANY($1::text[])`,
      [[...new Set(ids)]],
    );
    return new Map(
      rows.map(({ secret_sealed, ...c }) => [c.id, { ...c, secret: this.box.decrypt(secret_sealed, c.id) }]),
    );
  }
}
