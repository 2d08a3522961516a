import type { Logger } from './logger.ts';
import type { Readiness } from './readiness.ts';

/** What the banner says about the demo project's key. */
export type DemoKey =
  | { kind: 'minted'; key: string; projectId: string }
  | { kind: 'bootstrap'; projectId: string }
  | { kind: 'printed-before'; projectId: string };

export interface ReadyBannerOptions {
  readiness: Readiness;
  /** Where the API answers (the public URL when one is configured). */
  url: string;
  demo?: DemoKey;
  logger: Logger;
  startedAt: number;
  /** Where the block goes (stderr: stdout may be a stream of JSON log lines). */
  out?: NodeJS.WritableStream;
  pollMs?: number;
}

/** The block printed once the service is ready: where it answers, a key, one request to try. */
export function readyBlock(
  url: string,
  demo: DemoKey | undefined,
  seconds: number,
  semantic: string,
): string {
  const rule = '─'.repeat(72);
  const lines = [
    '',
    rule,
    `  Earshot is ready at ${url}  (${seconds.toFixed(1)} s)`,
    '',
    `  API reference   ${url}/docs`,
  ];
  const keyVar = demo?.kind === 'minted' ? demo.key : 'esk_…';
  if (demo?.kind === 'minted') {
    lines.push(
      `  Demo API key    ${demo.key}`,
      `                  (project ${demo.projectId}; printed at this first start only)`,
    );
  } else if (demo?.kind === 'bootstrap') {
    lines.push(`  Demo API key    the one in EARSHOT_BOOTSTRAP_API_KEY (project ${demo.projectId})`);
  } else if (demo?.kind === 'printed-before') {
    lines.push(`  Demo API key    printed when this data dir was created (project ${demo.projectId})`);
  }
  if (demo) lines.push(`  Another key     npx earshot keys create --project ${demo.projectId}`);
  lines.push(`  Semantic search ${semantic}`, '', '  Try:');
  if (demo?.kind === 'bootstrap') lines.push('    export EARSHOT_API_KEY="$EARSHOT_BOOTSTRAP_API_KEY"');
  else lines.push(`    export EARSHOT_API_KEY=${keyVar}`);
  lines.push(`    curl -s -H "X-API-Key: $EARSHOT_API_KEY" '${url}/v1/podcasts?limit=3'`, rule, '', '');
  return lines.join('\n');
}

function semanticReady(info: Record<string, unknown>): boolean {
  return (info.search as { semantic_state?: string } | undefined)?.semantic_state === 'ready';
}

function semanticLine(info: Record<string, unknown>): string {
  const search = info.search as
    | {
        semantic_state?: string;
        vector_backlog?: { passages: number; embedded: number; total: number };
        reason?: string;
      }
    | undefined;
  if (semanticReady(info)) return 'ready';
  const b = search?.vector_backlog;
  const backlog = b?.passages
    ? ` (${b.passages} passages still to embed; ${b.embedded} of ${b.total} done)`
    : '';
  const why = search?.reason ? `: ${search.reason}` : backlog;
  return `not ready yet${why}; keyword search works now, /readyz shows when it is`;
}

/** How long the banner keeps watching for semantic search to become ready after printing. */
const SEMANTIC_WATCH_MS = 15 * 60_000;
const SEMANTIC_POLL_MS = 1000;

/**
 * Prints the ready block the first time `/readyz` would answer 200, after logging that the service
 * is ready, so that it is the last thing a newcomer sees. When semantic search was not ready yet,
 * it prints the block again once it is (after the service has logged so), for up to
 * SEMANTIC_WATCH_MS: the key and the request to try stay the last thing printed. Returns a
 * function that stops waiting.
 */
export function announceWhenReady(options: ReadyBannerOptions): () => void {
  const out = options.out ?? process.stderr;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = async () => {
    if (stopped) return;
    const { ready, info } = await options.readiness.evaluate().catch(() => ({ ready: false, info: {} }));
    if (stopped) return;
    if (!ready) {
      timer = setTimeout(() => void tick(), options.pollMs ?? 250);
      return;
    }
    const seconds = (Date.now() - options.startedAt) / 1000;
    options.logger.info({ url: options.url, readyMs: Math.round(seconds * 1000) }, 'earshot ready');
    out.write(readyBlock(options.url, options.demo, seconds, semanticLine(info)));
    if (!semanticReady(info)) watchSemanticLater(Date.now() + SEMANTIC_WATCH_MS);
  };
  const watchSemanticLater = (until: number) => {
    timer = setTimeout(() => void watchSemantic(until), options.pollMs ?? SEMANTIC_POLL_MS);
    timer.unref();
  };
  const watchSemantic = async (until: number) => {
    if (stopped || Date.now() > until) return;
    const { info } = await options.readiness.evaluate().catch(() => ({ ready: false, info: {} }));
    if (stopped) return;
    if (!semanticReady(info)) {
      watchSemanticLater(until);
      return;
    }
    const seconds = (Date.now() - options.startedAt) / 1000;
    out.write(readyBlock(options.url, options.demo, seconds, `ready (after ${seconds.toFixed(1)} s)`));
  };
  void tick();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
