// Apicurio Registry 3.0 (Quarkus app from Maven Central), used through its Confluent-compatible API.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Engine, type EngineContext, envPort, LOCALHOST } from './engine.ts';
import { buildOnce, downloadArtifact, javaFor } from './java.ts';
import { http, run, spawnDetached } from './process.ts';

// 3.0.9 is the newest Apicurio 3.x built for Java 17; later 3.x releases need Java 21.
export const APICURIO_VERSION = '3.0.9';
const ARTIFACT = `io.apicurio:apicurio-registry-app:${APICURIO_VERSION}:tar.gz:all`;
const COMPATIBILITY = 'BACKWARD';

const port = () => envPort('EARSHOT_SCHEMA_REGISTRY_PORT', 8081);
const base = () => `http://${LOCALHOST}:${port()}`;
const ccompat = () => `${base()}/apis/ccompat/v7`;
const distDir = (ctx: EngineContext) => join(ctx.home, `dist-${APICURIO_VERSION}`);
const CONTENT_TYPE = { 'Content-Type': 'application/vnd.schemaregistry.v1+json' };

function runnerJar(ctx: EngineContext): string {
  const jar = readdirSync(distDir(ctx)).find((f) => f.endsWith('-runner.jar'));
  if (jar) return join(distDir(ctx), jar);
  const fastJar = join(distDir(ctx), 'quarkus-run.jar'); // layout of later releases
  if (existsSync(fastJar)) return fastJar;
  throw new Error(`no runnable jar in ${distDir(ctx)}; delete that dir to fetch it again`);
}

export const schemaRegistry: Engine = {
  name: 'schema-registry',
  version: APICURIO_VERSION,
  ports: () => [port()],
  url: ccompat,
  env: () => ({ SCHEMA_REGISTRY_URL: ccompat() }),
  readyTimeoutMs: 90_000,
  stop: { signal: 'SIGTERM', graceMs: 15_000 },

  async prepare(ctx) {
    await javaFor('Apicurio Registry 3.0', 17);
    const built = await buildOnce(distDir(ctx), async (tmp) => {
      ctx.progress(`fetching ${ARTIFACT} from Maven Central`);
      const archive = join(ctx.root, '.maven', `apicurio-registry-app-${APICURIO_VERSION}-all.tar.gz`);
      await downloadArtifact(ARTIFACT, archive, { workDir: join(ctx.root, '.maven'), logFile: ctx.logFile });
      await run('tar', ['-xzf', archive, '-C', tmp], { logFile: ctx.logFile });
      rmSync(archive, { force: true });
    });
    if (!built) ctx.progress(`using cached app in ${distDir(ctx)}`);
    return APICURIO_VERSION;
  },

  async start(ctx) {
    const java = await javaFor('Apicurio Registry 3.0', 17);
    return spawnDetached({
      cmd: java.bin,
      args: [
        '-Xms128m',
        `-Xmx${process.env.EARSHOT_SCHEMA_REGISTRY_HEAP ?? '512m'}`,
        `-Dquarkus.http.host=${LOCALHOST}`,
        `-Dquarkus.http.port=${port()}`,
        // Default global rule: an incompatible new version of a subject is rejected (409).
        `-Dapicurio.rules.global.compatibility=${COMPATIBILITY}`,
        // H2 on disk instead of in memory: schema ids must survive a restart, as Kafka's records
        // (which carry those ids) do.
        `-Dapicurio.datasource.url=jdbc:h2:file:${join(ctx.dataDir, 'registry')}`,
        '-jar',
        runnerJar(ctx),
      ],
      cwd: ctx.home,
      env: process.env,
      logFile: ctx.logFile,
      pidFile: ctx.pidFile,
      tag: ctx.tag,
    });
  },

  async ready() {
    return (await http(`${ccompat()}/subjects`))?.status === 200;
  },

  /** Make the ccompat `GET /config` report the global rule too (it only shows stored config). */
  async afterReady() {
    const current = await http(`${ccompat()}/config`);
    if (current?.status === 200 && JSON.parse(current.body).compatibilityLevel === COMPATIBILITY) return;
    const res = await http(`${ccompat()}/config`, {
      method: 'PUT',
      headers: CONTENT_TYPE,
      body: JSON.stringify({ compatibility: COMPATIBILITY }),
    });
    if (res?.status !== 200)
      throw new Error(`could not set global compatibility: ${res?.status} ${res?.body}`);
  },

  async details() {
    const info = await http(`${base()}/apis/registry/v3/system/info`);
    const version = info?.status === 200 ? String(JSON.parse(info.body).version) : 'unknown';
    return { apicurio: version, compatibility: COMPATIBILITY, storage: 'h2 file' };
  },
};
