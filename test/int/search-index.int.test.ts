import { LanceDbSearchIndex } from '../../projections/search/lancedb-search-index.ts';
import { CONTRACT_DIMENSIONS, searchIndexContract } from '../contracts/search-index.contract.ts';
import { tempDir } from '../support/temp-dir.ts';

searchIndexContract('LanceDB', async () => {
  const tmp = tempDir('earshot-search-');
  const index = new LanceDbSearchIndex(tmp.dir, { dimensions: CONTRACT_DIMENSIONS, model: 'contract' });
  return {
    index,
    async cleanup() {
      await index.close();
      tmp.remove();
    },
  };
});
