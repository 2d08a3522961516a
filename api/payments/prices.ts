import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The one price table: what each payable REST operation and agent tool costs, in whole US
 * cents. It drives the 402 terms, `x-payment-info` in `/openapi.json` and `/.well-known/x402`.
 * An operation is keyed `METHOD /path` with the OpenAPI path (`/v1/podcasts/{id}`); a tool by its
 * name. What is not in the table is not payable per request (alerts, account management,
 * Enterprise-only surfaces): it needs an account.
 */
export interface PriceTable {
  operations: Readonly<Record<string, number>>;
  tools: Readonly<Record<string, number>>;
}

/** Base mainnet: where payments are taken unless configured otherwise. */
export const DEFAULT_NETWORK = 'eip155:8453';

/** The defaults, `api/payments/prices.json` (`EARSHOT_PRICES_FILE` replaces them). */
export const DEFAULT_PRICES_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'prices.json');

const OPERATION_KEY = /^(GET|POST|PUT|PATCH|DELETE|QUERY) \/v1\/[A-Za-z0-9_{}./-]+$/;
const TOOL_KEY = /^[A-Za-z0-9_.-]{1,64}$/;

/** Operations that are never payable per request, whatever a table says. */
const NEVER_PAYABLE = [
  /^\w+ \/v1\/(alerts|monitors|api-keys|organizations|projects|notification-emails|ingest|embed)(\/|$)/,
  /^\w+ \/v1\/podcasts\/episodes\/(stream|archive)(\/|$)/,
];

export class PriceTableError extends Error {
  constructor(readonly problems: string[]) {
    super(`price table: ${problems.join('; ')}`);
    this.name = 'PriceTableError';
  }
}

/** Checks a table read from JSON: whole cents from 1, keys of the right shape, nothing unpayable. */
export function parsePriceTable(input: unknown): PriceTable {
  const problems: string[] = [];
  const table = (input ?? {}) as Record<string, unknown>;
  const read = (section: 'operations' | 'tools', key: RegExp): Record<string, number> => {
    const raw = table[section] ?? {};
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      problems.push(`${section} must be an object`);
      return {};
    }
    const out: Record<string, number> = {};
    for (const [name, cents] of Object.entries(raw as Record<string, unknown>)) {
      if (!key.test(name)) problems.push(`${section}: "${name}" is not a valid key`);
      else if (section === 'operations' && NEVER_PAYABLE.some((re) => re.test(name)))
        problems.push(`operations: "${name}" cannot be paid per request`);
      else if (typeof cents !== 'number' || !Number.isInteger(cents) || cents < 1)
        problems.push(`${section}: "${name}" must cost a whole number of cents, at least 1`);
      else out[name] = cents;
    }
    return out;
  };
  const operations = read('operations', OPERATION_KEY);
  const tools = read('tools', TOOL_KEY);
  for (const extra of Object.keys(table).filter((k) => k !== 'operations' && k !== 'tools'))
    problems.push(`unknown section "${extra}"`);
  if (problems.length > 0) throw new PriceTableError(problems);
  return { operations, tools };
}

/** Reads and checks a price table file. */
export function loadPriceTable(file = DEFAULT_PRICES_FILE): PriceTable {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new PriceTableError([`cannot read ${file}: ${(err as Error).message}`]);
  }
  return parsePriceTable(json);
}

/** `/v1/podcasts/:id` → `/v1/podcasts/{id}` */
export function openapiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export function operationKey(method: string, routeUrl: string): string {
  return `${method.toUpperCase()} ${openapiPath(routeUrl)}`;
}

/** The price of a route (its method and the pattern the router matched), if it is payable. */
export function operationPrice(table: PriceTable, method: string, routeUrl: string): number | undefined {
  return table.operations[operationKey(method, routeUrl)];
}

/**
 * Checks the table's `tools` section against the tools a server has (name and the REST operation
 * each calls): every priced tool must exist, and a tool whose operation can never be paid per
 * request (the alert tools) cannot be priced. Throws a PriceTableError naming each problem.
 */
export function checkToolPrices(
  table: PriceTable,
  tools: readonly { name: string; method: string; path: string }[],
): void {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const problems: string[] = [];
  for (const name of Object.keys(table.tools)) {
    const tool = byName.get(name);
    if (!tool) problems.push(`tools: "${name}" is no agent tool`);
    else if (NEVER_PAYABLE.some((re) => re.test(operationKey(tool.method, tool.path))))
      problems.push(`tools: "${name}" cannot be paid per call (it needs an account)`);
  }
  if (problems.length > 0) throw new PriceTableError(problems);
}
