import type { StateStore } from './state-store.ts';

/**
 * Requests per API key and UTC day, in the state store. The API counts in memory and adds its
 * counts here in batches (api/plugins/usage.ts); each batch is one statement that adds to what is
 * stored, so API processes sharing a store add up.
 */
export interface UsageCount {
  keyId: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  requests: number;
  rateLimited: number;
}

export interface UsageRow {
  key_id: string;
  day: string;
  requests: number;
  rate_limited: number;
}

export class ApiKeyUsage {
  constructor(private readonly db: StateStore) {}

  async add(counts: UsageCount[]): Promise<void> {
    if (counts.length === 0) return;
    await this.db.query(
      `INSERT INTO api_key_usage (key_id, day, requests, rate_limited)
       SELECT k, d::date, r, l FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) AS t(k, d, r, l)
       WHERE EXISTS (SELECT 1 FROM api_keys WHERE id = k)
       ON CONFLICT (key_id, day) DO UPDATE SET
         requests = api_key_usage.requests + excluded.requests,
         rate_limited = api_key_usage.rate_limited + excluded.rate_limited`,
      [
        counts.map((c) => c.keyId),
        counts.map((c) => c.day),
        counts.map((c) => c.requests),
        counts.map((c) => c.rateLimited),
      ],
    );
  }

  /** A project's counts per key and day for the `days` days up to and including today (UTC). */
  async ofProject(projectId: string, days: number): Promise<UsageRow[]> {
    return this.db.query<UsageRow>(
      `SELECT u.key_id, to_char(u.day, 'YYYY-MM-DD') AS day, u.requests::int8 AS requests,
              u.rate_limited::int8 AS rate_limited
       FROM api_key_usage u JOIN api_keys k ON k.id = u.key_id
       WHERE k.project_id = $1 AND u.day > (now() AT TIME ZONE 'UTC')::date - $2::int
       ORDER BY u.day, u.key_id`,
      [projectId, days],
    );
  }
}
