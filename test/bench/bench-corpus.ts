import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GENERATOR_VERSION, generateCorpus, type Manifest, PRESETS } from '../../ingest/corpus/generate.ts';

/**
 * The bench corpus (preset `bench`, at least 1,000,000 transcript lines), generated once per seed
 * and reference day into the OS temp dir and reused by the benchmarks that need it.
 */
export const BENCH_SEED = 42;
export const BENCH_AS_OF = Date.UTC(2025, 10, 21);

export async function benchCorpus(
  progress: (msg: string) => void,
): Promise<{ dir: string; manifest: Manifest; generatedMs: number }> {
  const { podcasts, episodesPerPodcast, linesPerEpisode, speechNoise } = PRESETS.bench;
  const dir = path.join(os.tmpdir(), `earshot-bench-corpus-${BENCH_SEED}-${podcasts}x${episodesPerPodcast}`);
  const manifestFile = path.join(dir, 'manifest.json');
  if (fs.existsSync(manifestFile)) {
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Manifest;
    if (
      manifest.generator_version === GENERATOR_VERSION &&
      manifest.seed === BENCH_SEED &&
      manifest.as_of === new Date(BENCH_AS_OF).toISOString()
    ) {
      progress(`reusing the bench corpus in ${dir} (${manifest.transcript_lines.toLocaleString()} lines)`);
      return { dir, manifest, generatedMs: manifest.generation_ms };
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
  let last = 0;
  const manifest = await generateCorpus({
    podcasts,
    episodesPerPodcast,
    linesPerEpisode,
    speechNoise,
    seed: BENCH_SEED,
    asOf: BENCH_AS_OF,
    out: dir,
    onProgress: (p) => {
      if (Date.now() - last > 5000) {
        last = Date.now();
        progress(`generating: ${p.episodes}/${p.totalEpisodes} episodes, ${p.lines.toLocaleString()} lines`);
      }
    },
  });
  progress(
    `generated ${manifest.transcript_lines.toLocaleString()} lines in ${(manifest.generation_ms / 1000).toFixed(1)} s`,
  );
  return { dir, manifest, generatedMs: manifest.generation_ms };
}
