import avro from 'avsc';
import { loadSchema, type SchemaName } from '../../schemas/avro-schemas.ts';
import type { SchemaRegistry } from './schema-registry.ts';
import { UnknownSchemaError } from './schema-registry.ts';

/** Confluent wire format: magic byte 0, 4-byte big-endian schema id, Avro binary body. */
const MAGIC = 0;
const HEADER = 5;

export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}

export class EncodeError extends Error {
  constructor(
    message: string,
    readonly paths: string[],
  ) {
    super(message);
    this.name = 'EncodeError';
  }
}

interface TopicCodec {
  schemaId: number;
  type: avro.Type;
}

export function subjectFor(topic: string): string {
  return `${topic}-value`;
}

/**
 * Encodes and decodes topic values in the Confluent wire format. Each topic's value schema is
 * registered under `<topic>-value`; decoding resolves the writer's schema by id so that records
 * written with an older compatible schema are read with the current one.
 */
export class AvroCodec {
  private readonly topics = new Map<string, TopicCodec>();
  private readonly writers = new Map<number, Promise<avro.Type>>();
  private readonly resolvers = new Map<string, avro.Resolver>();

  constructor(private readonly registry: SchemaRegistry) {}

  async registerTopic(topic: string, schemaName: SchemaName): Promise<number> {
    const schema = loadSchema(schemaName);
    const schemaId = await this.registry.register(subjectFor(topic), schema.text);
    this.topics.set(topic, { schemaId, type: schema.type });
    this.writers.set(schemaId, Promise.resolve(schema.type));
    return schemaId;
  }

  schemaIdOf(topic: string): number {
    return this.codec(topic).schemaId;
  }

  encode(topic: string, value: unknown): Buffer {
    const { schemaId, type } = this.codec(topic);
    let body: Buffer;
    try {
      body = type.toBuffer(value);
    } catch {
      const paths: string[] = [];
      type.isValid(value, {
        errorHook: (path, v) =>
          paths.push(`${path.join('.') || '(value)'}: ${JSON.stringify(v)?.slice(0, 80)}`),
      });
      throw new EncodeError(
        `value for topic ${topic} does not match its schema at ${paths.join('; ')}`,
        paths,
      );
    }
    const out = Buffer.allocUnsafe(HEADER + body.length);
    out.writeUInt8(MAGIC, 0);
    out.writeUInt32BE(schemaId, 1);
    body.copy(out, HEADER);
    return out;
  }

  async decode<T = unknown>(topic: string, bytes: Buffer | null): Promise<T> {
    const reader = this.codec(topic).type;
    if (bytes === null) throw new DecodeError('record has no value');
    if (bytes.length < HEADER)
      throw new DecodeError(`value of ${bytes.length} bytes is shorter than the wire header`);
    if (bytes[0] !== MAGIC) throw new DecodeError(`unknown magic byte ${bytes[0]} (expected ${MAGIC})`);
    const schemaId = bytes.readUInt32BE(1);
    const writer = await this.writerType(schemaId);
    try {
      if (writer === reader) return reader.fromBuffer(bytes.subarray(HEADER)) as T;
      return reader.fromBuffer(bytes.subarray(HEADER), this.resolver(topic, schemaId, reader, writer)) as T;
    } catch (err) {
      throw new DecodeError(`bad Avro body for schema ${schemaId}: ${(err as Error).message}`);
    }
  }

  private codec(topic: string): TopicCodec {
    const codec = this.topics.get(topic);
    if (!codec) throw new Error(`topic ${topic} has no registered value schema`);
    return codec;
  }

  private async writerType(schemaId: number): Promise<avro.Type> {
    let writer = this.writers.get(schemaId);
    if (!writer) {
      writer = this.registry.getSchema(schemaId).then((text) => avro.Type.forSchema(JSON.parse(text)));
      this.writers.set(schemaId, writer);
    }
    try {
      return await writer;
    } catch (err) {
      this.writers.delete(schemaId);
      if (err instanceof UnknownSchemaError) throw new DecodeError(`unknown schema id ${schemaId}`);
      throw err;
    }
  }

  private resolver(topic: string, schemaId: number, reader: avro.Type, writer: avro.Type): avro.Resolver {
    const key = `${topic}:${schemaId}`;
    let resolver = this.resolvers.get(key);
    if (!resolver) {
      try {
        resolver = reader.createResolver(writer);
      } catch (err) {
        throw new DecodeError(
          `schema ${schemaId} (${(writer as avro.Type & { name?: string }).name}) cannot be read as ${topic}: ${(err as Error).message}`,
        );
      }
      this.resolvers.set(key, resolver);
    }
    return resolver;
  }
}
