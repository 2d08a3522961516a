import type { StateStore, Transaction } from '../../../projections/state/state-store.ts';
import { StoreUnavailableError } from '../../../projections/store-errors.ts';
import {
  entityRefs,
  type FactLine,
  type FactsUpdate,
  type MatcherFacts,
  type MatcherStore,
  type MetaChanges,
} from './matcher-facts.ts';

interface Loaded {
  facts: MatcherFacts;
  lines: FactLine[] | null;
  version: number;
}

/**
 * The matcher's episode facts in the state store (tables of schemas/postgres/013), for a matcher
 * that runs as several members of its consumer group. The group is co-partitioned (partition p of
 * every input topic to one member), so one member at a time updates an episode; when partitions
 * move, the new member reads what the old one recorded. Each episode carries a version: a write
 * based on an older version than the store holds (a member still finishing a batch of a
 * partition it has lost) is refused with a transient error, and the consumer runner retries the
 * batch, which reads the episode again. Offsets are committed after the write, so nothing is lost.
 */
export class StateMatcherFacts implements MatcherStore {
  readonly shared = true;
  private loaded = new Map<string, Loaded>();

  constructor(private readonly state: StateStore) {}

  async load(episodeIds: readonly string[]): Promise<void> {
    const ids = [...new Set(episodeIds)];
    if (ids.length === 0) return;
    const rows = await this.state.query<{
      episode_id: string;
      facts: MatcherFacts;
      lines: FactLine[] | null;
      version: string;
    }>(
      'SELECT episode_id, facts, lines, version FROM alert_matcher_episodes WHERE episode_id = ANY($1::text[])',
      [ids],
    );
    for (const id of ids) this.loaded.delete(id);
    for (const r of rows) {
      this.loaded.set(r.episode_id, { facts: r.facts, lines: r.lines, version: Number(r.version) });
    }
  }

  get(episodeId: string): MatcherFacts | undefined {
    return this.loaded.get(episodeId)?.facts;
  }

  linesOf(episodeId: string): FactLine[] | undefined {
    return this.loaded.get(episodeId)?.lines ?? undefined;
  }

  async write(updates: FactsUpdate[], meta: MetaChanges = {}): Promise<void> {
    if (updates.length === 0 && !meta.set?.length && !meta.remove?.length) return;
    const inserts: object[] = [];
    const changes: object[] = [];
    for (const { facts, lines } of updates) {
      const held = this.loaded.get(facts.episode_id);
      // Without lines (no transcript in this batch) the column is NULL and COALESCE keeps the stored ones.
      const row = {
        episode_id: facts.episode_id,
        facts,
        ...(lines ? { lines } : {}),
        touched_at: facts.touched_at,
      };
      if (held) changes.push({ ...row, version: held.version });
      else inserts.push(row);
    }
    try {
      await this.state.transaction(async (tx) => {
        if (inserts.length > 0) {
          const done = await tx.query(
            `INSERT INTO alert_matcher_episodes (episode_id, facts, lines, touched_at, version)
             SELECT episode_id, facts, lines, touched_at, 1
             FROM jsonb_to_recordset($1::jsonb) AS x(episode_id text, facts jsonb, lines jsonb, touched_at bigint)
             ON CONFLICT (episode_id) DO NOTHING
             RETURNING episode_id`,
            [JSON.stringify(inserts)],
          );
          if (done.length !== inserts.length) throw conflict();
        }
        if (changes.length > 0) {
          const done = await tx.query(
            `UPDATE alert_matcher_episodes e
             SET facts = x.facts, lines = COALESCE(x.lines, e.lines), touched_at = x.touched_at,
               version = e.version + 1
             FROM jsonb_to_recordset($1::jsonb) AS x(episode_id text, facts jsonb, lines jsonb, touched_at bigint,
               version bigint)
             WHERE e.episode_id = x.episode_id AND e.version = x.version
             RETURNING e.episode_id`,
            [JSON.stringify(changes)],
          );
          if (done.length !== changes.length) throw conflict();
        }
        await this.index(tx, updates);
        for (const [ns, key, value] of meta.set ?? []) {
          await tx.query(
            `INSERT INTO alert_matcher_meta (ns, key, value) VALUES ($1, $2, $3)
             ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value`,
            [ns, key, value],
          );
        }
        for (const [ns, key] of meta.remove ?? []) {
          await tx.query('DELETE FROM alert_matcher_meta WHERE ns = $1 AND key = $2', [ns, key]);
        }
      });
    } finally {
      // What was loaded is stale once written (or refused): the next use reads it again.
      for (const { facts } of updates) this.loaded.delete(facts.episode_id);
    }
  }

  /** The entity index entries of the episodes whose mentions or speakers changed. */
  private async index(tx: Transaction, updates: FactsUpdate[]): Promise<void> {
    const changed = updates.filter(
      (u) => JSON.stringify(entityRefs(u.previous)) !== JSON.stringify(entityRefs(u.facts)),
    );
    if (changed.length === 0) return;
    await tx.query('DELETE FROM alert_matcher_entities WHERE episode_id = ANY($1::text[])', [
      changed.map((u) => u.facts.episode_id),
    ]);
    const rows = changed.flatMap((u) =>
      entityRefs(u.facts).map(([kind, entity_id]) => ({ kind, entity_id, episode_id: u.facts.episode_id })),
    );
    if (rows.length === 0) return;
    await tx.query(
      `INSERT INTO alert_matcher_entities (kind, entity_id, episode_id)
       SELECT kind, entity_id, episode_id FROM jsonb_to_recordset($1::jsonb) AS x(kind text, entity_id text, episode_id text)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }

  async episodesFor(kind: 'm' | 's', entityId: string): Promise<string[]> {
    const rows = await this.state.query<{ episode_id: string }>(
      'SELECT episode_id FROM alert_matcher_entities WHERE kind = $1 AND entity_id = $2 ORDER BY episode_id',
      [kind, entityId],
    );
    return rows.map((r) => r.episode_id);
  }

  async metaGet(ns: string, key: string): Promise<number | undefined> {
    const [row] = await this.state.query<{ value: string }>(
      'SELECT value FROM alert_matcher_meta WHERE ns = $1 AND key = $2',
      [ns, key],
    );
    return row ? Number(row.value) : undefined;
  }

  async metaEntries(ns: string): Promise<{ key: string; value: number }[]> {
    const rows = await this.state.query<{ key: string; value: string }>(
      'SELECT key, value FROM alert_matcher_meta WHERE ns = $1 ORDER BY key',
      [ns],
    );
    return rows.map((r) => ({ key: r.key, value: Number(r.value) }));
  }

  async prune(before: number): Promise<number> {
    return this.state.transaction(async (tx) => {
      const gone = await tx.query<{ episode_id: string }>(
        'DELETE FROM alert_matcher_episodes WHERE touched_at < $1 RETURNING episode_id',
        [before],
      );
      if (gone.length === 0) return 0;
      const ids = gone.map((r) => r.episode_id);
      await tx.query('DELETE FROM alert_matcher_entities WHERE episode_id = ANY($1::text[])', [ids]);
      await tx.query(`DELETE FROM alert_matcher_meta WHERE ns = 'pending' AND key = ANY($1::text[])`, [ids]);
      return gone.length;
    });
  }

  async close(): Promise<void> {
    this.loaded.clear();
  }
}

function conflict(): StoreUnavailableError {
  return new StoreUnavailableError(
    'alert matcher: an episode changed under this member (its partition moved); the batch is read again',
    { store: 'postgres', statement: 'alert_matcher_episodes write' },
  );
}
