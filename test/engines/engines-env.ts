import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Points the engine suites at the engines `npm run engines:up` started (recorded in
 * .engines/env.json), unless the environment already names them.
 */
const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../.engines/env.json');
if (fs.existsSync(file)) {
  const env = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  for (const [k, v] of Object.entries(env)) process.env[k] ??= v;
}

/** A one-line reason to skip a suite when its engine is not configured. */
export function missing(variable: string): string | undefined {
  return process.env[variable] ? undefined : `${variable} is unset: run \`npm run engines:up\` or set it`;
}
