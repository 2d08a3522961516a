import { describe, expect, it } from 'vitest';
import { createDelivery } from '../../infra/composition.ts';
import { ConfigError, loadConfig } from '../../infra/config.ts';
import { CatalogReader } from '../../projections/catalog/catalog-reader.ts';
import type { StateStore } from '../../projections/state/state-store.ts';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.problems.map((p) => p.variable);
  }
}

describe('delivery configuration', () => {
  it('has the documented defaults', () => {
    const { env } = loadConfig({});
    expect(env.EARSHOT_OUTBOUND_ALLOWLIST).toBe('');
    expect(env.EARSHOT_DELIVERY_RETRY_SCHEDULE).toBe('0s,5s,5m,30m,2h');
    expect(env.EARSHOT_CHAT_API_URL).toBe('https://slack.com/api');
    expect(env.SMTP_URL).toBeUndefined();
    expect(env.EARSHOT_DELIVERY_CONCURRENCY).toBe(256);
  });

  it('names each malformed delivery variable', () => {
    expect(
      problems({
        SMTP_URL: 'mail.example.com',
        EARSHOT_SECRETS_KEY: 'too-short',
        EARSHOT_DELIVERY_RETRY_SCHEDULE: '5 minutes',
        EARSHOT_OUTBOUND_ALLOWLIST: 'localhost',
        EARSHOT_DELIVERY_CONCURRENCY: '0',
      }).sort(),
    ).toEqual(
      [
        'EARSHOT_DELIVERY_CONCURRENCY',
        'EARSHOT_DELIVERY_RETRY_SCHEDULE',
        'EARSHOT_OUTBOUND_ALLOWLIST',
        'EARSHOT_SECRETS_KEY',
        'SMTP_URL',
      ].sort(),
    );
    expect(
      problems({ EARSHOT_DELIVERY_RETRY_SCHEDULE: '0s, 500ms,1.5s', SMTP_URL: 'smtps://u:p@mx:465' }),
    ).toEqual([]);
  });

  it('refuses an allowlist that is not a list of CIDRs, naming the variable', () => {
    const config = loadConfig({
      EARSHOT_OUTBOUND_ALLOWLIST: '10.0.0.0/33',
      EARSHOT_SECRETS_KEY: Buffer.alloc(32).toString('base64'),
    });
    const state = {} as StateStore;
    const err = (() => {
      try {
        createDelivery(config, state, new CatalogReader(state));
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems[0]!.variable).toBe('EARSHOT_OUTBOUND_ALLOWLIST');
  });
});
