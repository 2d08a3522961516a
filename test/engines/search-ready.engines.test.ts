import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { fetchModel } from '../../projections/embeddings/model-fetch.ts';
import { OpenSearchSearchIndex } from '../../projections/search/opensearch/opensearch-search-index.ts';
import { demoPhraseCheck, vectorsUnderWay } from '../support/phrase-probes.ts';
import { TEST_MODELS_DIR } from '../support/search.ts';
import { spawnEarshot } from '../support/service-process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { waitFor } from '../support/wait-for.ts';
import { missing } from './engines-env.ts';

const reason = missing('OPENSEARCH_URL');

// The demo corpus on a fresh data dir with search on OpenSearch (everything else embedded): the
// moment /readyz is 200, exact phrases from the demo's lines find every line that holds them.
(reason ? describe.skip : describe)(
  `keyword search at readiness on OpenSearch${reason ? ` (${reason})` : ''}`,
  () => {
    const prefix = `ready-${randomUUID().slice(0, 8)}-`;
    const tmp = tempDir();

    afterAll(async () => {
      const index = new OpenSearchSearchIndex(process.env.OPENSEARCH_URL!, { prefix });
      await index.drop();
      await index.close();
      tmp.remove();
    });

    it('finds every line of 31 demo phrases as soon as /readyz is 200, and while vectors are written', async () => {
      await fetchModel({ modelsDir: TEST_MODELS_DIR });
      const key = 'esk_engines_search_ready_key_0123456789';
      const started = Date.now();
      const svc = await spawnEarshot(['start'], {
        OPENSEARCH_URL: process.env.OPENSEARCH_URL!,
        EARSHOT_SEARCH_INDEX_PREFIX: prefix,
        // The other engines stay embedded: this test is about the search index.
        KAFKA_BROKERS: undefined,
        SCHEMA_REGISTRY_URL: undefined,
        DATABASE_URL: undefined,
        CLICKHOUSE_URL: undefined,
        EARSHOT_DATA_DIR: tmp.dir,
        EARSHOT_DEMO: 'on',
        EARSHOT_MODELS_DIR: TEST_MODELS_DIR,
        EARSHOT_BOOTSTRAP_API_KEY: key,
      });
      try {
        await waitFor(async () => (await fetch(`${svc.url}/readyz`).catch(() => undefined))?.status === 200, {
          timeoutMs: 150_000,
          stepMs: 100,
          what: '/readyz 200 with the demo corpus on OpenSearch',
        });
        const readyMs = Date.now() - started;
        const atReady = await demoPhraseCheck(svc.url, key, tmp.dir);
        expect(atReady.missed).toEqual([]);
        expect(atReady.probes).toHaveLength(31);
        const search = await vectorsUnderWay(svc.url);
        const later = await demoPhraseCheck(svc.url, key, tmp.dir);
        expect(later.missed).toEqual([]);
        process.stderr.write(
          `OpenSearch demo start: /readyz 200 after ${readyMs} ms; ${atReady.probes.length} phrases ` +
            `(${atReady.probes.reduce((n, p) => n + p.lines.length, 0)} lines) all found in ${atReady.ms} ms, ` +
            `and again at ${JSON.stringify(search)}\n`,
        );
      } finally {
        const exit = await svc.stop('SIGTERM');
        expect(exit.code, svc.output()).toBe(0);
      }
    }, 300_000);
  },
);
