import { InvalidArgumentError } from 'commander';

/** Command-line argument parsers shared by the `earshot` commands. */

export function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

export function timestamp(value: string): number {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new InvalidArgumentError('expected an ISO 8601 date-time');
  return t;
}
