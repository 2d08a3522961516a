import { LmdbSchemaRegistry } from '../../ingest/schema-registry/lmdb-schema-registry.ts';
import { schemaRegistryContract } from '../contracts/schema-registry.contract.ts';
import { tempDir } from '../support/temp-dir.ts';

schemaRegistryContract('embedded (LMDB)', async () => {
  const tmp = tempDir();
  const registry = new LmdbSchemaRegistry(tmp.dir);
  return {
    registry,
    cleanup: async () => {
      await registry.close();
      tmp.remove();
    },
  };
});
