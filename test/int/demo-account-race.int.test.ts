import { describe, expect, it } from 'vitest';
import { Accounts } from '../../projections/state/accounts.ts';
import { migrate } from '../../projections/state/migrations.ts';
import { memoryStateStore } from '../support/state.ts';

/**
 * Several API instances start together on one state store (`earshot cluster up --api 2`): each
 * makes sure the demo organization, project and bootstrap key exist. They must all start.
 */
describe('demo account, made by instances starting together', () => {
  it('is made once and every instance gets it', async () => {
    const state = memoryStateStore();
    await migrate(state);
    try {
      const key = 'esk_cluster_race_bootstrap_0123456789abcd';
      const results = await Promise.all(
        Array.from({ length: 4 }, () => new Accounts(state).ensureDemoAccount(key)),
      );
      expect(results.every((r) => r.project.id === 'proj_demo')).toBe(true);
      const keys = await state.query('SELECT id FROM api_keys WHERE project_id = $1', ['proj_demo']);
      expect(keys).toHaveLength(1);
      expect(await state.query(`SELECT id FROM organizations WHERE id = 'org_demo'`)).toHaveLength(1);
    } finally {
      await state.close();
    }
  });
});
