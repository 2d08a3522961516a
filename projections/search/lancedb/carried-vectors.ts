import fs from 'node:fs';
import path from 'node:path';
import type { Connection, Table } from '@lancedb/lancedb';
import * as lancedb from '@lancedb/lancedb';
import { Index } from '@lancedb/lancedb';
import { Field, Schema, Utf8 } from 'apache-arrow';
import { chunks } from '../index-rows.ts';
import type { VectorModel } from '../search-index.ts';
import { inList } from './filters.ts';
import { META_FILE, type Meta, VECTORS, type VectorRow, vectorField, vectorRows } from './tables.ts';

/**
 * Vectors kept aside through a rebuild of the search index (`earshot projections rebuild search`).
 *
 * A rebuild empties the index and the projector writes it again from the log, without vectors;
 * the vector filler then gives every passage and clip its vector. Embedding a large index again
 * takes hours, though a rebuild (a new layout, a repaired projection) rarely changes the texts. So
 * the rebuild moves the vector tables aside as `carried_*` tables with the model they came from,
 * and the filler takes a row's vector from them when its key (a hash of the exact text, passages.ts
 * and vectors.ts) is there and the model is the one it runs, before asking the model. Nothing
 * searches the carried tables: a vector reaches search only through a row the rebuild wrote. The
 * search runtime drops them once the rebuilt index has every vector (search-runtime.ts).
 */

/** Carried tables are named `carried_<n>_<vector table>`; one rebuild after another adds a generation. */
const CARRIED_PREFIX = 'carried_';
const CARRY_FILE = 'carried-vectors.json';

const tableDir = (dir: string, name: string) => path.join(dir, `${name}.lance`);
const isCarried = (name: string) => name.startsWith(CARRIED_PREFIX);

/**
 * Empties the LanceDB index in `dir` for a rebuild, keeping its vectors aside when its meta names
 * the model they came from: the vector tables that hold rows become carried tables, beside those
 * of earlier rebuilds of the same model (a rebuild run again before the filler finished keeps
 * both). Says what it did.
 */
export async function clearKeepingVectors(dir: string): Promise<string> {
  if (!fs.existsSync(dir)) return `nothing to delete in ${dir}`;
  const meta = readJson<Meta>(path.join(dir, META_FILE));
  const earlier = readJson<VectorModel>(path.join(dir, CARRY_FILE));
  const db = await lancedb.connect(dir);
  const keep: [from: string, to: string][] = [];
  /** The vector tables moved aside by this rebuild, to be reduced to one row per key. */
  const fresh: string[] = [];
  let generation = 0;
  let carried: VectorModel | undefined;
  try {
    const names = await db.tableNames();
    const withRows: string[] = [];
    for (const name of Object.values(VECTORS)) {
      if (!names.includes(name)) continue;
      const table = await db.openTable(name);
      if ((await table.countRows()) > 0) withRows.push(name);
      table.close();
    }
    const model =
      meta?.model && meta.dimensions ? { model: meta.model, dimensions: meta.dimensions } : undefined;
    const sameModel = (a?: VectorModel, b?: VectorModel) =>
      !!a && !!b && a.model === b.model && a.dimensions === b.dimensions;
    // Earlier carried tables stay when nothing new replaces them, or when the new ones add to them.
    if (earlier && (withRows.length === 0 || sameModel(earlier, model))) {
      carried = earlier;
      for (const name of names.filter(isCarried)) keep.push([name, name]);
    }
    if (withRows.length > 0 && model) {
      carried = model;
      generation = Math.max(0, ...keep.map(([name]) => Number(name.split('_')[1]) || 0)) + 1;
      for (const name of withRows) {
        const raw = `${CARRIED_PREFIX}${generation}_raw_${name}`;
        keep.push([name, raw]);
        fresh.push(raw);
      }
    }
  } finally {
    db.close();
  }
  if (!carried || keep.length === 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    return `deleted ${dir}`;
  }
  // The kept tables move to a sibling folder, the index folder goes, and the sibling takes its place.
  const aside = `${dir}.rebuild-${process.pid}`;
  fs.rmSync(aside, { recursive: true, force: true });
  fs.mkdirSync(aside, { recursive: true });
  for (const [from, to] of keep) fs.renameSync(tableDir(dir, from), tableDir(aside, to));
  fs.writeFileSync(path.join(aside, CARRY_FILE), JSON.stringify(carried));
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(aside, dir);
  const moved = await lancedb.connect(dir);
  try {
    // The same text is in many passages (an intro, an ad read; hundreds of times in a large
    // index): the moved tables become one table with one row per key, so a lookup reads each
    // vector once. Cut short, the moved tables stay carried as they are (slower, still right).
    if (fresh.length > 0) {
      await onePerKey(moved, fresh, `${CARRIED_PREFIX}${generation}_vectors`, carried.dimensions);
    }
    let vectors = 0;
    for (const name of (await moved.tableNames()).filter(isCarried)) {
      const table = await moved.openTable(name);
      vectors += await table.countRows();
      table.close();
    }
    return `deleted ${dir}, keeping ${vectors} vectors of ${carried.model} aside for the rebuild`;
  } finally {
    moved.close();
  }
}

