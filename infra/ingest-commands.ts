import fs from 'node:fs';
import path from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import type { LoadProgress } from '../ingest/loader/loader.ts';
import type { Config } from './config.ts';

/**
 * `earshot corpus generate|eval`, `earshot ingest` and `earshot feeds add|list|remove`.
 * Long work reports progress on stderr; results go to stdout. Each command loads what it needs
 * when it runs, so that `earshot --help` and the other commands start fast.
 */
const n = (v: number) => Math.round(v).toLocaleString('en-US');

function positive(value: string): number {
  const v = Number(value);
  if (!Number.isInteger(v) || v <= 0) throw new InvalidArgumentError('expected a positive integer');
  return v;
}

function seedArg(value: string): number {
  const v = Number(value);
  if (!Number.isInteger(v)) throw new InvalidArgumentError('expected an integer seed');
  return v;
}

function instant(value: string): number {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new InvalidArgumentError('expected a date (YYYY-MM-DD) or a time (RFC 3339)');
  return t;
}

const SCHEDULES = ['spread', 'recent'] as const;
function schedule(value: string): (typeof SCHEDULES)[number] {
  const s = SCHEDULES.find((k) => k === value);
  if (!s) throw new InvalidArgumentError(`expected one of ${SCHEDULES.join(', ')}`);
  return s;
}

/** Writes a status line on stderr: rewritten in place on a terminal, one line per update otherwise. */
function statusLine(): { update(text: string): void; done(text: string): void } {
  const tty = process.stderr.isTTY;
  let last = 0;
  return {
    update(text) {
      if (tty) process.stderr.write(`\r\x1b[2K${text}`);
      else if (Date.now() - last >= 2000) {
        last = Date.now();
        process.stderr.write(`${text}\n`);
      }
    },
    done(text) {
      process.stderr.write(tty ? `\r\x1b[2K${text}\n` : `${text}\n`);
    },
  };
}

