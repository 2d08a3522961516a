import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { OpenSearchSearchIndex } from '../../projections/search/opensearch/opensearch-search-index.ts';
import { CONTRACT_DIMENSIONS, searchIndexContract } from '../contracts/search-index.contract.ts';
import { missing } from './engines-env.ts';

const reason = missing('OPENSEARCH_URL');

if (reason) {
  describe('search index contract: OpenSearch', () => {
    it.skip(reason, () => {});
  });
} else {
  searchIndexContract('OpenSearch', async () => {
    // A unique prefix per run; everything created under it is deleted afterwards.
    const prefix = `contract-${randomUUID().slice(0, 8)}-`;
    const create = () =>
      new OpenSearchSearchIndex(process.env.OPENSEARCH_URL!, {
        prefix,
        dimensions: CONTRACT_DIMENSIONS,
        model: 'contract',
      });
    let index = create();
    return {
      index,
      async rebuild() {
        await index.clearKeepingVectors();
        await index.close();
        index = create();
        await index.open();
        return index;
      },
      async cleanup() {
        await index.drop();
        await index.close();
      },
    };
  });
}
