-- Summaries of alert matches (`llm_summary` on match reads, webhooks and digests), written by the
-- alert summarizer after the match: by an OpenAI-compatible chat endpoint when one is configured,
-- otherwise (or when it fails for good) extracted from the match windows. A table of its own so
-- the summarizer never waits for the matches projector: reads join it, and a match without a row
-- has no `llm_summary` yet. One row per match; a replay keeps the first.
CREATE TABLE alert_match_summaries (
  match_id text PRIMARY KEY,
  summary text NOT NULL,
  -- 'llm' or 'extractive'
  source text NOT NULL,
  model text,
  created_at timestamptz NOT NULL DEFAULT now()
);
