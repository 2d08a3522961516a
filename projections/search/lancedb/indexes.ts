import { Index, type Table } from '@lancedb/lancedb';
import type { StoreTable } from './tables.ts';

/** The scalar, full-text and vector indexes of the LanceDB tables. */

type Tables = (name: StoreTable) => Table;

export async function ensureScalarIndexes(table: Tables): Promise<void> {
  const wanted: [StoreTable, string, Index][] = [
    ['lines', 'episode_id', Index.btree()],
    ['lines', 'entity_keys', Index.labelList()],
    ['passages', 'id', Index.btree()],
    ['passages', 'episode_id', Index.btree()],
    ['passage_vectors', 'episode_id', Index.btree()],
    ['passage_vectors', 'entity_keys', Index.labelList()],
    ['segments', 'id', Index.btree()],
    ['segments', 'episode_id', Index.btree()],
    ['segments', 'entity_keys', Index.labelList()],
    ['segments', 'segment_entity_keys', Index.labelList()],
    ['clips', 'id', Index.btree()],
    ['clips', 'episode_id', Index.btree()],
    ['clips', 'clip_entity_keys', Index.labelList()],
    ['clip_vectors', 'episode_id', Index.btree()],
    ['clip_vectors', 'clip_entity_keys', Index.labelList()],
    ['episodes', 'id', Index.btree()],
    ['episodes', 'entity_keys', Index.labelList()],
    ['names', 'id', Index.btree()],
    ['parts', 'episode_id', Index.btree()],
  ];
  for (const [tableName, column, config] of wanted) {
    await ensureIndex(table(tableName), column, config);
  }
}

async function ensureIndex(table: Table, column: string, config: Index): Promise<void> {
  const indices = await table.listIndices();
  if (indices.some((i) => i.columns.length === 1 && i.columns[0] === column)) return;
  // Scalar and full-text indexes can be built on an empty table; vector indexes need data.
  await table.createIndex(column, { config, replace: false });
}

/**
 * The full-text indexes. Lines and names are written already analysed (text-analysis.ts: their
 * words, space separated) and so are queries, so the index only splits at spaces: the same tokens
 * as on OpenSearch. (Its byte limit stays above the analyser's 40 characters of any script.)
 */
export async function ensureTextIndexes(table: Tables): Promise<void> {
  const fts = () =>
    Index.fts({
      withPosition: true,
      baseTokenizer: 'whitespace',
      lowercase: false,
      asciiFolding: false,
      stem: false,
      removeStopWords: false,
      maxTokenLength: 160,
    });
  await ensureIndex(table('lines'), 'text', fts());
  await ensureIndex(table('names'), 'names', fts());
  await ensureIndex(
    table('names'),
    'prefixes',
    Index.fts({
      withPosition: false,
      baseTokenizer: 'whitespace',
      lowercase: false,
      stem: false,
      removeStopWords: false,
      asciiFolding: false,
    }),
  );
}

/**
 * Trains the ANN index of a vector table once it holds `minRows` vectors, and again (replacing
 * it) each time the table has grown fourfold since `trainedOn`: partitions trained on a small
 * sample fit a grown table poorly. In between, refreshes add new rows to the existing partitions.
 * Answers the rows it was trained on when it trained.
 */
export async function trainVectorIndex(
  table: Table,
  minRows: number,
  trainedOn: number,
): Promise<number | undefined> {
  const indices = await table.listIndices();
  const existing = indices.find((i) => i.columns[0] === 'vector');
  const rows = await table.countRows();
  if (rows < minRows) return undefined;
  if (existing && rows < trainedOn * 4) return undefined;
  await table.createIndex('vector', {
    replace: true,
    config: Index.hnswSq({
      distanceType: 'dot',
      numPartitions: Math.max(1, Math.round(Math.sqrt(rows) / 8)),
    }),
  });
  return rows;
}
