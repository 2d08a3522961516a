import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

/** Streams the `data` of every record of one NDJSON file of a generated corpus. */
export async function* readRecords<T>(file: string): AsyncGenerator<T> {
  const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const line of rl) {
    if (line.length === 0) continue;
    const parsed = JSON.parse(line) as { data?: T } & T;
    yield (parsed.data ?? parsed) as T;
  }
}

export async function readAll<T>(file: string): Promise<T[]> {
  const out: T[] = [];
  for await (const r of readRecords<T>(file)) out.push(r);
  return out;
}

export function corpusFile(dir: string, file: string): string {
  return path.join(dir, file);
}
