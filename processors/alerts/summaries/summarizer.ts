import type { Logger } from 'pino';
import { type StateStore, sqlState } from '../../../projections/state/state-store.ts';
import type { AlertMatched } from '../../../schemas/generated/index.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import { PermanentWriteError, type ProcessorDefinition } from '../../consumer-runner.ts';
import { ok } from '../../step-result.ts';
import { type ChatSummarizer, ModelSkippedError, SummaryFailedError } from './chat-summarizer.ts';
import { extractiveSummary } from './extractive.ts';

/**
 * The alert summarizer (role `processors`, group `processor.alert-summarizer`): reads
 * `alerts.matched` and writes each match's `llm_summary` to `alert_match_summaries`, after the
 * match and without holding it up (the matcher, planner and projector do not wait for it).
 *
 * With a chat model (`EARSHOT_LLM_URL`) the summary is the model's; when the model fails for good
 * (after its retries) the extractive summary is written instead, so a match always gets one.
 * Backfilled matches (history: a new alert's last week, archive loads) are summarized
 * extractively — a bulk load of old episodes spends no model calls. Idempotent: a match that
 * already has a summary is skipped before any model call, and the insert keeps the first row.
 */
export interface SummarizerDeps {
  state: StateStore;
  logger: Logger;
  /** Absent: every summary is extractive. */
  chat?: ChatSummarizer;
  /** Model calls in flight at once (default 4). */
  concurrency?: number;
}

interface SummaryRow {
  match_id: string;
  summary: string;
  source: 'llm' | 'extractive';
  model: string | null;
}

export function matchSummarizer(deps: SummarizerDeps): ProcessorDefinition<AlertMatched, AlertMatched> {
  const { state, logger, chat } = deps;
  const concurrency = Math.max(1, deps.concurrency ?? 4);

  async function summarize(match: AlertMatched): Promise<SummaryRow> {
    const extractive = (): SummaryRow => ({
      match_id: match.id,
      summary: extractiveSummary(match),
      source: 'extractive',
      model: null,
    });
    if (!chat || match.is_backfilled) return extractive();
    try {
      const summary = await chat.summarize(match);
      return { match_id: match.id, summary, source: 'llm', model: chat.model ?? null };
    } catch (err) {
      if (err instanceof ModelSkippedError) return extractive();
      logger.warn(
        { matchId: match.id, endpoint: chat.endpoint, reason: (err as Error).message },
        'chat model failed: extractive summary instead',
      );
      if (err instanceof SummaryFailedError && err.openedBreaker)
        logger.warn(
          { endpoint: chat.endpoint, cooldownMs: chat.cooldownMs },
          'chat model failing: skipped (extractive summaries) for a cool-down',
        );
      return extractive();
    }
  }

  return {
    name: 'alert-summarizer',
    groupId: 'processor.alert-summarizer',
    inputs: [TOPICS.alertMatches],
    handle: (record) => ok(record.value),
    // Model calls make a batch slow: keep batches small so offsets move on.
    maxBatchItems: chat ? 32 : undefined,
    sink: {
      async probe() {
        await state.query('SELECT 1');
      },
      async write(items) {
        const unique = [...new Map(items.map((m) => [m.id, m])).values()];
        if (unique.length === 0) return;
        const done = await state.query<{ match_id: string }>(
          'SELECT match_id FROM alert_match_summaries WHERE match_id = ANY($1::text[])',
          [unique.map((m) => m.id)],
        );
        const have = new Set(done.map((r) => r.match_id));
        const todo = unique.filter((m) => !have.has(m.id));
        const rows: SummaryRow[] = [];
        for (let i = 0; i < todo.length; i += concurrency) {
          rows.push(...(await Promise.all(todo.slice(i, i + concurrency).map(summarize))));
        }
        const written = rows.filter((r) => r.summary.length > 0);
        if (written.length === 0) return;
        try {
          await state.query(
            `INSERT INTO alert_match_summaries (match_id, summary, source, model)
             SELECT match_id, summary, source, model
             FROM jsonb_to_recordset($1::jsonb) AS x(match_id text, summary text, source text, model text)
             ON CONFLICT (match_id) DO NOTHING`,
            [JSON.stringify(written)],
          );
        } catch (err) {
          const code = sqlState(err);
          if (code?.startsWith('22') || code?.startsWith('23'))
            throw new PermanentWriteError((err as Error).message);
          throw err;
        }
        logger.debug(
          {
            llm: written.filter((r) => r.source === 'llm').length,
            extractive: written.filter((r) => r.source === 'extractive').length,
          },
          'match summaries written',
        );
      },
    },
  };
}
