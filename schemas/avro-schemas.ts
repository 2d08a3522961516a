import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import avro from 'avsc';

export const AVRO_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'avro');

export const SCHEMA_NAMES = [
  'Publisher',
  'Podcast',
  'Entity',
  'EpisodePublished',
  'Transcript',
  'Segments',
  'Clips',
  'AdReads',
  'ChartSnapshotRow',
  'BiasEvaluation',
  'RatingSnapshot',
  'MentionsDetected',
  'SpeakersIdentified',
  'AlertMatched',
  'DeliveryRequested',
  'DeliveryAttempted',
  'DeliveryDelivered',
  'DeliveryAbandoned',
  'DeadLetter',
] as const;
export type SchemaName = (typeof SCHEMA_NAMES)[number];

export interface LoadedSchema {
  name: SchemaName;
  /** The schema text as registered (normalised JSON). */
  text: string;
  type: avro.Type;
}

const cache = new Map<SchemaName, LoadedSchema>();

export function loadSchema(name: SchemaName): LoadedSchema {
  let loaded = cache.get(name);
  if (!loaded) {
    const json = JSON.parse(fs.readFileSync(path.join(AVRO_DIR, `${name}.avsc`), 'utf8'));
    loaded = { name, text: JSON.stringify(json), type: avro.Type.forSchema(json) };
    cache.set(name, loaded);
  }
  return loaded;
}

/** Golden example payload of a schema, as plain JSON (bytes in Node's Buffer JSON form). */
export function loadExample(name: SchemaName): unknown {
  const raw = JSON.parse(fs.readFileSync(path.join(AVRO_DIR, 'examples', `${name}.json`), 'utf8'));
  return loadSchema(name).type.clone(raw, { coerceBuffers: true });
}
