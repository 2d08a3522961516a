import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { alertsE2eBench } from './alerts-e2e.bench.ts';
import { alertsLatencyBench } from './alerts-latency.bench.ts';
import { alertsMatcherBench } from './alerts-matcher.bench.ts';
import { analyticsBench } from './analytics.bench.ts';
import { apiBench } from './api.bench.ts';
import type { Bench, BenchResult } from './bench.ts';
import { meets } from './bench.ts';
import { catalogSurfaceBench } from './catalog-surface.bench.ts';
import { clusterBench } from './cluster.bench.ts';
import { dashboardBench } from './dashboard.bench.ts';
import { embeddingsBench } from './embeddings.bench.ts';
import { eventLogBench } from './event-log.bench.ts';
import { ingestBench } from './ingest.bench.ts';
import { mcpBench } from './mcp.bench.ts';
import { mentionsBench, speakersBench } from './mentions.bench.ts';
import { paymentsBench } from './payments.bench.ts';
import { realSpeechBench } from './real-speech.bench.ts';
import { realSpeechSearchBench } from './real-speech-search.bench.ts';
import { searchFreshBench } from './search-fresh.bench.ts';
import { searchLatencyBench } from './search-latency.bench.ts';
import { searchRebuildBench } from './search-rebuild.bench.ts';
import { searchRelevanceBench } from './search-relevance.bench.ts';
import { cliBench, startupBench } from './startup.bench.ts';
import { streamsBench } from './streams.bench.ts';
import { toolPaymentsBench } from './tool-payments.bench.ts';
import { webhookSenderBench } from './webhook-sender.bench.ts';

export const BENCHES: Bench[] = [
  eventLogBench,
  apiBench,
  dashboardBench,
  mcpBench,
  analyticsBench,
  catalogSurfaceBench,
  alertsMatcherBench,
  webhookSenderBench,
  alertsLatencyBench,
  alertsE2eBench,
  searchRelevanceBench,
  searchLatencyBench,
  searchFreshBench,
  searchRebuildBench,
  embeddingsBench,
  mentionsBench,
  speakersBench,
  realSpeechBench,
  realSpeechSearchBench,
  ingestBench,
  startupBench,
  cliBench,
  streamsBench,
  paymentsBench,
  toolPaymentsBench,
  clusterBench,
];

/** Runs the benchmarks (all, or those named), prints a table and writes JSON. */
export async function runBenches(options: { only?: string[]; outDir?: string } = {}): Promise<BenchResult[]> {
  const selected = options.only?.length ? BENCHES.filter((b) => options.only!.includes(b.name)) : BENCHES;
  if (selected.length === 0)
    throw new Error(
      `no benchmark named ${options.only?.join(', ')}; have ${BENCHES.map((b) => b.name).join(', ')}`,
    );
  const results: BenchResult[] = [];
  for (const bench of selected) {
    console.error(`▶ ${bench.name}: ${bench.description}`);
    const started = Date.now();
    results.push(...(await bench.run((msg) => console.error(`  ${bench.name}: ${msg}`))));
    console.error(`  ${bench.name} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  console.table(
    results.map((r) => ({
      bench: r.bench,
      metric: r.metric,
      value: r.value,
      unit: r.unit,
      target: r.target ? `${r.target.op} ${r.target.value}` : '',
      meets: meets(r) === undefined ? '' : meets(r) ? 'yes' : 'NO',
    })),
  );
  const outDir = options.outDir ?? path.resolve('bench-results');
  fs.mkdirSync(outDir, { recursive: true });
  const report = {
    at: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
    },
    results,
  };
  const file = path.join(outDir, `bench-${report.at.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify(report, null, 2));
  fs.writeFileSync(path.join(outDir, 'latest.json'), JSON.stringify(report, null, 2));
  console.error(`results written to ${file}`);
  return results;
}

// `npm run bench [-- names…]` runs this file directly.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runBenches({ only: process.argv.slice(2) }).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
