import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EnvSchema } from '../../infra/config.ts';
import { configTable, withConfigTable } from '../../infra/config-docs.ts';

const page = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../docs/configuration.md');

describe('docs/configuration.md', () => {
  it('is the table generated from the config schema (run `npm run docs:config` when this fails)', () => {
    const text = readFileSync(page, 'utf8');
    expect(withConfigTable(text)).toBe(text);
  });

  it('describes every variable the schema declares', () => {
    for (const [name, schema] of Object.entries(EnvSchema.properties)) {
      expect((schema as { description?: string }).description, name).toMatch(/\S{3}/);
      expect(configTable()).toContain(`| \`${name}\` |`);
    }
  });

  it('notices a stale page', () => {
    const text = readFileSync(page, 'utf8').replace('| `PORT` | `8080` |', '| `PORT` | `80` |');
    expect(withConfigTable(text)).not.toBe(text);
  });
});
