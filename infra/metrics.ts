/**
 * A small metrics read in the Prometheus text exposition format (version 0.0.4), served at
 * `GET /metrics`. Sources are read on each request, so the answer reflects the present, like
 * readiness. Counters count since the process started.
 */
export interface MetricFamily {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  samples: { labels: Record<string, string>; value: number }[];
}

export type MetricSource = () => MetricFamily[] | Promise<MetricFamily[]>;

const escapeLabel = (v: string) => v.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');

export class Metrics {
  private readonly sources: MetricSource[] = [];

  add(source: MetricSource): void {
    this.sources.push(source);
  }

  async families(): Promise<MetricFamily[]> {
    return (await Promise.all(this.sources.map((s) => s()))).flat();
  }

  async render(): Promise<string> {
    const lines: string[] = [];
    for (const f of await this.families()) {
      lines.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} ${f.type}`);
      for (const s of f.samples) {
        const labels = Object.entries(s.labels)
          .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
          .join(',');
        lines.push(`${f.name}${labels ? `{${labels}}` : ''} ${s.value}`);
      }
    }
    return `${lines.join('\n')}\n`;
  }
}

/** What a consumer runner reports (processors/consumer-runner.ts). */
interface ConsumerStats {
  name: string;
  stats: {
    consumed: number;
    written: number;
    skipped: number;
    writeRetries: number;
    deadLetteredBy: Record<string, number>;
  };
  lag(): Promise<{ lag: number }[]>;
}

/**
 * The pipeline's steps: records consumed, written and skipped, dead letters, retries, lag. A step
 * that runs as several members of its group (the heavy analytics projectors) is one series: its
 * members' counts are summed, and its lag (the group's) is counted once.
 */
export function consumerMetrics(runners: readonly ConsumerStats[]): MetricSource {
  return async () => {
    const steps = new Map<string, ConsumerStats[]>();
    for (const r of runners) steps.set(r.name, [...(steps.get(r.name) ?? []), r]);
    const sum = (members: ConsumerStats[], read: (s: ConsumerStats['stats']) => number) =>
      members.reduce((n, m) => n + read(m.stats), 0);
    // A lag that cannot be read is left out rather than reported as 0 (caught up).
    const lags = new Map<string, number>();
    await Promise.all(
      [...steps].map(async ([name, members]) => {
        const lag = await members[0]!.lag().catch(() => undefined);
        if (lag)
          lags.set(
            name,
            lag.reduce((s, p) => s + p.lag, 0),
          );
      }),
    );
    const entries = [...steps];
    return [
      {
        name: 'earshot_consumer_records_total',
        help: 'Records each pipeline step consumed, wrote (items) and skipped since the process started.',
        type: 'counter',
        samples: entries.flatMap(([name, members]) =>
          (['consumed', 'written', 'skipped'] as const).map((outcome) => ({
            labels: { step: name, outcome },
            value: sum(members, (s) => s[outcome]),
          })),
        ),
      },
      {
        name: 'earshot_dead_letters_total',
        help: 'Records each pipeline step set aside on its dead-letter topics since the process started, by where (decode, handle, write).',
        type: 'counter',
        samples: entries.flatMap(([name, members]) =>
          Object.keys(members[0]!.stats.deadLetteredBy).map((stage) => ({
            labels: { step: name, stage },
            value: sum(members, (s) => s.deadLetteredBy[stage] ?? 0),
          })),
        ),
      },
      {
        name: 'earshot_consumer_write_retries_total',
        help: 'Failed writes each pipeline step retried since the process started.',
        type: 'counter',
        samples: entries.map(([name, members]) => ({
          labels: { step: name },
          value: sum(members, (s) => s.writeRetries),
        })),
      },
      {
        name: 'earshot_consumer_lag',
        help: "Records in each step's topics its consumer group has not committed yet.",
        type: 'gauge',
        samples: [...lags].map(([name, value]) => ({ labels: { step: name }, value })),
      },
    ];
  };
}