export function registerIngestCommands(program: Command, config: () => Promise<Config>): void {
  const corpus = program
    .command('corpus')
    .description('the synthetic corpus: generate it, score the processors on it');

  corpus
    .command('generate')
    .description('write a deterministic corpus (NDJSON records + ground truth + manifest) to a directory')
    .requiredOption('--out <dir>', 'output directory')
    .option('--preset <name>', 'sizes: demo (default), small, bench (at least 1,000,000 transcript lines), …')
    .option('--podcasts <n>', 'number of podcasts', positive)
    .option('--episodes-per-podcast <n>', 'episodes per podcast', positive)
    .option('--seed <n>', 'random seed (same seed and sizes, same corpus)', seedArg, 42)
    .option(
      '--as-of <time>',
      'reference time; episodes come out before it (default now; the spread schedule takes its UTC day)',
      instant,
    )
    .option(
      '--schedule <spread|recent>',
      'publication dates: spread over 120 days, or recent (cadences up to the reference time; the demo preset)',
      schedule,
    )
    .option('--chart-days <n>', 'days of chart snapshots', positive, 30)
    .option(
      '--turns <lengths>',
      'turn lengths: short (one or two sentences) or realistic (long-tailed answers, monologues of 1,000+ tokens ending with a planted concept)',
      (v: string) => {
        if (v !== 'short' && v !== 'realistic') throw new InvalidArgumentError('short or realistic');
        return v;
      },
      'short',
    )
    .option(
      '--speech-noise [on|off]',
      'what real speech-to-text does: generic labels, merged turns, lower case, misspellings (default: the preset’s; on for bench)',
    )
    .action(
      async (opts: {
        out: string;
        preset?: string;
        podcasts?: number;
        episodesPerPodcast?: number;
        seed: number;
        asOf?: number;
        schedule?: (typeof SCHEDULES)[number];
        chartDays: number;
        turns: 'short' | 'realistic';
        speechNoise?: string | boolean;
      }) => {
        const { generateCorpus, PRESETS, startOfUtcDay } = await import('../ingest/corpus/generate.ts');
        const preset = opts.preset ? PRESETS[opts.preset as keyof typeof PRESETS] : PRESETS.demo;
        if (!preset)
          throw new InvalidArgumentError(
            `unknown preset ${opts.preset}; have ${Object.keys(PRESETS).join(', ')}`,
          );
        const presetApplies = Boolean(opts.preset) || (!opts.podcasts && !opts.episodesPerPodcast);
        const releases = opts.schedule ?? (presetApplies ? preset.schedule : 'spread');
        const asOf = opts.asOf ?? Date.now();
        const status = statusLine();
        const manifest = await generateCorpus({
          podcasts: opts.podcasts ?? preset.podcasts,
          episodesPerPodcast: opts.episodesPerPodcast ?? preset.episodesPerPodcast,
          linesPerEpisode: presetApplies ? preset.linesPerEpisode : undefined,
          seed: opts.seed,
          out: opts.out,
          schedule: releases,
          asOf: releases === 'recent' ? Math.floor(asOf / 60_000) * 60_000 : startOfUtcDay(asOf),
          chartDays: opts.chartDays,
          turns: opts.turns,
          speechNoise:
            opts.speechNoise === undefined
              ? 'speechNoise' in preset && preset.speechNoise
              : opts.speechNoise !== 'off',
          onProgress: (p) => {
            const s = p.elapsedMs / 1000;
            status.update(
              `corpus: ${n(p.episodes)}/${n(p.totalEpisodes)} episodes · ${n(p.lines)} lines · ${n(p.lines / Math.max(s, 0.001))} lines/s · ${s.toFixed(1)} s`,
            );
          },
        });
        status.done(`corpus: done in ${(manifest.generation_ms / 1000).toFixed(1)} s`);
        console.log(
          JSON.stringify(
            {
              out: path.resolve(opts.out),
              seed: manifest.seed,
              as_of: manifest.as_of,
              counts: manifest.counts,
              transcript_lines: manifest.transcript_lines,
              planted_mentions: manifest.planted_mentions,
            },
            null,
            2,
          ),
        );
      },
    );

  corpus
    .command('eval')
    .description('score mention detection and speaker identification against a corpus ground truth')
    .argument('<dir>', 'a directory written by `earshot corpus generate`')
    .action(async (dir: string) => {
      const { evaluateMentions, evaluateSpeakers, loadCorpusContext } = await import(
        '../ingest/corpus/evaluate.ts'
      );
      const ctx = await loadCorpusContext(dir);
      const mentions = await evaluateMentions(dir, ctx);
      const speakers = await evaluateSpeakers(dir, ctx);
      console.log(JSON.stringify({ mentions, speakers }, null, 2));
    });

  program
    .command('ingest')
    .description('load NDJSON records ({"type","data"} per line) from a file or directory into the event log')
    .argument('<path>', 'an .ndjson file, or a directory of them (loaded in dependency order)')
    .option('--force', 'produce records even if they were ingested before')
    .option('--batch <n>', 'records per produce batch', positive, 500)
    .action(async (input: string, opts: { force?: boolean; batch: number }) => {
      if (!fs.existsSync(input)) throw new InvalidArgumentError(`no such file or directory: ${input}`);
      const cfg = await config();
      const [{ createLogger }, { openBackbone }, { IngestState }, { loadNdjson }] = await Promise.all([
        import('./logger.ts'),
        import('./composition.ts'),
        import('../ingest/loader/ingest-state.ts'),
        import('../ingest/loader/loader.ts'),
      ]);
      const logger = createLogger(cfg.env.LOG_LEVEL === 'info' ? 'warn' : cfg.env.LOG_LEVEL);
      const backbone = await openBackbone(cfg, logger);
      const state = new IngestState((await import('./config.ts')).ingestStateDirOf(cfg));
      const status = statusLine();
      const show = (p: LoadProgress) => {
        const s = Math.max(p.elapsedMs / 1000, 0.001);
        status.update(
          `ingest ${path.basename(p.file)}: ${n(p.produced)} records (${n(p.produced / s)}/s) · ${n(p.lines)} lines (${n(p.lines / s)}/s) · ${n(p.skipped)} skipped · ${n(p.rejected)} rejected`,
        );
      };
      try {
        const report = await loadNdjson(input, {
          producer: backbone.producer,
          state,
          force: opts.force,
          batchRecords: opts.batch,
          onProgress: show,
        });
        status.done(
          `ingest: ${n(report.produced)} records and ${n(report.lines)} transcript lines in ${report.seconds.toFixed(1)} s ` +
            `(${n(report.recordsPerSecond)} records/s, ${n(report.linesPerSecond)} lines/s); ` +
            `${n(report.skipped)} already ingested, ${n(report.rejected)} rejected`,
        );
        console.log(
          JSON.stringify(
            {
              read: report.read,
              produced: report.produced,
              skipped: report.skipped,
              rejected: report.rejected,
              lines: report.lines,
              seconds: report.seconds,
              by_type: report.byType,
              rejects: report.files
                .filter((f) => f.rejectsFile)
                .map((f) => ({ file: f.rejectsFile, count: f.rejected })),
            },
            null,
            2,
          ),
        );
        if (report.rejected > 0) process.exitCode = 3;
      } finally {
        await state.close();
        await backbone.close();
      }
    });

  const feeds = program.command('feeds').description('RSS/Atom feeds polled for new episodes (ingest role)');

  feeds
    .command('add')
    .description('poll a feed: new items become episode events')
    .argument('<url>', 'feed URL (http or https)')
    .option('--interval <duration>', 'how often to poll (30s, 15m, 1h, ...)', '15m')
    .option('--poll', 'also poll it once now')
    .action(async (url: string, opts: { interval: string; poll?: boolean }) => {
      const cfg = await config();
      const { FeedStore, normalizeFeedUrl, parseInterval, formatInterval } = await import(
        '../ingest/feeds/feed-store.ts'
      );
      const { podcastIdForFeed } = await import('../ingest/feeds/feed-mapping.ts');
      let normalized: string;
      let intervalMs: number;
      try {
        // The outbound guard's reading of the URL (userinfo and port 0 refused), fragment dropped.
        normalized = normalizeFeedUrl(await feedUrlOf(url));
        intervalMs = parseInterval(opts.interval);
      } catch (err) {
        throw new InvalidArgumentError((err as Error).message);
      }
      const store = FeedStore.inDataDir(cfg.dataDir);
      try {
        const { record, created } = await store.add(normalized, intervalMs, podcastIdForFeed(normalized));
        console.log(
          `${created ? 'added' : 'updated'} ${record.url} (every ${formatInterval(record.intervalMs)}, podcast ${record.podcastId})`,
        );
        if (opts.poll) {
          const [{ createLogger }, { createFeedHttp, openBackbone }, { IngestState }, { FeedPoller }] =
            await Promise.all([
              import('./logger.ts'),
              import('./composition.ts'),
              import('../ingest/loader/ingest-state.ts'),
              import('../ingest/feeds/feed-poller.ts'),
            ]);
          const logger = createLogger('warn');
          const backbone = await openBackbone(cfg, logger);
          const state = new IngestState((await import('./config.ts')).ingestStateDirOf(cfg));
          const http = createFeedHttp(cfg);
          try {
            const poller = new FeedPoller({ store, producer: backbone.producer, logger, state, http });
            const result = await poller.pollOnce(record.url);
            console.log(
              result.error
                ? `poll failed: ${result.error}`
                : `polled: HTTP ${result.status}, ${result.published} new episode(s)${result.podcastPublished ? ', podcast published' : ''}`,
            );
          } finally {
            await http.close();
            await state.close();
            await backbone.close();
          }
        }
      } finally {
        await store.close();
      }
    });

  feeds
    .command('list')
    .description('feeds with their interval and last poll')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const { FeedStore, formatInterval } = await import('../ingest/feeds/feed-store.ts');
      const store = FeedStore.inDataDir((await config()).dataDir);
      try {
        const list = store.list();
        if (opts.json) {
          console.log(JSON.stringify(list, null, 2));
          return;
        }
        if (list.length === 0) {
          console.log('no feeds; add one with `earshot feeds add <url>`');
          return;
        }
        console.table(
          list.map((f) => ({
            url: f.url,
            every: formatInterval(f.intervalMs),
            podcast: f.podcastId,
            episodes: f.episodes,
            'last poll': f.lastPolledAt ? new Date(f.lastPolledAt).toISOString() : 'never',
            status: f.lastError ?? f.lastStatus ?? '',
          })),
        );
      } finally {
        await store.close();
      }
    });

  feeds
    .command('remove')
    .description('stop polling a feed')
    .argument('<url>', 'feed URL as added')
    .action(async (url: string) => {
      const { FeedStore, normalizeFeedUrl } = await import('../ingest/feeds/feed-store.ts');
      const store = FeedStore.inDataDir((await config()).dataDir);
      try {
        const removed = await store.remove(normalizeFeedUrl(url));
        console.log(removed ? `removed ${url}` : `no feed ${url}`);
        if (!removed) process.exitCode = 1;
      } finally {
        await store.close();
      }
    });
}

async function feedUrlOf(url: string): Promise<string> {
  const { canonicalUrl } = await import('../processors/alerts/index.ts');
  try {
    return canonicalUrl(url).href;
  } catch (err) {
    throw new Error(`feed URL ${url} ${(err as Error).message}`);
  }
}
