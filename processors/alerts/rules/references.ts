import { type Queryable, sqlState } from '../../../projections/state/state-store.ts';

/**
 * The records alerts refer to, read for the rules: verified notification emails, live webhook
 * and chat connections, the alerts that list an address, and connection URLs for delivery reads.
 */

const UNDEFINED_TABLE = '42P01';

async function queryIfTableExists<T>(
  db: Queryable,
  sql: string,
  params: unknown[],
): Promise<T[] | undefined> {
  try {
    return await db.query<T>(sql, params);
  } catch (err) {
    if (sqlState(err) === UNDEFINED_TABLE) return undefined;
    throw err;
  }
}

/** The verified, live notification emails of an organization among `emails` (lower case). */
export async function verifiedNotificationEmails(
  db: Queryable,
  organizationId: string,
  emails: string[],
): Promise<Set<string>> {
  if (emails.length === 0) return new Set();
  const rows = await db.query<{ email: string }>(
    `SELECT lower(email) AS email FROM notification_emails
     WHERE organization_id = $1 AND lower(email) = ANY($2::text[]) AND verified_at IS NOT NULL AND deleted_at IS NULL`,
    [organizationId, emails.map((e) => e.toLowerCase())],
  );
  return new Set(rows.map((r) => r.email));
}

/**
 * Live (not deleted) alerts of any project of the organization whose notifications list the
 * address (case-insensitive). Used to refuse deleting a notification email that is in use.
 */
export async function alertsUsingNotificationEmail(
  db: Queryable,
  organizationId: string,
  email: string,
): Promise<{ id: string; project_id: string; title: string }[]> {
  return db.query(
    `SELECT a.id, a.project_id, a.title FROM alerts a JOIN projects p ON p.id = a.project_id
     WHERE p.organization_id = $1 AND a.deleted_at IS NULL
       AND EXISTS (SELECT 1 FROM jsonb_array_elements(a.notifications) n
                   WHERE n->>'type' = 'EMAIL' AND lower(n->>'email') = lower($2))
     ORDER BY a.created_at, a.id`,
    [organizationId, email],
  );
}

/**
 * Live webhook connections of a project among `ids`, with their surface. Reads the
 * `webhook_connections` table of migration 004 (id, project_id, surface, deleted_at); none
 * while that table does not exist.
 */
export async function liveWebhookConnections(
  db: Queryable,
  projectId: string,
  ids: string[],
): Promise<Map<string, { id: string; surface: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await queryIfTableExists<{ id: string; surface: string }>(
    db,
    `SELECT id, surface FROM webhook_connections
     WHERE project_id = $1 AND id = ANY($2::text[]) AND deleted_at IS NULL`,
    [projectId, ids],
  );
  return new Map((rows ?? []).map((r) => [r.id, r]));
}

/** Live chat connections of a project among `ids` (table `chat_connections` of migration 004). */
export async function liveChatConnections(
  db: Queryable,
  projectId: string,
  ids: string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await queryIfTableExists<{ id: string }>(
    db,
    `SELECT id FROM chat_connections WHERE project_id = $1 AND id = ANY($2::text[]) AND deleted_at IS NULL`,
    [projectId, ids],
  );
  return new Set((rows ?? []).map((r) => r.id));
}

/** Webhook connection urls by id (any state), for pairing delivery outcomes with channels. */
export async function webhookConnectionUrls(db: Queryable, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await queryIfTableExists<{ id: string; url: string }>(
    db,
    'SELECT id, url FROM webhook_connections WHERE id = ANY($1::text[])',
    [ids],
  );
  return new Map((rows ?? []).map((r) => [r.id, r.url]));
}
