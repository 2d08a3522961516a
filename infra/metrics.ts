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

/** The pipeline's steps: records consumed, written and skipped, dead letters, retries, lag. */
export function consumerMetrics(runners: readonly ConsumerStats[]): MetricSource {
  return async () => {
    const lags = await Promise.all(
      runners.map(async (r) => (await r.lag().catch(() => [])).reduce((s, p) => s + p.lag, 0)),
    );
    return [
      {
        name: 'earshot_consumer_records_total',
        help: 'Records each pipeline step consumed, wrote (items) and skipped since the process started.',
        type: 'counter',
        samples: runners.flatMap((r) =>
          (['consumed', 'written', 'skipped'] as const).map((outcome) => ({
            labels: { step: r.name, outcome },
            value: r.stats[outcome],
          })),
        ),
      },
      {
        name: 'earshot_dead_letters_total',
        help: 'Records each pipeline step set aside on its dead-letter topics since the process started, by where (decode, handle, write).',
        type: 'counter',
        samples: runners.flatMap((r) =>
          Object.entries(r.stats.deadLetteredBy).map(([stage, value]) => ({
            labels: { step: r.name, stage },
            value,
          })),
        ),
      },
      {
        name: 'earshot_consumer_write_retries_total',
        help: 'Failed writes each pipeline step retried since the process started.',
        type: 'counter',
        samples: runners.map((r) => ({ labels: { step: r.name }, value: r.stats.writeRetries })),
      },
      {
        name: 'earshot_consumer_lag',
        help: "Records in each step's topics its consumer group has not committed yet.",
        type: 'gauge',
        samples: runners.map((r, i) => ({ labels: { step: r.name }, value: lags[i]! })),
      },
    ];
  };
}
