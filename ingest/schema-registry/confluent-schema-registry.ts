import { SchemaRegistry as ConfluentClient, SchemaType } from '@kafkajs/confluent-schema-registry';
import { normaliseSchema, parseAvro } from './avro-compatibility.ts';
import {
  IncompatibleSchemaError,
  InvalidSchemaError,
  type RegisteredVersion,
  type SchemaRegistry,
  UnknownSchemaError,
} from './schema-registry.ts';

interface HttpError {
  status?: number;
  message?: string;
}

/**
 * Adapter for a Confluent-compatible registry (Confluent Schema Registry, or Apicurio through
 * its `/apis/ccompat/v7` API). Subjects are created with BACKWARD compatibility.
 */
export class ConfluentSchemaRegistry implements SchemaRegistry {
  readonly kind = 'confluent';
  private readonly client: ConfluentClient;
  private readonly schemaCache = new Map<number, string>();

  constructor(url: string) {
    this.client = new ConfluentClient({ host: url.replace(/\/$/, ''), retry: { retries: 2 } });
  }

  /** The library keeps its REST client private; its routes are the documented Confluent API. */
  private get api(): {
    Schema: { find(args: { id: number }): Promise<{ data(): { schema: string } }> };
    Subject: { latestVersion(args: { subject: string }): Promise<{ data(): RegisteredVersion }> };
  } {
    return (this.client as unknown as { api: never }).api;
  }

  async register(subject: string, schema: string): Promise<number> {
    let text: string;
    try {
      text = normaliseSchema(schema);
      parseAvro(text);
    } catch (err) {
      throw new InvalidSchemaError(subject, (err as Error).message);
    }
    try {
      const id = await this.registerSettled(subject, text);
      this.schemaCache.set(id, text);
      return id;
    } catch (err) {
      const e = err as HttpError;
      if (e.status === 409 || /incompatible/i.test(e.message ?? '')) {
        throw new IncompatibleSchemaError(subject, e.message ?? 'rejected by the registry');
      }
      if (e.status === 422) throw new InvalidSchemaError(subject, e.message ?? 'rejected by the registry');
      throw err;
    }
  }

  /**
   * The client registers a new subject first and sets its compatibility level (BACKWARD) after;
   * a process registering the same subject in between reads the registry's default level and
   * refuses, or two both set the level and the second is refused. That window closes within
   * moments, so both are retried for a few seconds.
   */
  private async registerSettled(subject: string, text: string): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { id } = await this.client.register({ type: SchemaType.AVRO, schema: text }, { subject });
        return id;
      } catch (err) {
        // Also the other side of that window: both saw no level and both set it; the second is
        // told the rule already exists.
        const settling =
          (err as Error).name === 'ConfluentSchemaRegistryCompatibilityError' ||
          /rule named 'COMPATIBILITY' already exists/i.test((err as Error).message ?? '');
        if (!settling || attempt >= 15) throw err;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  async getSchema(id: number): Promise<string> {
    const cached = this.schemaCache.get(id);
    if (cached !== undefined) return cached;
    try {
      const response = await this.api.Schema.find({ id });
      const text = normaliseSchema(response.data().schema);
      this.schemaCache.set(id, text);
      return text;
    } catch (err) {
      if ((err as HttpError).status === 404) throw new UnknownSchemaError(id);
      throw err;
    }
  }

  async latestVersion(subject: string): Promise<RegisteredVersion | undefined> {
    try {
      const response = await this.api.Subject.latestVersion({ subject });
      const { id, version, schema } = response.data();
      return { id, version, schema: normaliseSchema(schema) };
    } catch (err) {
      if ((err as HttpError).status === 404) return undefined;
      throw err;
    }
  }

  async close(): Promise<void> {}
}
