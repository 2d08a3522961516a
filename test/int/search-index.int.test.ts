import { describe, expect, it } from 'vitest';
import { LanceDbSearchIndex } from '../../projections/search/lancedb-search-index.ts';
import { parseKeywordQuery } from '../../projections/search/text-analysis.ts';
import { CONTRACT_DIMENSIONS, episode, searchIndexContract } from '../contracts/search-index.contract.ts';
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

describe('LanceDB search index before its first refresh', () => {
  it('finds a free word in lines written since it was opened, whatever their case and punctuation', async () => {
    const tmp = tempDir('earshot-search-');
    const index = new LanceDbSearchIndex(tmp.dir, { dimensions: CONTRACT_DIMENSIONS, model: 'contract' });
    try {
      await index.open();
      await index.replaceEpisodes([
        episode('ep_fresh', {
          podcast: 'pod_fresh',
          day: 0,
          segments: [
            {
              type: 'INTRO',
              lines: [{ text: 'Welcome to another Episode, friends.' }, { text: 'The episode starts now' }],
            },
          ],
        }),
      ]);
      const hits = await index.keywordLines(parseKeywordQuery('episode'), {}, 10);
      expect(hits.map((h) => h.number).sort()).toEqual([1, 2]);
    } finally {
      await index.close();
      tmp.remove();
    }
  });
});
