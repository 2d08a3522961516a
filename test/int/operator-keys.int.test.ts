import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startAdminSocket } from '../../infra/admin-socket.ts';
import { silentLogger } from '../../infra/logger.ts';
import { type OperatorActions, operatorActions, parseExpiresIn } from '../../infra/operator.ts';
import { Accounts } from '../../projections/state/accounts.ts';
import { migrate } from '../../projections/state/migrations.ts';
import type { PgliteStateStore } from '../../projections/state/pglite-state-store.ts';
import { diskStateStore, memoryStateStore } from '../support/state.ts';
import { tempDir } from '../support/temp-dir.ts';

const DAY = 86_400_000;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('operators mint keys with an expiry', () => {
  it('reads key lifetimes as whole minutes, hours, days, weeks or years, up to 10 years', () => {
    expect(parseExpiresIn('90d')).toBe(90 * DAY);
    expect(parseExpiresIn('30m')).toBe(30 * 60_000);
    expect(parseExpiresIn('12h')).toBe(12 * 3_600_000);
    expect(parseExpiresIn('8w')).toBe(56 * DAY);
    expect(parseExpiresIn('1y')).toBe(365 * DAY);
    for (const bad of ['', '90', 'd', '0d', '-1d', '1.5d', '90 days', '11y', '90D', '1e3d']) {
      expect(() => parseExpiresIn(bad), bad).toThrow(/not a key lifetime/);
    }
  });

  describe('through the admin socket of a running service', () => {
    const tmp = tempDir();
    let state: PgliteStateStore;
    let socket: Awaited<ReturnType<typeof startAdminSocket>>;
    let remote: OperatorActions;

    beforeAll(async () => {
      state = memoryStateStore();
      await migrate(state);
      const accounts = new Accounts(state);
      const org = await accounts.createOrganization({ name: 'Acme Audio', slug: 'acme' });
      await accounts.createProject({
        organizationId: org.id,
        name: 'Newsroom',
        slug: 'newsroom',
        plan: 'team',
      });
      const socketPath = path.join(tmp.dir, 'admin.sock');
      socket = await startAdminSocket(socketPath, operatorActions(accounts), silentLogger());
      remote = (await adminClient(socketPath))!;
    });
    afterAll(async () => {
      await socket?.close();
      await state?.close();
      tmp.remove();
    });

    it('stores the expiry, lists it, and refuses a lifetime it cannot read', async () => {
      const before = Date.now();
      const { key, record } = await remote.createKey({ project: 'newsroom', name: 'ci', expiresIn: '90d' });
      expect(key).toMatch(/^esk_/);
      const expiresAt = new Date(record.expires_at!).getTime();
      expect(expiresAt).toBeGreaterThanOrEqual(before + 90 * DAY);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 90 * DAY);
      const forever = await remote.createKey({ project: 'newsroom', name: 'forever' });
      expect(forever.record.expires_at).toBeNull();
      const listed = await remote.listKeys({ project: 'newsroom' });
      expect(listed.map((k) => [k.name, k.expires_at && new Date(k.expires_at).getTime()])).toEqual([
        ['ci', expiresAt],
        ['forever', null],
      ]);
      await expect(remote.createKey({ project: 'newsroom', expiresIn: 'soon' })).rejects.toThrow(
        /not a key lifetime/,
      );
      expect(await remote.listKeys({ project: 'newsroom' })).toHaveLength(2);
    });
  });

  describe('the earshot CLI on a stopped service', () => {
    const tmp = tempDir();
    const earshot = (...args: string[]) =>
      promisify(execFile)(process.execPath, [path.join(root, 'bin/earshot.js'), ...args], {
        cwd: root,
        env: { ...process.env, EARSHOT_DATA_DIR: tmp.dir, LOG_LEVEL: 'warn' },
      });
    beforeAll(async () => {
      // The store the CLI opens when no service runs (EARSHOT_DATA_DIR/state), with a project.
      const state = diskStateStore(path.join(tmp.dir, 'state'));
      await migrate(state);
      const accounts = new Accounts(state);
      const org = await accounts.createOrganization({ name: 'Acme Audio', slug: 'acme' });
      await accounts.createProject({
        organizationId: org.id,
        name: 'Newsroom',
        slug: 'newsroom',
        plan: 'team',
      });
      await state.close();
    });
    afterAll(() => tmp.remove());

    it('keys create --expires-in 90d, and keys list shows the expiry', async () => {
      const before = Date.now();
      const created = await earshot('keys', 'create', '--project', 'newsroom', '--expires-in', '90d');
      expect(created.stdout.trim()).toMatch(/^esk_[A-Za-z0-9]{40}$/);
      const shown = /expires (\S+) \(shown once/.exec(created.stderr)?.[1];
      expect(shown, created.stderr).toBeDefined();
      const expiresAt = Date.parse(shown!);
      expect(expiresAt).toBeGreaterThanOrEqual(before + 90 * DAY - 1000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 90 * DAY);

      const list = await earshot('keys', 'list', '--project', 'newsroom');
      expect(list.stdout).toContain('expires');
      expect(list.stdout).toContain(shown!);

      const refused = await earshot('keys', 'create', '--project', 'newsroom', '--expires-in', '90x').catch(
        (err: { code: number; stderr: string }) => err,
      );
      expect(refused).toMatchObject({ code: 1 }); // commander's usage error
      expect((refused as { stderr: string }).stderr).toMatch(/not a key lifetime/);
    }, 120_000);
  });
});
