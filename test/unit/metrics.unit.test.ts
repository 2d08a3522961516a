import { describe, expect, it } from 'vitest';
import { consumerMetrics, Metrics } from '../../infra/metrics.ts';

const runner = (name: string, n: number, lag: number | Error) => ({
  name,
  stats: {
    consumed: 10 * n,
    written: 8 * n,
    skipped: n,
    writeRetries: n,
    deadLetteredBy: { decode: n, handle: 0, write: 2 * n },
  },
  lag: async () => {
    if (lag instanceof Error) throw lag;
    return [{ lag }, { lag: 1 }];
  },
});

describe('metrics read', () => {
  it('renders the Prometheus text format, one series per step: members of a group summed, the group lag once', async () => {
    const metrics = new Metrics();
    metrics.add(
      consumerMetrics([
        runner('catalog-projector', 1, 0),
        runner('analytics-mentions', 1, 4),
        runner('analytics-mentions', 2, 4),
        runner('search "names"', 1, new Error('log closed')),
      ]),
    );
    const text = await metrics.render();
    expect(text).toContain('# TYPE earshot_dead_letters_total counter');
    expect(text).toContain('earshot_dead_letters_total{step="analytics-mentions",stage="write"} 6\n');
    expect(text).toContain('earshot_dead_letters_total{step="catalog-projector",stage="decode"} 1\n');
    expect(text).toContain(
      'earshot_consumer_records_total{step="analytics-mentions",outcome="consumed"} 30\n',
    );
    expect(text).toContain('earshot_consumer_lag{step="analytics-mentions"} 5\n');
    expect(text).toContain('earshot_consumer_lag{step="catalog-projector"} 1\n');
    // A lag that cannot be read is left out, never reported as caught up; labels are escaped.
    expect(text).not.toContain('earshot_consumer_lag{step="search');
    expect(text).toContain('earshot_consumer_write_retries_total{step="search \\"names\\""} 1\n');
    const series = text
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.slice(0, l.lastIndexOf(' ')));
    expect(new Set(series).size).toBe(series.length);
  });
});
