import { type StateStore, sqlState } from '../../../projections/state/state-store.ts';
import type { AlertMatched } from '../../../schemas/generated/index.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import { PermanentWriteError, type ProcessorDefinition } from '../../consumer-runner.ts';
import { ok } from '../../step-result.ts';

/**
 * Projects `alerts.matched` into `alert_matches`, the match read model. A match id derives
 * from (alert, episode), so a replay or a repeated match leaves the first row as it was.
 */
export function matchesProjector(state: StateStore): ProcessorDefinition<AlertMatched, AlertMatched> {
  return {
    name: 'alert-matches-projector',
    groupId: 'projector.alert-matches',
    inputs: [TOPICS.alertMatches],
    handle: (record) => ok(record.value),
    sink: {
      async probe() {
        await state.query('SELECT 1');
      },
      async write(items) {
        const unique = new Map(items.map((m) => [m.id, m]));
        const rows = [...unique.values()].map((m) => ({
          id: m.id,
          alert_id: m.alert_id,
          project_id: m.project_id,
          kind: m.kind,
          entity_type: m.entity_type,
          entity_id: m.entity_id,
          episode_id: m.source_id,
          podcast_id: m.podcast_id,
          relevance: m.relevance,
          is_backfilled: m.is_backfilled,
          mention_count: m.mention_count,
          published_at: m.published_at,
          detected_at: m.detected_at,
          document: m,
        }));
        try {
          await state.query(
            `INSERT INTO alert_matches (id, alert_id, project_id, kind, entity_type, entity_id, episode_id, podcast_id,
               relevance, is_backfilled, mention_count, published_at, detected_at, document)
             SELECT id, alert_id, project_id, kind, entity_type, entity_id, episode_id, podcast_id, relevance,
               is_backfilled, mention_count, to_timestamp(published_at / 1000.0), to_timestamp(detected_at / 1000.0),
               document
             FROM jsonb_to_recordset($1::jsonb) AS x(id text, alert_id text, project_id text, kind text,
               entity_type text, entity_id text, episode_id text, podcast_id text, relevance text,
               is_backfilled boolean, mention_count int, published_at float8, detected_at float8, document jsonb)
             ON CONFLICT (id) DO NOTHING`,
            [JSON.stringify(rows)],
          );
        } catch (err) {
          const code = sqlState(err);
          if (code?.startsWith('22') || code?.startsWith('23'))
            throw new PermanentWriteError((err as Error).message);
          throw err;
        }
      },
    },
  };
}
