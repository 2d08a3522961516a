import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints, after an engines run, how many tests ran, passed, failed and were skipped per suite
 * (one suite per engine and port), so a skipped engine is visible rather than hidden.
 */
export default class EngineSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const rows = new Map<string, { passed: number; failed: number; skipped: number }>();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        let suite = test.parent;
        while (suite.type === 'suite' && suite.parent.type === 'suite') suite = suite.parent;
        const name = suite.type === 'suite' ? suite.name : test.name;
        const row = rows.get(name) ?? { passed: 0, failed: 0, skipped: 0 };
        const state = test.result().state;
        if (state === 'passed') row.passed++;
        else if (state === 'failed') row.failed++;
        else row.skipped++;
        rows.set(name, row);
      }
    }
    const lines = [...rows].map(
      ([name, r]) =>
        `  ${name.padEnd(64)} ran ${String(r.passed + r.failed).padStart(3)}  passed ${String(r.passed).padStart(3)}  failed ${String(r.failed).padStart(2)}  skipped ${String(r.skipped).padStart(2)}`,
    );
    process.stdout.write(`\nEngine suites:\n${lines.join('\n')}\n\n`);
  }
}
