import { ensureClusterDump } from './state.ts';
import { buildTestToken } from './test-token-build.ts';

/** Once per run, before any test file: the fixtures every worker reads and none writes. */
export default async function setup(): Promise<void> {
  await ensureClusterDump();
  // The payment files' test token, compiled once rather than by each of them.
  buildTestToken();
}
