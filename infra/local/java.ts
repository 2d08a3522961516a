// Finding a JDK and Maven, and fetching engine artifacts from Maven Central (cached in ~/.m2).
import {
  accessSync,
  constants,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { run } from './process.ts';

/** maven-dependency-plugin pinned, so `copy-dependencies` / `unpack` behave the same everywhere. */
const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';

export interface Java {
  /** The `java` executable. */
  bin: string;
  /** JAVA_HOME for launch scripts. */
  home: string;
  /** Feature release, e.g. 17. */
  major: number;
}

export function which(cmd: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, cmd);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

let cachedJava: Promise<Java> | undefined;

/** The JDK from EARSHOT_JAVA_HOME, JAVA_HOME or PATH. */
export function findJava(): Promise<Java> {
  cachedJava ??= (async () => {
    const home = process.env.EARSHOT_JAVA_HOME || process.env.JAVA_HOME;
    const bin = home ? join(home, 'bin', 'java') : which('java');
    if (!bin)
      throw new Error(
        'no Java found: install a JDK 17 (apt-get install openjdk-17-jdk-headless) or set JAVA_HOME',
      );
    const props = await run(bin, ['-XshowSettings:properties', '-version']);
    const spec = /java\.specification\.version = (\S+)/.exec(props)?.[1] ?? '0';
    const major = Number(spec.startsWith('1.') ? spec.slice(2) : spec);
    return { bin, home: home ?? dirname(dirname(realpathSync(bin))), major };
  })();
  return cachedJava;
}

/** A Java within [min, max] for the given engine, or a clear error. */
export async function javaFor(engine: string, min: number, max = 99): Promise<Java> {
  const java = await findJava();
  if (java.major < min || java.major > max) {
    const range = max === 99 ? `${min} or newer` : `${min} to ${max}`;
    throw new Error(
      `${engine} needs Java ${range}, found Java ${java.major} at ${java.bin}; set EARSHOT_JAVA_HOME`,
    );
  }
  return java;
}

export interface MavenRun {
  /** Scratch working dir (Maven may write a `target/` dir there). */
  workDir: string;
  logFile: string;
}

async function mvn(args: string[], o: MavenRun): Promise<void> {
  const bin = which('mvn');
  if (!bin) throw new Error('Maven not found: install it (apt-get install maven); it fetches the engines');
  const java = await findJava();
  mkdirSync(o.workDir, { recursive: true });
  await run(bin, ['-B', '-ntp', ...args], {
    cwd: o.workDir,
    env: { ...process.env, JAVA_HOME: java.home },
    logFile: o.logFile,
    timeoutMs: 15 * 60_000,
  });
}

/** Copies a POM's runtime dependency closure (jars) into outDir. */
export function copyDependencies(
  pom: string,
  outDir: string,
  properties: Record<string, string>,
  o: MavenRun,
): Promise<void> {
  const props = Object.entries(properties).map(([k, v]) => `-D${k}=${v}`);
  return mvn(
    [
      '-f',
      pom,
      `${DEPENDENCY_PLUGIN}:copy-dependencies`,
      '-DincludeScope=runtime',
      `-DoutputDirectory=${outDir}`,
      ...props,
    ],
    o,
  );
}

/** Unpacks one artifact (zip / tar.gz, `group:artifact:version:type[:classifier]`) into outDir. */
export async function unpackArtifact(artifact: string, outDir: string, o: MavenRun): Promise<void> {
  // `unpack` skips artifacts it has a marker file for (kept under the working dir): use a fresh one.
  mkdirSync(o.workDir, { recursive: true });
  const workDir = mkdtempSync(join(o.workDir, 'unpack-'));
  try {
    await mvn([`${DEPENDENCY_PLUGIN}:unpack`, `-Dartifact=${artifact}`, `-DoutputDirectory=${outDir}`], {
      ...o,
      workDir,
    });
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/**
 * Downloads one artifact file as is (`group:artifact:version:type[:classifier]`) to `dest`, without
 * reading its POM: maven-dependency-plugin 2.8 `get -Dtransitive=false -Ddest=` is the one goal that
 * does so, and some published POMs are unusable (e.g. Apicurio 3.0.9's parent POM is not on Central).
 */
export function downloadArtifact(artifact: string, dest: string, o: MavenRun): Promise<void> {
  return mvn(
    [
      'org.apache.maven.plugins:maven-dependency-plugin:2.8:get',
      `-Dartifact=${artifact}`,
      '-Dtransitive=false',
      `-Ddest=${dest}`,
    ],
    o,
  );
}

/**
 * Builds `dir` once: `build` fills a temporary sibling, which is renamed into place only when
 * complete, so an interrupted download never leaves a half-built dir behind.
 */
export async function buildOnce(dir: string, build: (tmp: string) => Promise<void>): Promise<boolean> {
  try {
    if (readdirSync(dir).length > 0) return false;
  } catch {
    // not built yet
  }
  const tmp = `${dir}.partial`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  await build(tmp);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return true;
}
