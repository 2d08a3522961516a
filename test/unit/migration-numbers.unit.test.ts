import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Migrations apply in file-name order. Two branches that each took the next free number would
// both land, in an order decided by the rest of their names: one number per file keeps the order
// the authors meant and readable.
describe('migration files', () => {
  for (const dir of ['schemas/postgres', 'schemas/clickhouse']) {
    it(`${dir}: every number is used once, with none skipped`, () => {
      const numbers = fs
        .readdirSync(path.resolve(dir))
        .filter((f) => f.endsWith('.sql'))
        .map((f) => Number(f.slice(0, 3)))
        .sort((a, b) => a - b);
      expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    });
  }
});
