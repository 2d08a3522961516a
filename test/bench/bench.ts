import { LOCAL_MODEL_NAMES, type LocalModelName } from '../../projections/embeddings/local-models.ts';

/** One measured figure of a benchmark, with the target the issues set where there is one. */
export interface BenchResult {
  bench: string;
  metric: string;
  value: number;
  unit: string;
  /** `>=` target for throughputs, `<=` for latencies. */
  target?: { op: '>=' | '<='; value: number };
  note?: string;
}

export interface Bench {
  name: string;
  description: string;
  run(progress: (msg: string) => void): Promise<BenchResult[]>;
}

export function meets(r: BenchResult): boolean | undefined {
  if (!r.target) return undefined;
  return r.target.op === '>=' ? r.value >= r.target.value : r.value <= r.target.value;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/**
 * The local model a bench's environment variable names (undefined when it is unset); an unknown
 * name is refused with the names there are.
 */
export function benchModel(variable: string): LocalModelName | undefined {
  const name = process.env[variable];
  if (name === undefined) return undefined;
  if (!(LOCAL_MODEL_NAMES as string[]).includes(name))
    throw new Error(`${variable}: one of ${LOCAL_MODEL_NAMES.join(', ')}`);
  return name as LocalModelName;
}
