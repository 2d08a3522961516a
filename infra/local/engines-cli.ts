// npx tsx infra/local/engines-cli.ts up|down|status|env|verify [--only kafka,postgres] [--dir .engines]

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type EngineName,
  type EngineStatus,
  enginesDown,
  enginesEnv,
  enginesStatus,
  enginesUp,
} from './engines.ts';
import { enginesSmoke } from './smoke.ts';

const USAGE =
  'usage: earshot engines up|down|status|env [--only kafka,schema-registry,opensearch,postgres] [--dir DIR]';

function parse(argv: string[]): { command: string; only?: EngineName[]; dir?: string } {
  const [command = '', ...rest] = argv;
  const out: { command: string; only?: EngineName[]; dir?: string } = { command };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    const value = rest[i + 1];
    if (arg === '--only' && value) {
      out.only = value.split(',').map((s) => s.trim() as EngineName);
      i++;
    } else if (arg === '--dir' && value) {
      out.dir = value;
      i++;
    } else {
      throw new Error(`unexpected argument '${arg}'\n${USAGE}`);
    }
  }
  return out;
}

function table(statuses: EngineStatus[]): string {
  const rows = statuses.map((s) => [
    s.name,
    s.running ? 'up' : 'down',
    s.pid?.toString() ?? '-',
    s.url,
    s.version,
    s.startupMs !== undefined ? `${(s.startupMs / 1000).toFixed(1)} s` : '-',
    s.rssMb !== undefined ? `${s.rssMb} MB` : '-',
  ]);
  const all = [['engine', 'state', 'pid', 'url', 'version', 'start-up', 'rss'], ...rows];
  const widths = all[0]!.map((_, c) => Math.max(...all.map((r) => r[c]!.length)));
  return all.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')).join('\n');
}

/** `earshot engines <args>` and `npx tsx infra/local/engines-cli.ts <args>`. */
export async function runEnginesCli(argv: string[]): Promise<void> {
  const { command, only, dir } = parse(argv);
  const t0 = Date.now();
  const onProgress = (msg: string) =>
    console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${msg}`);
  const base = { ...(dir ? { dir } : {}), ...(only ? { only } : {}) };
  switch (command) {
    case 'up': {
      const statuses = await enginesUp({ ...base, onProgress });
      console.log(`\n${table(statuses)}\n`);
      for (const [k, v] of Object.entries(enginesEnv(dir))) console.log(`export ${k}=${v}`);
      return;
    }
    case 'down':
      await enginesDown({ ...base, onProgress });
      return;
    case 'status':
      console.log(table(await enginesStatus(dir ? { dir } : {})));
      return;
    case 'env':
      for (const [k, v] of Object.entries(enginesEnv(dir))) console.log(`export ${k}=${v}`);
      return;
    case 'verify': {
      const results = await enginesSmoke(enginesEnv(dir));
      if (results.length === 0) throw new Error('no engines running (run `up` first)');
      for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.engine}: ${r.detail}`);
      if (results.some((r) => !r.ok)) process.exitCode = 1;
      return;
    }
    default:
      throw new Error(USAGE);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  runEnginesCli(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
