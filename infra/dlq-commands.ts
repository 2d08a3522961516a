import { type Command, InvalidArgumentError } from 'commander';
import type { ReplayOutcome, ShownDeadLetter } from '../processors/dead-letters.ts';
import type { Backbone } from './composition.ts';
import type { Config } from './config.ts';

/**
 * `earshot dlq list|show|replay`: the dead-letter topics (processors/dead-letters.ts). They open
 * only the event backbone, so they work while the service runs.
 */
function offsetList(value: string, previous: number[] = []): number[] {
  const out = [...previous];
  for (const part of value.split(',')) {
    const n = Number(part.trim());
    if (!Number.isInteger(n) || n < 0)
      throw new InvalidArgumentError('expected offsets: non-negative integers');
    out.push(n);
  }
  return out;
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

/** JSON with Buffers as base64 (the originals' bytes, byte fields of decoded values). */
function toJson(value: unknown, indent?: number): string {
  return JSON.stringify(
    value,
    function (this: unknown, key, v) {
      const raw = (this as Record<string, unknown>)[key];
      return Buffer.isBuffer(raw) ? { base64: raw.toString('base64') } : v;
    },
    indent,
  );
}

function describeLetter(d: ShownDeadLetter, full: boolean): string {
  const l = d.letter;
  const value =
    d.decoded !== undefined
      ? toJson(d.decoded)
      : `undecodable (${d.undecodable}); ${l.value ? `${l.value.length} bytes` : 'no value'}`;
  const shown =
    full || value.length <= 2000
      ? value
      : `${value.slice(0, 2000)}… (${value.length} characters; --full shows all)`;
  const headers = Object.entries(l.headers);
  return [
    `${d.position.topic} @${d.position.offset}  ${new Date(l.failed_at).toISOString()}  step ${l.step} (group ${l.consumer_group})`,
    `  source  ${l.source_topic} partition ${l.source_partition} offset ${l.source_offset}  key ${l.key ?? '(none)'}`,
    `  reason  ${l.reason}`,
    ...(headers.length > 0 ? [`  headers ${headers.map(([k, v]) => `${k}=${v}`).join(' ')}`] : []),
    `  value   ${shown}`,
  ].join('\n');
}

function describeOutcome(o: ReplayOutcome): string {
  const at = o.at ? `${o.at.topic} partition ${o.at.partition} offset ${o.at.offset}` : '';
  switch (o.outcome) {
    case 'replayed':
      return `@${o.position.offset} replayed to ${at}`;
    case 'would-replay':
      return `@${o.position.offset} would be replayed to ${o.source.topic} partition ${o.source.partition}`;
    case 'already-replayed':
      return `@${o.position.offset} already replayed (${at}); not again`;
    case 'superseded':
      return `@${o.position.offset} not replayed: its key has a newer record (${at})`;
  }
}

export function registerDlqCommands(program: Command, config: () => Promise<Config>): void {
  const dlq = program
    .command('dlq')
    .description('dead-letter topics: records a pipeline step set aside, with where they came from and why');

  // Loaded when a command runs, so that `earshot --help` and other commands start fast.
  const deadLetters = () => import('../processors/dead-letters.ts');
  const withBackbone = async <T>(fn: (b: Backbone) => Promise<T>) => {
    const [{ openBackbone }, { createLogger }] = await Promise.all([
      import('./composition.ts'),
      import('./logger.ts'),
    ]);
    const backbone = await openBackbone(await config(), createLogger('warn'));
    try {
      return await fn(backbone);
    } finally {
      await backbone.close();
    }
  };

  dlq
    .command('list')
    .description('dead-letter topics with the records they hold')
    .option('--json', 'print JSON')
    .option('--all', 'include empty dead-letter topics')
    .action(async (opts: { json?: boolean; all?: boolean }) => {
      const { listDeadLetterTopics } = await deadLetters();
      const topics = await withBackbone((b) => listDeadLetterTopics(b.eventLog));
      const shown = opts.all ? topics : topics.filter((t) => t.records > 0);
      if (opts.json) {
        console.log(JSON.stringify(shown, null, 2));
        return;
      }
      if (shown.length === 0) {
        console.log('no dead letters');
        return;
      }
      console.table(shown);
    });

  dlq
    .command('show')
    .description(
      'the records of a dead-letter topic: source topic, partition and offset, step, reason, decoded value',
    )
    .argument('<topic>', 'dead-letter topic, or its source topic (catalog.podcasts.dlq or catalog.podcasts)')
    .option('--offset <offsets>', 'only these dead letters (comma-separated, repeatable)', offsetList)
    .option('--limit <n>', 'at most this many', positive)
    .option('--full', 'print whole values (long ones are cut at 2,000 characters)')
    .option('--json', 'print JSON (bytes as base64)')
    .action(
      async (topic: string, opts: { offset?: number[]; limit?: number; full?: boolean; json?: boolean }) => {
        const { showDeadLetters } = await deadLetters();
        const letters = await withBackbone((b) =>
          showDeadLetters(b.eventLog, b.codec, topic, { offsets: opts.offset, limit: opts.limit }),
        );
        if (opts.json) {
          console.log(toJson(letters, 2));
          return;
        }
        if (letters.length === 0) console.log('no dead letters');
        for (const d of letters) console.log(`${describeLetter(d, opts.full === true)}\n`);
      },
    );

  dlq
    .command('replay')
    .description(
      'append dead letters back onto the partition they came from, once the cause is fixed. Idempotent: each ' +
        'replayed record carries the header earshot.replay-of=<dlq topic>:<partition>:<offset>, and a dead letter ' +
        'whose replay is already on its source partition is not replayed again; on a compacted topic, neither is ' +
        'one whose key has a newer record. Every consumer of the source topic reads the replayed record.',
    )
    .argument('<topic>', 'dead-letter topic, or its source topic')
    .option('--offset <offsets>', 'these dead letters (comma-separated, repeatable)', offsetList)
    .option('--all', 'every dead letter of the topic')
    .option('--dry-run', 'say what would be replayed, replay nothing')
    .action(async (topic: string, opts: { offset?: number[]; all?: boolean; dryRun?: boolean }) => {
      if ((opts.offset === undefined) === (opts.all !== true)) {
        throw new InvalidArgumentError('give --offset <offsets> or --all');
      }
      const { replayDeadLetters, replayId } = await deadLetters();
      const outcomes = await withBackbone((b) =>
        replayDeadLetters(b.eventLog, b.codec, topic, {
          offsets: opts.offset,
          dryRun: opts.dryRun,
          onProgress: (m) => console.error(m),
        }),
      );
      for (const o of outcomes) console.log(describeOutcome(o));
      const count = (k: ReplayOutcome['outcome']) => outcomes.filter((o) => o.outcome === k).length;
      console.log(
        `${count(opts.dryRun ? 'would-replay' : 'replayed')} ${opts.dryRun ? 'to replay' : 'replayed'}, ` +
          `${count('already-replayed')} already replayed, ${count('superseded')} superseded` +
          (outcomes[0]
            ? ` (replays are marked ${replayId(outcomes[0].position).replace(/:\d+$/, ':<offset>')})`
            : ''),
      );
    });
}
