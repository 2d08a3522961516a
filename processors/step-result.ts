/**
 * What a processing step decides about one input record. Steps return a result instead of
 * throwing: `ok` with what to write, `skip` to drop it on purpose, `deadLetter` when the
 * record can never be processed (it is set aside with the reason, never silently lost).
 */
export type StepResult<T> =
  | { kind: 'ok'; items: T[] }
  | { kind: 'skip'; reason: string }
  | { kind: 'dead-letter'; reason: string };

export function ok<T>(...items: T[]): StepResult<T> {
  return { kind: 'ok', items };
}

export function skip<T = never>(reason: string): StepResult<T> {
  return { kind: 'skip', reason };
}

export function deadLetter<T = never>(reason: string): StepResult<T> {
  return { kind: 'dead-letter', reason };
}
