import * as lancedb from '@lancedb/lancedb';
import { describe, expect, it } from 'vitest';
import {
  clearKeepingVectors,
  LanceDbSearchIndex,
} from '../../projections/search/lancedb/lancedb-search-index.ts';
import { parseKeywordQuery } from '../../projections/search/text-analysis.ts';
import { CONTRACT_DIMENSIONS, episode, searchIndexContract } from '../contracts/search-index.contract.ts';
import { tempDir } from '../support/temp-dir.ts';

searchIndexContract('LanceDB', async () => {
  const tmp = tempDir('earshot-search-');
  const create = () =>
    new LanceDbSearchIndex(tmp.dir, { dimensions: CONTRACT_DIMENSIONS, model: 'contract' });
  let index = create();
  return {
    index,
    async rebuild() {
      await index.close();
      await clearKeepingVectors(tmp.dir);
      index = create();
      await index.open();
      return index;
    },
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

describe('LanceDB search index of an earlier layout', () => {
  it('is refused at open, naming the rebuild, rather than half-read', async () => {
    const tmp = tempDir('earshot-search-');
    try {
      // Layout 1 kept each line's vector in its row.
      const db = await lancedb.connect(tmp.dir);
      const old = await db.createTable('lines', [{ id: 'ep:1', text: 'hello', vector: [0, 0, 0, 1] }]);
      old.close();
      db.close();
      const index = new LanceDbSearchIndex(tmp.dir, { dimensions: CONTRACT_DIMENSIONS, model: 'contract' });
      await expect(index.open()).rejects.toThrow(/earlier layout.*npx earshot projections rebuild search/);
      await index.close();
    } finally {
      tmp.remove();
    }
  });
});
