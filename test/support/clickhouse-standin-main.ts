// TEST STAND-IN, NEVER SHIPPED (.dockerignore leaves it out of the image): runs the ClickHouse
// HTTP stand-in (clickhouse-http-standin.ts) as a process of its own, for `earshot cluster up`
// when no ClickHouse server is configured, so every instance of a local cluster reads and writes
// one analytics store.
//
//   node --import tsx test/support/clickhouse-standin-main.ts --dir DIR --port PORT
import { engineSettings } from '../../projections/analytics/engine-settings.ts';
import { startClickHouseStandIn } from './clickhouse-http-standin.ts';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const dir = arg('dir');
if (!dir) {
  console.error('usage: clickhouse-standin-main.ts --dir DIR [--port PORT]');
  process.exit(2);
}
const standIn = await startClickHouseStandIn({
  dir,
  port: Number(arg('port') ?? 0),
  settings: engineSettings('chdb'),
});
console.log(`ClickHouse HTTP test stand-in (chdb, ${dir}) listening on ${standIn.url}`);
const stop = async () => {
  await standIn.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
