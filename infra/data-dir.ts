import path from 'node:path';

/**
 * Where embedded engines, the admin socket and local state live: `EARSHOT_DATA_DIR`, default
 * `./data`, resolved against the working directory. Config uses it; operator commands use it to
 * find a running service's admin socket before (and without) validating the whole configuration.
 */
export function dataDirOf(value: string | undefined): string {
  return path.resolve(value || './data');
}
