import { randomUUID } from 'node:crypto';
import avro from 'avsc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AvroCodec, DecodeError } from '../../ingest/schema-registry/avro-codec.ts';
import {
  IncompatibleSchemaError,
  InvalidSchemaError,
  type SchemaRegistry,
  UnknownSchemaError,
} from '../../ingest/schema-registry/schema-registry.ts';
import { loadExample, loadSchema } from '../../schemas/avro-schemas.ts';

export interface SchemaRegistryFixture {
  registry: SchemaRegistry;
  cleanup(): Promise<void>;
}

const v1 = {
  type: 'record',
  name: 'Sample',
  namespace: 'dev.earshot.contract',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'count', type: 'int' },
  ],
};
const v2 = { ...v1, fields: [...v1.fields, { name: 'label', type: ['null', 'string'], default: null }] };
const incompatible = { ...v1, fields: [...v1.fields, { name: 'required_now', type: 'string' }] };

const sameType = (a: string, b: object) =>
  avro.Type.forSchema(JSON.parse(a)).equals(avro.Type.forSchema(b as never));

/** The behaviour every schema registry adapter must have, including the wire format. */
export function schemaRegistryContract(adapter: string, setup: () => Promise<SchemaRegistryFixture>) {
  describe(`schema registry contract: ${adapter}`, () => {
    let fx: SchemaRegistryFixture;
    let registry: SchemaRegistry;
    beforeAll(async () => {
      fx = await setup();
      registry = fx.registry;
    });
    afterAll(async () => fx?.cleanup());

    const subject = () => `contract-${randomUUID().slice(0, 8)}-value`;

    it('registers a schema, returns the same id for the same schema, and serves it by id', async () => {
      const s = subject();
      const id = await registry.register(s, JSON.stringify(v1));
      expect(id).toBeGreaterThan(0);
      expect(await registry.register(s, JSON.stringify(v1, null, 2))).toBe(id);
      expect(sameType(await registry.getSchema(id), v1)).toBe(true);
      const latest = await registry.latestVersion(s);
      expect(latest).toMatchObject({ id, version: 1 });
    });

    it('registers the same new subject from several callers at once (processes starting together)', async () => {
      const s = subject();
      const ids = await Promise.all(
        Array.from({ length: 6 }, () => registry.register(s, JSON.stringify(v1))),
      );
      expect(new Set(ids).size).toBe(1);
      expect((await registry.latestVersion(s))?.id).toBe(ids[0]);
      // The subject keeps evolution checks: an incompatible schema is still refused.
      await expect(registry.register(s, JSON.stringify(incompatible))).rejects.toBeInstanceOf(
        IncompatibleSchemaError,
      );
    });

    it('accepts a backward-compatible new version', async () => {
      const s = subject();
      const id1 = await registry.register(s, JSON.stringify(v1));
      const id2 = await registry.register(s, JSON.stringify(v2));
      expect(id2).not.toBe(id1);
      const latest = await registry.latestVersion(s);
      expect(latest).toMatchObject({ id: id2, version: 2 });
      expect(sameType(latest!.schema, v2)).toBe(true);
    });

    it('rejects an incompatible new version with a clear error and keeps the old one', async () => {
      const s = subject();
      const id1 = await registry.register(s, JSON.stringify(v1));
      const attempt = registry.register(s, JSON.stringify(incompatible));
      await expect(attempt).rejects.toBeInstanceOf(IncompatibleSchemaError);
      await expect(attempt).rejects.toThrow(s);
      expect(await registry.latestVersion(s)).toMatchObject({ id: id1, version: 1 });
    });

    it('rejects a schema that is not valid Avro', async () => {
      await expect(
        registry.register(subject(), '{"type":"record","name":"X","fields":[{"name":"a"}]}'),
      ).rejects.toBeInstanceOf(InvalidSchemaError);
      await expect(registry.register(subject(), 'not json')).rejects.toBeInstanceOf(InvalidSchemaError);
    });

    it('reports unknown ids and subjects', async () => {
      await expect(registry.getSchema(987_654_321)).rejects.toBeInstanceOf(UnknownSchemaError);
      expect(await registry.latestVersion(subject())).toBeUndefined();
    });

    it('encodes in the Confluent wire format and decodes across schema versions', async () => {
      const topic = `contract.${randomUUID().slice(0, 8)}`;
      const codec = new AvroCodec(registry);
      const id = await codec.registerTopic(topic, 'EpisodePublished');
      const example = loadExample('EpisodePublished');
      const bytes = codec.encode(topic, example);
      expect(bytes[0]).toBe(0);
      expect(bytes.readUInt32BE(1)).toBe(id);
      expect(bytes.subarray(5)).toEqual(loadSchema('EpisodePublished').type.toBuffer(example));
      expect(await codec.decode(topic, bytes)).toEqual(example);

      // A record written with an older version of the value schema is read with the current one.
      const current = JSON.parse(loadSchema('EpisodePublished').text);
      const older = {
        ...current,
        fields: current.fields.filter((f: { name: string }) => f.name !== 'people'),
      };
      const olderSubject = `${topic}.old-value`;
      const olderId = await registry.register(olderSubject, JSON.stringify(older));
      const olderType = avro.Type.forSchema(older);
      const { people: _people, ...olderValue } = example as Record<string, unknown>;
      const header = Buffer.alloc(5);
      header.writeUInt32BE(olderId, 1);
      const olderBytes = Buffer.concat([header, olderType.toBuffer(olderValue)]);
      expect(await new AvroCodec(registry).registerTopic(topic, 'EpisodePublished')).toBe(id);
      const decoded = (await codec.decode(topic, olderBytes)) as Record<string, unknown>;
      expect(decoded.people).toEqual([]);
      expect(decoded.title).toBe((example as { title: string }).title);
    });

    it('refuses bytes it cannot read with a decode error', async () => {
      const topic = `contract.${randomUUID().slice(0, 8)}`;
      const codec = new AvroCodec(registry);
      await codec.registerTopic(topic, 'Publisher');
      const good = codec.encode(topic, loadExample('Publisher'));
      const wrongMagic = Buffer.from(good);
      wrongMagic[0] = 1;
      const unknownId = Buffer.from(good);
      unknownId.writeUInt32BE(987_654_321, 1);
      await expect(codec.decode(topic, wrongMagic)).rejects.toThrow(/magic byte/);
      await expect(codec.decode(topic, unknownId)).rejects.toThrow(/unknown schema id/);
      await expect(codec.decode(topic, good.subarray(0, 12))).rejects.toBeInstanceOf(DecodeError);
      await expect(codec.decode(topic, Buffer.from([0, 0]))).rejects.toBeInstanceOf(DecodeError);
      await expect(codec.decode(topic, null)).rejects.toBeInstanceOf(DecodeError);

      // A record of another topic's schema is not silently read as this topic's value.
      const other = `contract.${randomUUID().slice(0, 8)}`;
      await codec.registerTopic(other, 'Segments');
      const foreign = codec.encode(other, loadExample('Segments'));
      await expect(codec.decode(topic, foreign)).rejects.toBeInstanceOf(DecodeError);
    });
  });
}
