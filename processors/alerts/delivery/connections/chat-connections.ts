import { newId } from '../../../../projections/state/accounts.ts';
import type { StateStore } from '../../../../projections/state/state-store.ts';
import type { SecretBox } from '../secrets.ts';

/**
 * Team-chat connections: a workspace the service can post to with a bot token. The token is
 * stored sealed (see SecretBox); reads show a prefix. Deletion is soft: deliveries to a deleted
 * connection are skipped.
 */
export interface ChatConnection {
  id: string;
  project_id: string;
  name: string;
  team_id: string | null;
  team_name: string | null;
  bot_user_id: string | null;
  token_prefix: string;
  surface: string;
  created_at: Date;
  deleted_at: Date | null;
}

export interface UsableChatConnection extends ChatConnection {
  token: string;
}

const COLUMNS =
  'id, project_id, name, team_id, team_name, bot_user_id, token_prefix, surface, created_at, deleted_at';

export function tokenPrefix(token: string): string {
  const dash = token.indexOf('-');
  return token.slice(0, Math.max(dash + 1, 0) + 4);
}

export class ChatConnections {
  constructor(
    private readonly db: StateStore,
    private readonly box: SecretBox,
  ) {}

  async create(input: {
    projectId: string;
    name: string;
    token: string;
    teamId?: string | null;
    teamName?: string | null;
    botUserId?: string | null;
    surface?: string;
  }): Promise<ChatConnection> {
    const id = newId('chc');
    const [row] = await this.db.query<ChatConnection>(
      `INSERT INTO chat_connections (id, project_id, name, team_id, team_name, bot_user_id, token_sealed, token_prefix, surface)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
      [
        id,
        input.projectId,
        input.name,
        input.teamId ?? null,
        input.teamName ?? null,
        input.botUserId ?? null,
        this.box.encrypt(input.token, id),
        tokenPrefix(input.token),
        input.surface ?? 'PLATFORM',
      ],
    );
    return row!;
  }

  async list(projectId: string, after: string | undefined, limit: number): Promise<ChatConnection[]> {
    return this.db.query<ChatConnection>(
      `SELECT ${COLUMNS} FROM chat_connections
       WHERE project_id = $1 AND deleted_at IS NULL AND ($2::text IS NULL OR id > $2) ORDER BY id LIMIT $3`,
      [projectId, after ?? null, limit],
    );
  }

  /** A live connection of a project, with its token. */
  async get(projectId: string, id: string): Promise<UsableChatConnection | undefined> {
    const [row] = await this.db.query<ChatConnection & { token_sealed: string }>(
      `SELECT ${COLUMNS}, token_sealed FROM chat_connections WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL`,
      [id, projectId],
    );
    if (!row) return undefined;
    const { token_sealed, ...c } = row;
    return { ...c, token: this.box.decrypt(token_sealed, c.id) };
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE chat_connections SET deleted_at = now() WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL
       RETURNING id`,
      [id, projectId],
    );
    return rows.length > 0;
  }

  /** Connections by id with their tokens, deleted ones included (callers skip them). */
  async forDelivery(ids: string[]): Promise<Map<string, UsableChatConnection>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.query<ChatConnection & { token_sealed: string }>(
      `SELECT ${COLUMNS}, token_sealed FROM chat_connections WHERE id = ANY($1::text[])`,
      [[...new Set(ids)]],
    );
    return new Map(
      rows.map(({ token_sealed, ...c }) => [c.id, { ...c, token: this.box.decrypt(token_sealed, c.id) }]),
    );
  }
}
