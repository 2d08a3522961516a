import { describe, it } from 'vitest';
import { ConfluentSchemaRegistry } from '../../ingest/schema-registry/confluent-schema-registry.ts';
import { schemaRegistryContract } from '../contracts/schema-registry.contract.ts';
import { missing } from './engines-env.ts';

const reason = missing('SCHEMA_REGISTRY_URL');

if (reason) {
  describe('schema registry contract: Confluent-compatible', () => {
    it.skip(reason, () => {});
  });
} else {
  schemaRegistryContract('Confluent-compatible', async () => {
    const registry = new ConfluentSchemaRegistry(process.env.SCHEMA_REGISTRY_URL!);
    return { registry, cleanup: () => registry.close() };
  });
}
