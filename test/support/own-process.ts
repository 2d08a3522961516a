/**
 * The integration files that run each in a process of their own (vitest `isolate: true`); every
 * other unit and integration file shares its worker process with the files before it
 * (`isolate: false`), which spares each the 1.5-3 CPU-seconds of loading the modules again.
 *
 * These are the files whose imports reach chdb, the embedded ClickHouse: its engine is a process
 * singleton (one data directory per process), so two files' analytics stores cannot share a
 * process. `test/unit/own-process.unit.test.ts` recomputes the list from the import graph and
 * fails when it is stale.
 */
export const OWN_PROCESS_INT_FILES = [
  'test/int/admin-oauth-keys.int.test.ts',
  'test/int/agent-tools-coverage.int.test.ts',
  'test/int/alerts-preview.int.test.ts',
  'test/int/analytics-catalog-api.int.test.ts',
  'test/int/analytics-mentions-api.int.test.ts',
  'test/int/analytics-projection.int.test.ts',
  'test/int/analytics-rollups.int.test.ts',
  'test/int/analytics-store-client.int.test.ts',
  'test/int/analytics-store.int.test.ts',
  'test/int/api-auth.int.test.ts',
  'test/int/archive-demo.int.test.ts',
  'test/int/catalog-surface-api.int.test.ts',
  'test/int/payments.int.test.ts',
  'test/int/pipeline-declaration.int.test.ts',
  'test/int/text-validation.int.test.ts',
  'test/int/tool-payments.int.test.ts',
];
