import { ensureClusterDump } from './state.ts';

/** Once per run, before any test file: the fixtures every worker reads and none writes. */
export default async function setup(): Promise<void> {
  await ensureClusterDump();
}
