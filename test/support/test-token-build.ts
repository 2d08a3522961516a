import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';

/**
 * The EIP-3009 test token (`chain/TestUsd.sol`) compiled with solc-js (WebAssembly). The output
 * is kept in a file named by the hash of the compiler's version and its whole input (source and
 * settings), so the payment test files of a run, and later runs, do not compile it again (about
 * 2 CPU-seconds each); a changed source or compiler compiles anew. Vitest's global setup builds
 * it once per run before any file starts.
 */
const require = createRequire(import.meta.url);
const HERE = path.dirname(fileURLToPath(import.meta.url));
export const TOKEN_SOURCE = path.join(HERE, 'chain', 'TestUsd.sol');

export interface TokenBuild {
  abi: Abi;
  bytecode: Hex;
}

function compilerInput(): string {
  return JSON.stringify({
    language: 'Solidity',
    sources: { 'TestUsd.sol': { content: fs.readFileSync(TOKEN_SOURCE, 'utf8') } },
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  });
}

function buildFile(input: string): string {
  const { version } = require('solc/package.json') as { version: string };
  const hash = createHash('sha256').update(`${version}\n${input}`).digest('hex').slice(0, 16);
  return path.join(process.env['EARSHOT_TEST_CACHE_DIR'] || tmpdir(), `earshot-test-token-${hash}.json`);
}

let built: TokenBuild | undefined;

/** The test token's ABI and bytecode: from the build file when there is one, else compiled. */
export function buildTestToken(): TokenBuild {
  if (built) return built;
  const input = compilerInput();
  const file = buildFile(input);
  if (fs.existsSync(file)) {
    built = JSON.parse(fs.readFileSync(file, 'utf8')) as TokenBuild;
    return built;
  }
  const solc = require('solc') as { compile(input: string): string };
  const output = JSON.parse(solc.compile(input)) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const contract = output.contracts['TestUsd.sol']!.TestUsd!;
  built = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  const partial = `${file}.${process.pid}`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(partial, JSON.stringify(built));
  fs.renameSync(partial, file);
  return built;
}