/** Copies the first row of each key of `sources` into `target` (indexed by key), then drops `sources`. */
async function onePerKey(
  db: Connection,
  sources: string[],
  target: string,
  dimensions: number,
): Promise<void> {
  const schema = new Schema([new Field('vector_key', new Utf8(), false), vectorField(dimensions)]);
  const seen = new Set<string>();
  let out: Table | undefined;
  let rows: VectorRow[] = [];
  const flush = async () => {
    if (rows.length === 0) return;
    const data = vectorRows(schema, rows);
    if (out) await out.add(data);
    else out = await db.createTable(target, data);
    rows = [];
  };
  try {
    for (const name of sources) {
      const source = await db.openTable(name);
      try {
        for await (const batch of source.query().select(['vector_key', 'vector'])) {
          const keys = batch.getChild('vector_key')!;
          const vectors = batch.getChild('vector')!;
          for (let i = 0; i < batch.numRows; i++) {
            const key = keys.get(i) as string | null;
            if (!key || seen.has(key)) continue;
            seen.add(key);
            rows.push({
              id: key,
              vector_key: key,
              vector: Float32Array.from(vectors.get(i).toArray() as Float32Array),
            });
            if (rows.length >= 10_000) await flush();
          }
        }
      } finally {
        source.close();
      }
    }
    await flush();
    await out?.createIndex('vector_key', { config: Index.btree(), replace: false });
  } finally {
    out?.close();
  }
  for (const name of sources) await db.dropTable(name);
}

/** The carried tables of an open index, when it has them. */
export class CarriedVectors {
  private constructor(
    private readonly db: Connection,
    private readonly dir: string,
    private readonly meta: VectorModel,
    private tables: Table[],
  ) {}

  static async open(db: Connection, dir: string, existing: Set<string>): Promise<CarriedVectors | undefined> {
    const meta = readJson<VectorModel>(path.join(dir, CARRY_FILE));
    const names = [...existing].filter(isCarried);
    if (!meta || names.length === 0) return undefined;
    const tables = await Promise.all(names.map((name) => db.openTable(name)));
    return new CarriedVectors(db, dir, meta, tables);
  }

  /** The carried vectors of these keys, when they came from `model` with `dimensions`. */
  async lookup(model: string, dimensions: number, keys: string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    if (this.meta.model !== model || this.meta.dimensions !== dimensions) return out;
    const tables = this.tables;
    try {
      for (const part of chunks([...new Set(keys)], 500)) {
        for (const table of tables) {
          const rows = await table
            .query()
            .where(inList('vector_key', part))
            .select(['vector_key', 'vector'])
            .toArray();
          for (const r of rows) out.set(r.vector_key, Float32Array.from(r.vector.toArray() as Float32Array));
        }
      }
    } catch (err) {
      // Dropped meanwhile (the index got its last vector): nothing is carried any more.
      if (this.tables !== tables) return new Map();
      throw err;
    }
    return out;
  }

  /** Drops the carried tables; returns how many vectors they held. */
  async drop(): Promise<number> {
    const tables = this.tables;
    this.tables = [];
    let vectors = 0;
    for (const table of tables) {
      vectors += await table.countRows();
      const name = table.name;
      table.close();
      await this.db.dropTable(name);
    }
    fs.rmSync(path.join(this.dir, CARRY_FILE), { force: true });
    return vectors;
  }

  close(): void {
    for (const table of this.tables) table.close();
  }
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}
