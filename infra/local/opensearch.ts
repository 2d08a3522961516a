// OpenSearch 2.19 single node with the k-NN plugin, assembled from Maven Central artifacts:
// the minimal distribution (org.opensearch.distribution.integ-test-zip), the modules the app
// relies on (org.opensearch.plugin:<module> jars + generated plugin descriptors) and the k-NN
// plugin zip (org.opensearch.plugin:opensearch-knn). Started with the distribution's bin/opensearch.
import { chownSync, copyFileSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Engine, type EngineContext, envPort, LOCALHOST } from './engine.ts';
import { buildOnce, copyDependencies, javaFor, unpackArtifact } from './java.ts';
import { assertReachable, http, isRoot, lookupUser, type RunAs, spawnDetached } from './process.ts';

export const OPENSEARCH_VERSION = '2.19.1';
// The k-NN plugin must match the server version exactly; Maven Central has 2.19.1.0 for 2.19.
export const KNN_VERSION = `${OPENSEARCH_VERSION}.0`;
const VERSION = `${OPENSEARCH_VERSION} + k-NN ${KNN_VERSION}`;
const DISTRIBUTION = `org.opensearch.distribution.integ-test-zip:opensearch:${OPENSEARCH_VERSION}:zip`;
const KNN_PLUGIN = `org.opensearch.plugin:opensearch-knn:${KNN_VERSION}:zip`;
const MODULE_POM = fileURLToPath(new URL('./opensearch/pom.xml', import.meta.url));

interface Module {
  name: string;
  artifactId: string;
  classname: string;
  extended?: string;
  policy?: string[];
}

// The integ-test distribution ships only transport-netty4; these are added from Maven Central.
const MODULES: Module[] = [
  {
    name: 'lang-painless',
    artifactId: 'lang-painless',
    classname: 'org.opensearch.painless.PainlessPlugin',
    policy: [
      'java.lang.RuntimePermission "createClassLoader"',
      'java.lang.RuntimePermission "getClassLoader"',
    ],
  },
  {
    name: 'analysis-common',
    artifactId: 'analysis-common',
    classname: 'org.opensearch.analysis.common.CommonAnalysisPlugin',
    extended: 'lang-painless',
  },
  {
    name: 'mapper-extras',
    artifactId: 'mapper-extras-client',
    classname: 'org.opensearch.index.mapper.MapperExtrasPlugin',
  },
  {
    name: 'reindex',
    artifactId: 'reindex-client',
    classname: 'org.opensearch.index.reindex.ReindexPlugin',
    policy: ['java.net.SocketPermission "*", "connect"'],
  },
  {
    name: 'parent-join',
    artifactId: 'parent-join-client',
    classname: 'org.opensearch.join.ParentJoinPlugin',
  },
];

const port = () => envPort('EARSHOT_OPENSEARCH_PORT', 9200);
const transportPort = () => envPort('EARSHOT_OPENSEARCH_TRANSPORT_PORT', 9300);
const base = () => `http://${LOCALHOST}:${port()}`;
const distDir = (ctx: EngineContext) => join(ctx.home, `dist-${OPENSEARCH_VERSION}`);
const osHome = (ctx: EngineContext) => join(distDir(ctx), `opensearch-${OPENSEARCH_VERSION}`);
const confDir = (ctx: EngineContext) => join(ctx.home, 'config');

/** OpenSearch refuses to run as root; as root it runs as `nobody`. */
function runAs(): RunAs | undefined {
  if (!isRoot()) return undefined;
  const user = lookupUser('nobody');
  if (!user) throw new Error('running as root and no `nobody` account to run OpenSearch as');
  return user;
}

async function addModule(home: string, m: Module, ctx: EngineContext): Promise<void> {
  const jars = join(ctx.root, '.maven', `os-${m.name}`);
  rmSync(jars, { recursive: true, force: true });
  await copyDependencies(
    MODULE_POM,
    jars,
    { 'os.module': m.artifactId, 'os.version': OPENSEARCH_VERSION },
    { workDir: join(ctx.root, '.maven'), logFile: ctx.logFile },
  );
  const dir = join(home, 'modules', m.name);
  mkdirSync(dir, { recursive: true });
  const inLib = new Set(readdirSync(join(home, 'lib')));
  for (const jar of readdirSync(jars)) if (!inLib.has(jar)) renameSync(join(jars, jar), join(dir, jar));
  rmSync(jars, { recursive: true, force: true });
  writeFileSync(
    join(dir, 'plugin-descriptor.properties'),
    [
      `description=${m.name} module`,
      `version=${OPENSEARCH_VERSION}`,
      `name=${m.name}`,
      `classname=${m.classname}`,
      'java.version=11',
      `opensearch.version=${OPENSEARCH_VERSION}`,
      `extended.plugins=${m.extended ?? ''}`,
      'has.native.controller=false',
      '',
    ].join('\n'),
  );
  if (m.policy) {
    const grants = m.policy.map((p) => `  permission ${p};`).join('\n');
    writeFileSync(join(dir, 'plugin-security.policy'), `grant {\n${grants}\n};\n`);
  }
}

