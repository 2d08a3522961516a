import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

/**
 * Per-file CPU time, for finding where `npm test` spends it (EARSHOT_TEST_CPU_LOG=<file> adds
 * this as a setup file): one JSON line per test file with the CPU-seconds of the file's process
 * before the file, while importing its modules and while running its tests, and of the child processes it started
 * and waited for (`earshot` services and commands). Read from /proc/self/stat, so unlike wall
 * time it hardly depends on what else the machine runs. Linux only.
 */
function ticks(): number[] {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime, cstime (fields 14-17 of proc(5)), in clock ticks of 1/100 s.
  return [11, 12, 13, 14].map((i) => Number(fields[i]));
}
const own = (t: number[]) => (t[0]! + t[1]!) / 100;
const children = (t: number[]) => (t[2]! + t[3]!) / 100;
const round = (n: number) => Math.round(n * 100) / 100;

const atLoad = ticks();
const loadedAt = Date.now();
let atCollected = atLoad;
let collectedAt = loadedAt;

beforeAll(() => {
  atCollected = ticks();
  collectedAt = Date.now();
});

afterAll(() => {
  const now = ticks();
  const out = process.env['EARSHOT_TEST_CPU_LOG'];
  if (!out) return;
  const file = path.relative(process.cwd(), expect.getState().testPath ?? 'unknown');
  fs.appendFileSync(
    out,
    `${JSON.stringify({
      file,
      // The worker process before this file (its start, or the files it ran before).
      boot_cpu_s: round(own(atLoad)),
      import_cpu_s: round(own(atCollected) - own(atLoad)),
      run_cpu_s: round(own(now) - own(atCollected)),
      children_cpu_s: round(children(now) - children(atLoad)),
      wall_s: round((Date.now() - loadedAt) / 1000),
      run_wall_s: round((Date.now() - collectedAt) / 1000),
    })}\n`,
  );
});
