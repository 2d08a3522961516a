import type { StateStore } from './state-store.ts';

export interface ToolUsageCount {
  projectId: string;
  tool: string;
  /** The API key or OAuth grant that made the calls. */
  credentialId: string;
  day: string;
  calls: number;
  errors: number;
}

export interface ToolUsageRow {
  tool: string;
  credential_id: string;
  day: string;
  calls: number;
  errors: number;
}

/** Agent-tool calls per project, tool, credential and UTC day (`tool_usage`). */
export class ToolUsage {
  constructor(private readonly db: StateStore) {}

  /** Adds counts in one statement. */
  async add(counts: ToolUsageCount[]): Promise<void> {
    if (counts.length === 0) return;
    const values: unknown[] = [];
    const tuples = counts.map((c, i) => {
      values.push(c.projectId, c.tool, c.credentialId, c.day, c.calls, c.errors);
      const b = i * 6;
      return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}::date, $${b + 5}::bigint, $${b + 6}::bigint)`;
    });
    await this.db.query(
      `INSERT INTO tool_usage (project_id, tool, credential_id, day, calls, errors) VALUES ${tuples.join(', ')}
       ON CONFLICT (project_id, tool, credential_id, day)
       DO UPDATE SET calls = tool_usage.calls + EXCLUDED.calls, errors = tool_usage.errors + EXCLUDED.errors`,
      values,
    );
  }

  /** A project's tool calls over the last `days` UTC days, newest day first. */
  async ofProject(projectId: string, days = 30): Promise<ToolUsageRow[]> {
    const rows = await this.db.query<{
      tool: string;
      credential_id: string;
      day: Date | string;
      calls: string | number;
      errors: string | number;
    }>(
      `SELECT tool, credential_id, day, calls, errors FROM tool_usage
       WHERE project_id = $1 AND day > (now() AT TIME ZONE 'UTC')::date - $2::int
       ORDER BY day DESC, tool, credential_id`,
      [projectId, days],
    );
    return rows.map((r) => ({
      tool: r.tool,
      credential_id: r.credential_id,
      day: typeof r.day === 'string' ? r.day.slice(0, 10) : r.day.toISOString().slice(0, 10),
      calls: Number(r.calls),
      errors: Number(r.errors),
    }));
  }
}