function writeConfig(ctx: EngineContext): void {
  const conf = confDir(ctx);
  mkdirSync(conf, { recursive: true });
  const heap = process.env.EARSHOT_OPENSEARCH_HEAP ?? '512m';
  writeFileSync(
    join(conf, 'opensearch.yml'),
    [
      'cluster.name: earshot-local',
      'node.name: local-1',
      `network.host: ${LOCALHOST}`,
      `http.port: ${port()}`,
      `transport.port: ${transportPort()}`,
      'discovery.type: single-node',
      `path.data: ${ctx.dataDir}`,
      `path.logs: ${join(ctx.home, 'logs')}`,
      // a developer's nearly full disk must not turn indices read-only
      'cluster.routing.allocation.disk.threshold_enabled: false',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(conf, 'jvm.options'),
    [
      `-Xms${heap}`,
      `-Xmx${heap}`,
      '-XX:+UseG1GC',
      `-Djava.io.tmpdir=${join(ctx.home, 'tmp')}`,
      `-XX:ErrorFile=${join(ctx.home, 'logs', 'hs_err_pid%p.log')}`,
      '18-:-Djava.security.manager=allow',
      '20-:--add-modules=jdk.incubator.vector',
      '-Djava.util.concurrent.ForkJoinPool.common.threadFactory=org.opensearch.secure_sm.SecuredForkJoinWorkerThreadFactory',
      '',
    ].join('\n'),
  );
  mkdirSync(join(conf, 'jvm.options.d'), { recursive: true });
  copyFileSync(join(osHome(ctx), 'config', 'log4j2.properties'), join(conf, 'log4j2.properties'));
}

function chownTree(path: string, who: RunAs): void {
  chownSync(path, who.uid, who.gid);
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true })) {
    chownSync(join(entry.parentPath, entry.name), who.uid, who.gid);
  }
}

export const opensearch: Engine = {
  name: 'opensearch',
  version: VERSION,
  ports: () => [port(), transportPort()],
  url: base,
  env: () => ({ OPENSEARCH_URL: base() }),
  readyTimeoutMs: 180_000,
  stop: { signal: 'SIGTERM', graceMs: 30_000 },

  async prepare(ctx) {
    // 2.19 installs a SecurityManager, which Java 24 removed.
    await javaFor('OpenSearch 2.19', 11, 23);
    const built = await buildOnce(distDir(ctx), async (tmp) => {
      const maven = { workDir: join(ctx.root, '.maven'), logFile: ctx.logFile };
      ctx.progress(`fetching ${DISTRIBUTION} from Maven Central`);
      await unpackArtifact(DISTRIBUTION, tmp, maven);
      const home = join(tmp, `opensearch-${OPENSEARCH_VERSION}`);
      for (const m of MODULES) {
        ctx.progress(`adding module ${m.name} (org.opensearch.plugin:${m.artifactId}:${OPENSEARCH_VERSION})`);
        await addModule(home, m, ctx);
      }
      ctx.progress(`adding plugin ${KNN_PLUGIN}`);
      await unpackArtifact(KNN_PLUGIN, join(home, 'plugins', 'opensearch-knn'), maven);
    });
    if (!built) ctx.progress(`using cached home in ${osHome(ctx)}`);
    writeConfig(ctx);
    for (const dir of [ctx.dataDir, join(ctx.home, 'logs'), join(ctx.home, 'tmp')])
      mkdirSync(dir, { recursive: true });
    const who = runAs();
    if (who) {
      for (const dir of [confDir(ctx), ctx.dataDir, join(ctx.home, 'logs'), join(ctx.home, 'tmp')])
        chownTree(dir, who);
      await assertReachable(join(osHome(ctx), 'lib'), who);
      await assertReachable(ctx.dataDir, who);
    }
    return VERSION;
  },

  async start(ctx) {
    const java = await javaFor('OpenSearch 2.19', 11, 23);
    return spawnDetached({
      cmd: join(osHome(ctx), 'bin', 'opensearch'),
      args: [],
      cwd: ctx.home,
      env: {
        ...process.env,
        JAVA_HOME: java.home,
        OPENSEARCH_JAVA_HOME: java.home,
        OPENSEARCH_PATH_CONF: confDir(ctx),
        OPENSEARCH_TMPDIR: join(ctx.home, 'tmp'),
        OPENSEARCH_JAVA_OPTS: '',
      },
      logFile: ctx.logFile,
      pidFile: ctx.pidFile,
      tag: ctx.tag,
      runAs: runAs(),
    });
  },

  async ready() {
    const res = await http(`${base()}/_cluster/health`);
    if (res?.status !== 200) return false;
    const status = JSON.parse(res.body).status;
    return status === 'green' || status === 'yellow';
  },

  async details() {
    const res = await http(`${base()}/_cat/plugins?format=json`);
    const plugins: { component: string; version: string }[] = res?.status === 200 ? JSON.parse(res.body) : [];
    const knn = plugins.find((p) => p.component === 'opensearch-knn');
    return {
      // The Maven Central plugin zip has no JNI libraries: a faiss or nmslib field (faiss is the
      // default engine when `method` is left out) makes the node exit on the first flush.
      knn: knn
        ? `opensearch-knn ${knn.version}: engine 'lucene' only (no faiss/nmslib native libraries)`
        : 'NOT LOADED',
      modules: ['transport-netty4', ...MODULES.map((m) => m.name)].join(','),
    };
  },
};
