import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Session } from 'chdb';

/**
 * TEST STAND-IN, NEVER SHIPPED: an HTTP endpoint that speaks the subset of ClickHouse's HTTP
 * interface `@clickhouse/client` uses, and executes every statement on chdb (the ClickHouse
 * engine, in this process). It exists because no ClickHouse server can run on the machines the
 * engine suites run on; it lets the `@clickhouse/client` adapter
 * (projections/analytics/clickhouse-analytics-store.ts) run its contract suite, and lets several
 * processes of a local cluster share one analytics store. With `CLICKHOUSE_URL` set, the suites
 * use that server instead.
 *
 * What it implements:
 * - `GET /ping` → `Ok.`;
 * - `POST /?query=…` with the data as the body (inserts: `client.insert`, `client.exec`), and
 *   `POST /` with the statement as the body (`client.query`, `client.command`);
 * - `database` (applied with `USE`), `param_<name>` values bound to `{name:Type}` placeholders
 *   (substituted as typed literals: `CAST('…' AS Type)`, arrays and tuples as the client wrote
 *   them), and every other parameter that is not the HTTP interface's own taken as a setting
 *   (applied with `SET` when its value changes);
 * - answers: 200 with the statement's output in its `FORMAT` (TabSeparated when it names none),
 *   `X-ClickHouse-Query-Id`, `X-ClickHouse-Format` and `X-ClickHouse-Summary`; a failure is
 *   answered 500 with the engine's `Code: N. DB::Exception: …` text and
 *   `X-ClickHouse-Exception-Code`, which the client turns into its error with that code.
 *
 * What it does not: authentication (any user is accepted), sessions (`session_id` is ignored),
 * compression (answers are never compressed, which the client accepts), progress headers,
 * multipart parameters, or running statements concurrently (they run one at a time, as chdb
 * has one engine per process).
 */
export interface ClickHouseStandIn {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Statements executed so far (a test can check traffic went through it). */
  readonly statements: number;
  close(): Promise<void>;
}

const HTTP_PARAMS = new Set([
  'query',
  'query_id',
  'database',
  'session_id',
  'session_timeout',
  'session_check',
  'role',
  'default_format',
  'user',
  'password',
  'quota_key',
  'enable_http_compression',
  'http_zlib_compression_level',
  'wait_end_of_query',
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'buffer_size',
  'compress',
  'decompress',
]);

export async function startClickHouseStandIn(opts: {
  dir: string;
  port?: number;
  host?: string;
  /** Settings the engine starts with (as chdb connection arguments). */
  settings?: Record<string, string | number>;
}): Promise<ClickHouseStandIn> {
  fs.mkdirSync(opts.dir, { recursive: true });
  const args = Object.entries(opts.settings ?? {}).map(([k, v]) => `--${k}=${v}`);
  const session = new Session(opts.dir, { connectionArgs: args });
  let database = 'default';
  const applied = new Map<string, string>();
  let queue: Promise<unknown> = Promise.resolve();
  let statements = 0;

  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };

  async function execute(sql: string, search: URLSearchParams): Promise<{ body: Buffer; summary: object }> {
    const wanted = search.get('database') || 'default';
    if (wanted !== database) {
      await session.queryAsync(`USE ${quoteIdentifier(wanted)}`, { format: 'Null' });
      database = wanted;
    }
    for (const [name, value] of search) {
      if (HTTP_PARAMS.has(name) || name.startsWith('param_') || applied.get(name) === value) continue;
      await session.queryAsync(`SET ${name} = ${settingLiteral(value)}`, { format: 'Null' });
      applied.set(name, value);
    }
    const bound = bindParams(sql, search);
    statements++;
    const result = await session.queryAsync(bound, { format: 'TabSeparated' });
    const body = Buffer.from(result.bytes());
    return {
      body,
      summary: {
        read_rows: String(result.rowsRead),
        read_bytes: String(result.bytesRead),
        written_rows: '0',
        written_bytes: '0',
        total_rows_to_read: '0',
        result_rows: '0',
        result_bytes: String(body.length),
        elapsed_ns: String(Math.round(result.elapsed * 1e9)),
      },
    };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      if (url.pathname === '/ping') {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
        return;
      }
      if (url.pathname !== '/') {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('There is no handle for this path\n');
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const query = url.searchParams.get('query');
      const sql = query ? (body.length > 0 ? `${query}\n${body}` : query) : body;
      const queryId = url.searchParams.get('query_id') || randomUUID();
      exclusive(() => execute(sql, url.searchParams)).then(
        ({ body: out, summary }) => {
          res
            .writeHead(200, {
              'Content-Type': 'text/plain; charset=UTF-8',
              'X-ClickHouse-Query-Id': queryId,
              'X-ClickHouse-Format': formatOf(sql),
              'X-ClickHouse-Summary': JSON.stringify(summary),
            })
            .end(out);
        },
        (err: unknown) => {
          const { code, text } = exceptionOf(err);
          res
            .writeHead(code === 62 ? 400 : code === 60 || code === 81 ? 404 : 500, {
              'Content-Type': 'text/plain; charset=UTF-8',
              'X-ClickHouse-Query-Id': queryId,
              'X-ClickHouse-Exception-Code': String(code),
            })
            .end(text);
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get statements() {
      return statements;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue;
      session.close();
    },
  };
}

/** `{name:Type}` placeholders → typed literals from the `param_name` values the client sent. */
function bindParams(sql: string, search: URLSearchParams): string {
  return sql.replace(
    /\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([^{}]+?)\s*\}/g,
    (whole, name: string, type: string) => {
      const value = search.get(`param_${name}`);
      if (value === null) return whole; // the engine reports the missing parameter
      if (type === 'Identifier') return quoteIdentifier(value);
      if (value === '\\N') return `CAST(NULL AS ${type})`;
      const base = type
        .replace(/^(Nullable|LowCardinality)\((.*)\)$/, '$2')
        .replace(/^(Nullable|LowCardinality)\((.*)\)$/, '$2');
      // The client writes arrays, tuples and maps as literals; scalars in the escaped text form,
      // which is the body of a quoted literal.
      if (/^(Array|Tuple|Map)\(/.test(base)) return `CAST(${value} AS ${type})`;
      return `CAST('${value}' AS ${type})`;
    },
  );
}

function quoteIdentifier(name: string): string {
  return `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;
}

function settingLiteral(value: string): string {
  return /^-?\d+(\.\d+)?$/.test(value) ? value : `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

function formatOf(sql: string): string {
  return /\bFORMAT\s+([A-Za-z]+)\s*$/i.exec(sql.slice(-200))?.[1] ?? 'TabSeparated';
}

function exceptionOf(err: unknown): { code: number; text: string } {
  const e = err as { message?: unknown; clickhouseCode?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  const fromText = /Code: (\d+)/.exec(message)?.[1];
  const code = typeof e.clickhouseCode === 'number' ? e.clickhouseCode : fromText ? Number(fromText) : 1001;
  const text = /Code: \d+\. DB::Exception:/.test(message)
    ? message
    : `Code: ${code}. DB::Exception: ${message}. (STD_EXCEPTION)`;
  return { code, text: text.endsWith('\n') ? text : `${text}\n` };
}
