import fs from 'node:fs';
import path from 'node:path';
import { CLICKHOUSE_SCHEMA_DIR, splitStatements } from './analytics-store.ts';

/**
 * The tables the analytics projectors write, with their columns and sorting keys read from the
 * one place they are declared: the `CREATE TABLE` statements of `schemas/clickhouse/NNN_*.sql`.
 * Rows are arrays in that column order (rows.ts, episode-sets.ts).
 */
export const TABLE_NAMES = [
  'publishers',
  'podcasts',
  'entities',
  'episodes',
  'transcript_lines',
  'transcript_words',
  'episode_speakers',
  'segments',
  'segment_topics',
  'clips',
  'mention_lines',
  'entity_episodes',
  'ad_reads',
  'chart_rows',
  'bias_evaluations',
  'rating_snapshots',
  'episode_mention_lines',
  'episode_dates',
  'guest_appearances',
  'podcast_guest_appearances',
  'guest_totals',
  'sponsor_totals',
  'sponsor_ad_reads',
  'topic_episode_entities',
  'topic_days',
  'podcast_topic_days',
  'topic_podcasts',
  'sponsor_episodes',
] as const;
export type TableName = (typeof TABLE_NAMES)[number];

export interface TableShape {
  columns: readonly string[];
  /** The `ORDER BY` columns: what identifies a row (a deletion marker repeats them). */
  sortingKey: readonly string[];
}

// `ORDER BY` ends the statement, or a `SETTINGS` clause follows it.
const CREATE_TABLE =
  /^CREATE TABLE (?:IF NOT EXISTS )?(\w+) \(([\s\S]*)\) ENGINE\b[\s\S]*\bORDER BY (.+?)(?:\s+SETTINGS\b[\s\S]*)?$/;

/**
 * Every table the migrations in `dir` create, in file order. A migration that alters a table
 * after creating it is refused here rather than misread: teach this function the statement first.
 */
export function readTableShapes(dir = CLICKHOUSE_SCHEMA_DIR): Map<string, TableShape> {
  const shapes = new Map<string, TableShape>();
  const files = fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  for (const file of files) {
    for (const statement of splitStatements(fs.readFileSync(path.join(dir, file), 'utf8'))) {
      if (/^ALTER TABLE\b/i.test(statement)) {
        throw new Error(`${file}: ALTER TABLE is not read by projections/analytics/tables.ts yet`);
      }
      const create = CREATE_TABLE.exec(statement);
      if (!create) continue;
      const [, name, body, orderBy] = create;
      const columns = body!
        .split('\n')
        .map((line) => line.trim().replace(/,$/, ''))
        .filter((line) => line.length > 0 && !/^INDEX\b/.test(line))
        .map((line) => line.split(/\s+/)[0]!);
      const sortingKey = orderBy!
        .trim()
        .replace(/^\((.*)\)$/, '$1')
        .split(',')
        .map((c) => c.trim());
      shapes.set(name!, { columns, sortingKey });
    }
  }
  return shapes;
}

const SHAPES = readTableShapes();

function shapeOf(table: TableName): TableShape {
  const shape = SHAPES.get(table);
  if (!shape) throw new Error(`no migration in schemas/clickhouse creates the table ${table}`);
  return shape;
}

/** Each table's columns, in the order rows carry their values. */
export const TABLES = Object.fromEntries(TABLE_NAMES.map((t) => [t, shapeOf(t).columns])) as Record<
  TableName,
  readonly string[]
>;

// The ad-read set writes one encoding of its rows to both tables.
if (TABLES.sponsor_ad_reads.join() !== TABLES.ad_reads.join()) {
  throw new Error('sponsor_ad_reads must have the columns of ad_reads, in their order');
}

/** Each table's sorting key. */
export const SORTING_KEYS = Object.fromEntries(TABLE_NAMES.map((t) => [t, shapeOf(t).sortingKey])) as Record<
  TableName,
  readonly string[]
>;

/** Episode-scoped record sets and the tables each writes. */
export const SET_TABLES = {
  mentions: ['mention_lines', 'entity_episodes', 'episode_mention_lines'],
  speakers: ['episode_speakers', 'guest_appearances', 'podcast_guest_appearances'],
  transcript: ['transcript_lines', 'transcript_words'],
  segments: ['segments', 'segment_topics'],
  clips: ['clips'],
  ad_reads: ['ad_reads', 'sponsor_ad_reads'],
} as const satisfies Record<string, readonly TableName[]>;

export type SetKind = keyof typeof SET_TABLES;
