import { ensureStateTemplate } from './state.ts';
import { buildTestToken } from './test-token-build.ts';

/** Once per run, before any test file: the fixtures every worker reads and none writes. */
export default async function setup(): Promise<void> {
  // The migrated state store that in-memory stores and new data dirs start from.
  await ensureStateTemplate();
  // The payment files' test token, compiled once rather than by each of them.
  buildTestToken();
}
