import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type avro from 'avsc';
import { open, type RootDatabase } from 'lmdb';
import { backwardIncompatibility, normaliseSchema, parseAvro } from './avro-compatibility.ts';
import {
  IncompatibleSchemaError,
  InvalidSchemaError,
  type RegisteredVersion,
  type SchemaRegistry,
  UnknownSchemaError,
} from './schema-registry.ts';

interface SubjectVersion {
  id: number;
  version: number;
}

/**
 * Embedded, file-backed registry. Registrations run inside one LMDB write transaction, so
 * several processes sharing the data dir agree on ids.
 */
export class LmdbSchemaRegistry implements SchemaRegistry {
  readonly kind = 'embedded';
  private readonly root: RootDatabase;
  private readonly schemas;
  private readonly subjects;
  private readonly byText;
  private readonly counters;
  private readonly schemaCache = new Map<number, string>();

  constructor(dir: string) {
    fs.mkdirSync(dir, { recursive: true });
    this.root = open({ path: dir, maxDbs: 8 });
    this.schemas = this.root.openDB<string, number>({ name: 'schemas' });
    this.subjects = this.root.openDB<SubjectVersion[], string>({ name: 'subjects' });
    this.byText = this.root.openDB<number, string>({ name: 'schema-ids-by-sha256' });
    this.counters = this.root.openDB<number, string>({ name: 'counters' });
  }

  async register(subject: string, schema: string): Promise<number> {
    let text: string;
    let next: avro.Type;
    try {
      text = normaliseSchema(schema);
      next = parseAvro(text);
    } catch (err) {
      throw new InvalidSchemaError(subject, (err as Error).message);
    }
    const digest = createHash('sha256').update(text).digest('hex');
    const known = this.byText.get(digest);
    if (known !== undefined && this.subjects.get(subject)?.some((v) => v.id === known)) return known;
    return this.root.transaction(() => {
      const versions = this.subjects.get(subject) ?? [];
      let id = this.byText.get(digest);
      if (id !== undefined && versions.some((v) => v.id === id)) return id;
      const latest = versions.at(-1);
      if (latest) {
        const reason = backwardIncompatibility(next, parseAvro(this.schemas.get(latest.id)!));
        if (reason) throw new IncompatibleSchemaError(subject, reason);
      }
      if (id === undefined) {
        id = (this.counters.get('next-id') ?? 0) + 1;
        this.counters.put('next-id', id);
        this.schemas.put(id, text);
        this.byText.put(digest, id);
      }
      this.subjects.put(subject, [...versions, { id, version: (latest?.version ?? 0) + 1 }]);
      return id;
    });
  }

  async getSchema(id: number): Promise<string> {
    let schema = this.schemaCache.get(id);
    if (schema === undefined) {
      schema = this.schemas.get(id);
      if (schema === undefined) throw new UnknownSchemaError(id);
      this.schemaCache.set(id, schema);
    }
    return schema;
  }

  async latestVersion(subject: string): Promise<RegisteredVersion | undefined> {
    const latest = this.subjects.get(subject)?.at(-1);
    if (!latest) return undefined;
    return { ...latest, schema: await this.getSchema(latest.id) };
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
