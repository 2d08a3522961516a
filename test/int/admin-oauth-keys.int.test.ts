import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, adminSocketPath } from '../../infra/admin-socket.ts';
import { loadConfig } from '../../infra/config.ts';
import { silentLogger } from '../../infra/logger.ts';
import { startService } from '../../infra/service.ts';
import { seedStateDir } from '../support/state-template.ts';
import { tempDir } from '../support/temp-dir.ts';

/**
 * `earshot oauth rotate-keys` against a running service goes through its admin socket: the
 * service wires the token-signing keys there, and the API publishes the new key at once.
 */
const tmp = tempDir('earshot-admin-oauth-');
let service: Awaited<ReturnType<typeof startService>>;
let dataDir: string;

beforeAll(async () => {
  dataDir = path.join(tmp.dir, 'data');
  // The migrated state store a service leaves, instead of initdb and every migration again.
  seedStateDir(path.join(dataDir, 'state'));
  const config = loadConfig({}, {
    EARSHOT_DATA_DIR: dataDir,
    EARSHOT_ROLES: 'api',
    EARSHOT_DEMO: 'off',
    EARSHOT_EMBEDDINGS_FETCH: 'off',
    HOST: '127.0.0.1',
    PORT: 0,
    MCP_PORT: 0,
    LOG_LEVEL: 'silent',
  } as never);
  service = await startService(config, silentLogger());
}, 180_000);
afterAll(async () => {
  await service?.stop();
  tmp.remove();
});

describe('operators rotate the OAuth signing keys of a running service', () => {
  it('rotates through the admin socket; the JWKS then publishes the new key beside the old', async () => {
    const before = (await (await fetch(`${service.url}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
    const remote = await adminClient(adminSocketPath(dataDir));
    expect(remote, 'the running service answers on its admin socket').toBeDefined();
    const { kid, retired } = await remote!.rotateSigningKeys({});
    expect(kid).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(retired).toEqual(before.keys.map((k) => k.kid));
    const after = (await (await fetch(`${service.url}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
    expect(after.keys.map((k) => k.kid).sort()).toEqual([kid, ...retired].sort());
  });
});
