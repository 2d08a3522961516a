#!/usr/bin/env node
// Records, in package-lock.json, the platform-specific optional packages of native
// dependencies (other OSes, CPUs and libcs) that the registry this project installs from does
// not carry. npm skips them at install time on a non-matching platform, but `npm ci` insists
// that every optional dependency named by a locked package has an entry in the lock file.
// Run after `npm install` whenever a native dependency changes: node scripts/lockfile-platforms.mjs
import fs from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(fs.readFileSync(LOCK, 'utf8'));
const packages = lock.packages;

function platformOf(name) {
  const n = name.split('/').pop();
  const os = /android/.test(n)
    ? 'android'
    : /darwin/.test(n)
      ? 'darwin'
      : /win32/.test(n)
        ? 'win32'
        : /linux/.test(n)
          ? 'linux'
          : undefined;
  const cpu = /arm64/.test(n) ? 'arm64' : /x64/.test(n) ? 'x64' : /-arm(-|$)/.test(n) ? 'arm' : undefined;
  const libc = /musl/.test(n) ? 'musl' : os === 'linux' ? 'glibc' : undefined;
  return { os, cpu, libc };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path === '' ? '' : `${path}/`;
    const key = `${base}node_modules/${dep}`;
    if (packages[key] || packages[`node_modules/${dep}`]) continue;
    const { os, cpu, libc } = platformOf(dep);
    if (!os || !cpu) continue;
    packages[`node_modules/${dep}`] = {
      version: version.replace(/^[\^~=]/, ''),
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os: [os],
      cpu: [cpu],
      ...(libc ? { libc: [libc] } : {}),
    };
    added++;
  }
}
const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
fs.writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`recorded ${added} platform packages`);
