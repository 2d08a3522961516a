import path from 'node:path';
import { FormatRegistry, type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { CRASH_POINTS } from '../ingest/loader/batch-ingest.ts';

if (!FormatRegistry.Has('uri')) FormatRegistry.Set('uri', (v) => URL.canParse(v));

/**
 * The one environment schema. Every setting the service reads is declared here; anything else
 * reads `Config`, never `process.env`.
 */
const Roles = ['api', 'ingest', 'processors', 'projectors', 'senders'] as const;
export type Role = (typeof Roles)[number];
export const ALL_ROLES: readonly Role[] = Roles;

const OptionalUrl = (description: string) => Type.Optional(Type.String({ format: 'uri', description }));

export const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'HTTP port of the API role' }),
  HOST: Type.String({ default: '127.0.0.1', description: 'interface the HTTP server binds to' }),
  EARSHOT_DATA_DIR: Type.String({ default: './data', description: 'where embedded engines keep their data' }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info', description: 'pino log level' },
  ),
  EARSHOT_ROLES: Type.String({ default: 'all', description: 'comma-separated roles or `all`' }),
  EARSHOT_DEMO: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description: 'load the demo corpus on an empty data dir',
  }),
  EARSHOT_TOPIC_PREFIX: Type.String({
    default: '',
    pattern: '^[a-zA-Z0-9._-]*$',
    description: 'prefix for every topic name (isolates tenants and test runs on a shared broker)',
  }),
  KAFKA_BROKERS: Type.Optional(
    Type.String({
      pattern: '^[^,\\s]+(,[^,\\s]+)*$',
      description: 'comma-separated host:port list; unset = embedded log',
    }),
  ),
  KAFKA_CLIENT_ID: Type.String({ default: 'earshot' }),
  SCHEMA_REGISTRY_URL: OptionalUrl('Confluent-compatible schema registry; unset = embedded registry'),
  CLICKHOUSE_URL: OptionalUrl('ClickHouse HTTP endpoint; unset = embedded chdb'),
  OPENSEARCH_URL: OptionalUrl('OpenSearch endpoint; unset = embedded LanceDB'),
  EARSHOT_SEARCH_INDEX_PREFIX: Type.String({
    default: 'earshot-',
    pattern: '^[a-z0-9._-]*$',
    description: 'prefix of the OpenSearch index names',
  }),
  EARSHOT_EMBEDDINGS_URL: OptionalUrl(
    'OpenAI-compatible /v1/embeddings server; unset = the local ONNX model',
  ),
  EARSHOT_EMBEDDINGS_MODEL: Type.Optional(
    Type.String({ description: 'model name sent to the embeddings server' }),
  ),
  EARSHOT_EMBEDDINGS_API_KEY: Type.Optional(
    Type.String({ description: 'bearer token for the embeddings server' }),
  ),
  EARSHOT_EMBEDDINGS_DIMENSIONS: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 16_384, description: 'vector size of the embeddings server' }),
  ),
  EARSHOT_EMBEDDINGS_THREADS: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 2,
    description: 'threads the local model uses for indexing',
  }),
  EARSHOT_EMBEDDINGS_FETCH: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description: 'download the local model at start when it is not cached',
  }),
  EARSHOT_MODELS_DIR: Type.Optional(
    Type.String({ description: 'where local models are cached; default DATA_DIR/models' }),
  ),
  DATABASE_URL: OptionalUrl('PostgreSQL connection string; unset = embedded PGlite'),
  EARSHOT_PUBLIC_URL: Type.Optional(
    Type.String({ format: 'uri', description: 'public base URL of the API; default http://HOST:PORT' }),
  ),
  EARSHOT_DOCS_URL: Type.String({
    format: 'uri',
    default: 'https://docs.earshot.dev',
    description: 'documentation host',
  }),
  EARSHOT_DASHBOARD_URL: Type.String({
    format: 'uri',
    default: 'https://dashboard.earshot.dev',
    description: 'account dashboard',
  }),
  EARSHOT_BOOTSTRAP_API_KEY: Type.Optional(
    Type.String({
      pattern: '^esk_[A-Za-z0-9_-]{24,}$',
      description: 'fixed API key for the demo project (esk_…)',
    }),
  ),
  RATE_LIMIT_PER_MINUTE: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: "requests per key and minute for every key, instead of each plan's limit",
    }),
  ),
  RATE_LIMIT_FAILED_AUTH_PER_MINUTE: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'failed authentications allowed per client address and minute (default 20; half of it per key prefix)',
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
    description: 'largest batch body on POST /v1/ingest/batches',
  }),
  EARSHOT_INGEST_TOKEN: Type.Optional(
    Type.String({
      pattern: '^eit_[A-Za-z0-9_-]{24,}$',
      description: 'an ingest token (eit_…) registered at start, for HTTP batch ingest',
    }),
  ),
  SMTP_URL: Type.Optional(
    Type.String({
      pattern: '^smtps?://',
      description: 'SMTP server for alert mail (smtp://user:pass@host:587, smtps://…); unset = no email',
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
      'CIDRs webhooks, the chat API and feed fetches may reach although not public, and over plain http (e.g. 127.0.0.1/32)',
  }),
  EARSHOT_SECRETS_KEY: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9+/]{43}=$',
      description:
        'base64 of 32 bytes; encrypts stored secrets, signs email links and cursors; unset = DATA_DIR/secrets.key',
    }),
  ),
  EARSHOT_CHAT_API_URL: Type.String({
    format: 'uri',
    default: 'https://slack.com/api',
    description: 'team-chat Web API base (chat.postMessage-compatible)',
  }),
  EARSHOT_DELIVERY_RETRY_SCHEDULE: Type.String({
    default: '0s,5s,5m,30m,2h',
    pattern: '^\\s*\\d+(\\.\\d+)?(ms|s|m|h)(\\s*,\\s*\\d+(\\.\\d+)?(ms|s|m|h))*\\s*$',
    description: 'delay before each delivery attempt (one entry per attempt)',
  }),
  EARSHOT_DELIVERY_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 256,
    description: 'deliveries one sender process attempts at once (at most 64 connections per destination)',
  }),
  EARSHOT_TEST_CRASH_AT: Type.Optional(
    Type.Union(
      CRASH_POINTS.map((p) => Type.Literal(p)),
      {
        description:
          'tests only: the process kills itself (SIGKILL) at this point of an HTTP ingest batch; unset = never',
      },
    ),
  ),
  EARSHOT_STREAMS_PER_KEY: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 5,
    description:
      'streams (live, archive replay, bulk download) one API key may hold open at once, per API process',
  }),
  EARSHOT_STREAM_BUFFER_BYTES: Type.Integer({
    minimum: 65_536,
    maximum: 1_073_741_824,
    default: 8_388_608,
    description: 'bytes a stream may have waiting for a slow client before it is sent an error and closed',
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
      'how far back the live episode stream resumes; an older cursor restarts from the oldest retained',
  }),
  EARSHOT_STREAM_POLL_MS: Type.Integer({
    minimum: 10,
    maximum: 60_000,
    default: 250,
    description:
      'how often an API process reads the live order while a stream waits (its own projector wakes it at once)',
  }),
  EARSHOT_ARCHIVE_CACHE_DIR: Type.Optional(
    Type.String({
      description: 'where bulk downloads of the archive are built; default DATA_DIR/archive-cache',
    }),
  ),
  EARSHOT_ARCHIVE_CACHE_TTL_S: Type.Integer({
    minimum: 0,
    maximum: 86_400,
    default: 600,
    description:
      'seconds a built day of a bulk download is served before it is built again (catalog changes)',
  }),
  CONSUMER_BATCH_SIZE: Type.Integer({ minimum: 1, maximum: 100_000, default: 2000 }),
  CONSUMER_BATCH_WAIT_MS: Type.Integer({ minimum: 1, maximum: 60_000, default: 1000 }),
  EARSHOT_ANALYTICS_BATCH_SIZE: Type.Integer({ minimum: 1, maximum: 100_000, default: 8000 }),
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
  if (parts.length === 1 && parts[0] === 'all') return new Set(Roles);
  const unknown = parts.filter((p) => !(Roles as readonly string[]).includes(p));
  if (unknown.length > 0 || parts.length === 0) {
    throw new ConfigError([
      { variable: 'EARSHOT_ROLES', message: `expected "all" or a list of ${Roles.join(', ')}`, value: spec },
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

/** Public base URL of the API: `EARSHOT_PUBLIC_URL`, else `http://HOST:PORT`, without a trailing slash. */
export function publicUrlOf(config: Config): string {
  const { env } = config;
  return (
    env.EARSHOT_PUBLIC_URL ?? `http://${env.HOST === '0.0.0.0' ? '127.0.0.1' : env.HOST}:${env.PORT}`
  ).replace(/\/$/, '');
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
  return { env, dataDir: path.resolve(env.EARSHOT_DATA_DIR), roles: parseRoles(env.EARSHOT_ROLES) };
}
