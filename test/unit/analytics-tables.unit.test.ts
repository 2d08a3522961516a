import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readTableShapes, TABLE_NAMES, TABLES } from '../../projections/analytics/tables.ts';
import { tempDir } from '../support/temp-dir.ts';

describe('analytics tables read from the DDL', () => {
  let tmp: ReturnType<typeof tempDir> | undefined;
  afterEach(() => tmp?.remove());

  it('takes columns in order and the sorting key, past comments, indexes and other statements', () => {
    tmp = tempDir();
    fs.writeFileSync(
      path.join(tmp.dir, '001_a.sql'),
      `-- a comment
CREATE TABLE IF NOT EXISTS things (
  id String,
  -- what the thing is called
  name LowCardinality(String),
  at DateTime64(3, 'UTC'),
  version UInt64,
  INDEX name_idx name TYPE bloom_filter(0.01) GRANULARITY 4
) ENGINE = ReplacingMergeTree(version)
ORDER BY (at, id);

CREATE VIEW IF NOT EXISTS named AS SELECT id FROM things FINAL;

CREATE TABLE IF NOT EXISTS one (
  id String
) ENGINE = ReplacingMergeTree
ORDER BY id;

CREATE TABLE IF NOT EXISTS tuned (
  k String,
  at DateTime64(3, 'UTC')
) ENGINE = ReplacingMergeTree
ORDER BY (k, at)
SETTINGS index_granularity = 1024;
`,
    );
    fs.writeFileSync(path.join(tmp.dir, 'README.md'), 'not a migration');
    expect(Object.fromEntries(readTableShapes(tmp.dir))).toEqual({
      things: { columns: ['id', 'name', 'at', 'version'], sortingKey: ['at', 'id'] },
      one: { columns: ['id'], sortingKey: ['id'] },
      tuned: { columns: ['k', 'at'], sortingKey: ['k', 'at'] },
    });
  });

  it('refuses a migration that alters a table rather than misreading it', () => {
    tmp = tempDir();
    fs.writeFileSync(
      path.join(tmp.dir, '001_a.sql'),
      'CREATE TABLE t (id String) ENGINE = Log ORDER BY id;\n',
    );
    fs.writeFileSync(path.join(tmp.dir, '002_b.sql'), 'ALTER TABLE t ADD COLUMN name String;\n');
    expect(() => readTableShapes(tmp!.dir)).toThrow(/002_b\.sql: ALTER TABLE/);
  });

  it('has every table the projectors write, each with a version column', () => {
    for (const table of TABLE_NAMES) expect(TABLES[table]).toContain('version');
  });
});
