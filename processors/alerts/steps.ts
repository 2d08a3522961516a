import type { Rebuild } from '../pipeline.ts';

/**
 * Why no step of alerting is rebuilt from the log (`earshot projections rebuild`): matches,
 * deliveries and the senders' schedule hold what was matched and sent, and reprocessing their
 * inputs would notify again.
 */
export const KEPT: Rebuild = {
  never: 'alerting keeps what it matched and sent: reprocessing its inputs would notify again',
};

/** Why match summaries are not rebuilt: they stay with the matches they describe. */
export const SUMMARIES_KEPT: Rebuild = {
  never:
    'summaries stay with the matches they describe (kept too); writing them again would call the model again',
};
