import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AVRO_DIR, loadExample, loadSchema, SCHEMA_NAMES } from '../../schemas/avro-schemas.ts';
import { renderTypes } from '../../schemas/generate-types.ts';
import { allTopicSpecs, TOPICS } from '../../schemas/topics.ts';

describe('Avro schemas and golden examples', () => {
  it('has a schema and an example for every schema name, and nothing else', () => {
    const files = fs.readdirSync(AVRO_DIR).filter((f) => f.endsWith('.avsc'));
    expect(files.map((f) => f.replace('.avsc', '')).sort()).toEqual([...SCHEMA_NAMES].sort());
    const examples = fs.readdirSync(path.join(AVRO_DIR, 'examples'));
    expect(examples.map((f) => f.replace('.json', '')).sort()).toEqual([...SCHEMA_NAMES].sort());
  });

  it.each(SCHEMA_NAMES)('round-trips the %s example through Avro binary', (name) => {
    const { type } = loadSchema(name);
    const example = loadExample(name);
    expect(type.isValid(example)).toBe(true);
    const decoded = type.fromBuffer(type.toBuffer(example));
    expect(decoded).toEqual(example);
  });

  it('rejects an example with a field of the wrong type', () => {
    const { type } = loadSchema('Transcript');
    const bad = structuredClone(loadExample('Transcript')) as { lines: { start_seconds: unknown }[] };
    bad.lines[0]!.start_seconds = 'zero';
    const paths: string[] = [];
    expect(type.isValid(bad, { errorHook: (p) => paths.push(p.join('.')) })).toBe(false);
    expect(paths).toContain('lines.0.start_seconds');
  });

  it('declares every topic once with a schema that exists and a dead-letter topic', () => {
    const specs = allTopicSpecs();
    expect(new Set(specs.map((s) => s.name)).size).toBe(specs.length);
    for (const spec of Object.values(TOPICS)) {
      expect(SCHEMA_NAMES).toContain(spec.valueSchema);
      expect(specs.find((s) => s.name === spec.deadLetter)?.valueSchema).toBe('DeadLetter');
      expect(spec.partitions).toBeGreaterThan(0);
    }
  });

  it('has generated TypeScript types that match the schemas (run `npm run schemas:types`)', () => {
    const dir = path.join(AVRO_DIR, '..', 'generated');
    for (const [file, text] of renderTypes()) {
      expect(fs.readFileSync(path.join(dir, file), 'utf8'), file).toBe(text);
    }
  });
});
