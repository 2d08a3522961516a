import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, logFormatFor } from '../../infra/logger.ts';
import { Readiness } from '../../infra/readiness.ts';
import { announceWhenReady, readyBlock } from '../../infra/ready-banner.ts';

function sink() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { chunks, stream };
}

describe('the ready block', () => {
  it('names the URL, the reference, the key, how to mint another and one request to try', () => {
    const text = readyBlock(
      'http://127.0.0.1:8080',
      { kind: 'minted', key: 'esk_abcdefghijklmnopqrstuvwxyz0123456789ABCD', projectId: 'proj_demo' },
      12.34,
      'ready',
    );
    expect(text).toContain('Earshot is ready at http://127.0.0.1:8080  (12.3 s)');
    expect(text).toContain('http://127.0.0.1:8080/docs');
    expect(text).toContain('esk_abcdefghijklmnopqrstuvwxyz0123456789ABCD');
    expect(text).toContain('npx earshot keys create --project proj_demo');
    expect(text).toContain('export EARSHOT_API_KEY=esk_abcdefghijklmnopqrstuvwxyz0123456789ABCD');
    expect(text).toContain(
      `curl -s -H "X-API-Key: $EARSHOT_API_KEY" 'http://127.0.0.1:8080/v1/podcasts?limit=3'`,
    );
    const later = readyBlock('http://h:1', { kind: 'printed-before', projectId: 'proj_demo' }, 1, 'ready');
    expect(later).toContain('printed when this data dir was created');
    expect(later).not.toMatch(/esk_[A-Za-z0-9]{8}/);
  });

  it('is printed once, after the "ready" log line, only when readiness holds', async () => {
    let ok = false;
    const readiness = new Readiness();
    readiness.add('engine', async () => ({ ok, detail: {} }));
    readiness.describe('search', () => ({
      semantic_state: 'catching_up',
      vector_backlog: { passages: 7, clips: 0, embedded: 3, total: 10 },
    }));
    const order: string[] = [];
    const out = sink();
    const logged = sink();
    const logger = createLogger('info', 'earshot', logged.stream);
    const stop = announceWhenReady({
      readiness,
      url: 'http://127.0.0.1:9',
      demo: { kind: 'bootstrap', projectId: 'proj_demo' },
      logger,
      startedAt: Date.now(),
      out: new Writable({
        write(chunk: Buffer, _e, done) {
          order.push(logged.chunks.length > 0 ? 'after-log' : 'before-log');
          out.chunks.push(chunk.toString());
          done();
        },
      }),
      pollMs: 10,
    });
    await new Promise((r) => setTimeout(r, 60));
    expect(out.chunks).toEqual([]);
    ok = true;
    await new Promise((r) => setTimeout(r, 60));
    stop();
    expect(out.chunks).toHaveLength(1);
    expect(order).toEqual(['after-log']);
    expect(out.chunks[0]).toContain('EARSHOT_BOOTSTRAP_API_KEY');
    expect(out.chunks[0]).toContain('not ready yet (7 passages still to embed; 3 of 10 done)');
    expect(JSON.parse(logged.chunks.join('')).msg).toBe('earshot ready');
  });
});

describe('the ready block once semantic search is ready', () => {
  it('is printed again, last, when semantic search was still catching up at the first', async () => {
    let state = 'catching_up';
    const readiness = new Readiness();
    readiness.add('engine', async () => ({ ok: true, detail: {} }));
    readiness.describe('search', () => ({
      semantic_state: state,
      vector_backlog: { passages: 7, clips: 0, embedded: 3, total: 10 },
    }));
    const out = sink();
    const stop = announceWhenReady({
      readiness,
      url: 'http://127.0.0.1:9',
      demo: { kind: 'minted', key: 'esk_abcdefghijklmnopqrstuvwxyz0123456789ABCD', projectId: 'proj_demo' },
      logger: createLogger('silent', 'earshot', sink().stream),
      startedAt: Date.now(),
      out: out.stream,
      pollMs: 10,
    });
    try {
      await new Promise((r) => setTimeout(r, 80));
      expect(out.chunks).toHaveLength(1);
      expect(out.chunks[0]).toContain('Semantic search not ready yet');
      state = 'ready';
      await new Promise((r) => setTimeout(r, 80));
      expect(out.chunks).toHaveLength(2);
      expect(out.chunks[1]).toMatch(/Semantic search ready \(after \d+\.\d s\)/);
      expect(out.chunks[1]).toContain('export EARSHOT_API_KEY=esk_abcdefghijklmnopqrstuvwxyz0123456789ABCD');
      // Once: nothing more is printed while it stays ready.
      await new Promise((r) => setTimeout(r, 50));
      expect(out.chunks).toHaveLength(2);
    } finally {
      stop();
    }
  });

  it('is printed once when semantic search was ready at the first', async () => {
    const readiness = new Readiness();
    readiness.add('engine', async () => ({ ok: true, detail: {} }));
    readiness.describe('search', () => ({ semantic_state: 'ready' }));
    const out = sink();
    const stop = announceWhenReady({
      readiness,
      url: 'http://127.0.0.1:9',
      logger: createLogger('silent', 'earshot', sink().stream),
      startedAt: Date.now(),
      out: out.stream,
      pollMs: 10,
    });
    await new Promise((r) => setTimeout(r, 80));
    stop();
    expect(out.chunks).toHaveLength(1);
    expect(out.chunks[0]).toContain('Semantic search ready');
  });
});

describe('log format', () => {
  it('is pretty on a terminal and JSON lines otherwise, unless forced', () => {
    expect(logFormatFor('auto', true)).toBe('pretty');
    expect(logFormatFor('auto', false)).toBe('json');
    expect(logFormatFor('json', true)).toBe('json');
    expect(logFormatFor('pretty', false)).toBe('pretty');
  });

  it('writes readable lines in pretty format, redacted like the JSON ones', () => {
    const out = sink();
    const logger = createLogger('info', 'earshot', out.stream, 'pretty');
    logger.info(
      { req: { method: 'GET', url: '/v1/x?api-key=esk_SecretSecretSecretSecret01' } },
      'hello there',
    );
    const text = out.chunks.join('');
    expect(text).toContain('hello there');
    expect(text).toContain('api-key=[REDACTED]');
    expect(text).not.toContain('SecretSecret');
    expect(() => JSON.parse(text)).toThrow();
  });
});
