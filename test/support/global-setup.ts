import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NO_CACHE_PREFIX } from './service-process.ts';
import { ensureStateTemplate } from './state.ts';
import { buildTestToken } from './test-token-build.ts';

/** Once per run, before any test file: the fixtures every worker reads and none writes. */
export default async function setup(): Promise<() => void> {
  // The migrated state store that in-memory stores and new data dirs start from.
  await ensureStateTemplate();
  // The payment files' test token, compiled once rather than by each of them.
  buildTestToken();
  return () => {
    // The cache dirs the spawned services got instead of the user's (service-process.ts): only
    // the ONNX runtime's device id lands there.
    for (const name of fs.readdirSync(tmpdir())) {
      if (name.startsWith(NO_CACHE_PREFIX))
        fs.rmSync(path.join(tmpdir(), name), { recursive: true, force: true });
    }
  };
}
