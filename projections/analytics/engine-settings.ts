/**
 * The session settings of the analytics store, one table for both adapters: the embedded engine
 * (chdb) takes them as connection arguments, the ClickHouse server adapter sends them with every
 * request. A setting an engine has no value for keeps that engine's own default.
 */
export type AnalyticsEngine = 'chdb' | 'clickhouse';

type Value = number | string;

interface Setting {
  name: string;
  values: Partial<Record<AnalyticsEngine, Value>>;
}

const SETTINGS: Setting[] = [
  // Results look the same on both: 64-bit integers as JSON numbers, times in UTC.
  { name: 'output_format_json_quote_64bit_integers', values: { chdb: 0, clickhouse: 0 } },
  { name: 'session_timezone', values: { chdb: 'UTC', clickhouse: 'UTC' } },
  // Embedded: parsing an insert on one thread costs less CPU than splitting it, and the CPU is the
  // service's own (the projector's thread decodes the next batch meanwhile). A server parses on its
  // own cores, where splitting a large insert is what it is for: the server's default (on) stays.
  { name: 'input_format_parallel_parsing', values: { chdb: 0 } },
  // Every read deduplicates with FINAL: collapsing each inserted block on insert is wasted work.
  { name: 'optimize_on_insert', values: { chdb: 0, clickhouse: 0 } },
];

/** The settings `engine` runs with, by name. */
export function engineSettings(engine: AnalyticsEngine): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const { name, values } of SETTINGS) {
    const value = values[engine];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
