/**
 * Writes TypeScript types for every Avro schema into schemas/generated/, so that event
 * payloads are typed from the one source of truth. Run with `npm run schemas:types`;
 * a unit test fails when the generated files are stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { toTypeScript } from '@ovotech/avro-ts';
import { loadSchema, SCHEMA_NAMES } from './avro-schemas.ts';

export const GENERATED_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'generated');

export function renderTypes(): Map<string, string> {
  const files = new Map<string, string>();
  const header = '// Generated from schemas/avro by `npm run schemas:types`. Do not edit.\n';
  for (const name of SCHEMA_NAMES) {
    const ts = toTypeScript(JSON.parse(loadSchema(name).text)).replace(
      '/* eslint-disable @typescript-eslint/no-namespace */\n',
      '',
    );
    files.set(`${name}.ts`, header + ts);
  }
  files.set(
    'index.ts',
    header + SCHEMA_NAMES.map((n) => `export type { ${n} } from './${n}.ts';`).join('\n') + '\n',
  );
  return files;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  fs.mkdirSync(GENERATED_DIR, { recursive: true });
  for (const [file, text] of renderTypes()) fs.writeFileSync(path.join(GENERATED_DIR, file), text);
  console.log(`wrote ${SCHEMA_NAMES.length} schema types to ${GENERATED_DIR}`);
}
