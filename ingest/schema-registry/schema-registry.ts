/**
 * Schema registry port: subjects with versioned Avro schemas and globally unique ids, as in the
 * Confluent API. Registering the same schema again returns its existing id; a new version must
 * be BACKWARD compatible with the latest one (it can read what the latest wrote).
 */
export interface RegisteredVersion {
  id: number;
  version: number;
  schema: string;
}

export interface SchemaRegistry {
  readonly kind: string;
  register(subject: string, schema: string): Promise<number>;
  getSchema(id: number): Promise<string>;
  latestVersion(subject: string): Promise<RegisteredVersion | undefined>;
  close(): Promise<void>;
}

export class IncompatibleSchemaError extends Error {
  constructor(
    readonly subject: string,
    reason: string,
  ) {
    super(`Schema for subject "${subject}" is not backward compatible with its latest version: ${reason}`);
    this.name = 'IncompatibleSchemaError';
  }
}

export class InvalidSchemaError extends Error {
  constructor(
    readonly subject: string,
    reason: string,
  ) {
    super(`Schema for subject "${subject}" is not a valid Avro schema: ${reason}`);
    this.name = 'InvalidSchemaError';
  }
}

export class UnknownSchemaError extends Error {
  constructor(readonly id: number) {
    super(`No schema with id ${id} in the registry`);
    this.name = 'UnknownSchemaError';
  }
}
