import type { CheckResult, ReadinessProbe, ReadinessReport } from '../api/routes/health.ts';

/**
 * Readiness: the process is ready once every check passes. Checks are cheap and run on each
 * `/readyz` request, so the answer always reflects the present. The API declares what it reads
 * (`ReadinessProbe`); the service adds the checks of the roles it runs.
 */
export type Check = () => Promise<CheckResult>;

export class Readiness implements ReadinessProbe {
  private readonly checks = new Map<string, Check>();
  private readonly info = new Map<string, () => unknown>();

  add(name: string, check: Check): void {
    this.checks.set(name, check);
  }

  /** Facts reported by /readyz that do not decide readiness (e.g. which search modes work). */
  describe(name: string, fact: () => unknown): void {
    this.info.set(name, fact);
  }

  async evaluate(): Promise<ReadinessReport> {
    const checks: Record<string, CheckResult> = {};
    await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        try {
          checks[name] = await check();
        } catch (err) {
          checks[name] = { ok: false, detail: (err as Error).message };
        }
      }),
    );
    const info: Record<string, unknown> = {};
    for (const [name, fact] of this.info) info[name] = fact();
    return { ready: Object.values(checks).every((c) => c.ok), checks, info };
  }
}
