import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, dashboardUrlOf, loadConfig } from '../../infra/config.ts';

describe('configuration', () => {
  it('uses embedded engines under ./data when nothing is set', () => {
    const cfg = loadConfig({});
    expect(cfg.dataDir).toBe(path.resolve('data'));
    expect(cfg.env.PORT).toBe(8080);
    expect(cfg.env.KAFKA_BROKERS).toBeUndefined();
    expect([...cfg.roles].sort()).toEqual(['api', 'ingest', 'mcp', 'processors', 'projectors', 'senders']);
  });

  it('reads and converts values', () => {
    const cfg = loadConfig({
      PORT: '9000',
      KAFKA_BROKERS: 'a:9092,b:9092',
      EARSHOT_ROLES: 'api,senders',
      DATABASE_URL: 'postgres://u@h/db',
    });
    expect(cfg.env.PORT).toBe(9000);
    expect(cfg.env.KAFKA_BROKERS).toBe('a:9092,b:9092');
    expect([...cfg.roles].sort()).toEqual(['api', 'senders']);
  });

  it('names every offending variable with what was expected', () => {
    try {
      loadConfig({
        PORT: 'eighty',
        SCHEMA_REGISTRY_URL: 'not a url',
        LOG_LEVEL: 'loud',
        EARSHOT_ROLES: 'api,cooking',
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.map((p) => p.variable).sort();
      expect(problems).toEqual(['LOG_LEVEL', 'PORT', 'SCHEMA_REGISTRY_URL']);
      expect((err as ConfigError).message).toMatch(/LOG_LEVEL="loud": expected one of fatal, error/);
      expect((err as ConfigError).message).toMatch(
        /SCHEMA_REGISTRY_URL="not a url": expected an absolute URL/,
      );
    }
    expect(() => loadConfig({ EARSHOT_ROLES: 'api,cooking' })).toThrow(/EARSHOT_ROLES/);
  });

  it('puts the dashboard under the public URL unless its own address is set', () => {
    expect(dashboardUrlOf(loadConfig({ PORT: '9000' }))).toBe('http://127.0.0.1:9000/dashboard');
    expect(dashboardUrlOf(loadConfig({ EARSHOT_PUBLIC_URL: 'https://api.example.com/' }))).toBe(
      'https://api.example.com/dashboard',
    );
    expect(dashboardUrlOf(loadConfig({ EARSHOT_DASHBOARD_URL: 'https://app.example.com/' }))).toBe(
      'https://app.example.com',
    );
  });

  it('needs both the client id and the secret of the team-chat app, or neither', () => {
    expect(() => loadConfig({ EARSHOT_CHAT_CLIENT_ID: '1.2' })).toThrow(/EARSHOT_CHAT_CLIENT_SECRET/);
    expect(() => loadConfig({ EARSHOT_CHAT_CLIENT_SECRET: 's' })).toThrow(/EARSHOT_CHAT_CLIENT_ID/);
    const cfg = loadConfig({ EARSHOT_CHAT_CLIENT_ID: '1.2', EARSHOT_CHAT_CLIENT_SECRET: 's' });
    expect(cfg.env.EARSHOT_CHAT_AUTHORIZE_URL).toBe('https://slack.com/oauth/v2/authorize');
  });
});
