// Writes the environment-variable table of docs/configuration.md from the config schema.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withConfigTable } from '../infra/config-docs.ts';

const page = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'configuration.md');
const before = readFileSync(page, 'utf8');
const after = withConfigTable(before);
if (after === before) console.log('docs/configuration.md is current');
else {
  writeFileSync(page, after);
  console.log('docs/configuration.md rewritten from infra/config.ts');
}
