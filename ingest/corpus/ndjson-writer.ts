import fs from 'node:fs';
import path from 'node:path';

/** Buffered NDJSON file writer that respects back-pressure. */
export class NdjsonWriter {
  private readonly stream: fs.WriteStream;
  private buffer: string[] = [];
  private bytes = 0;
  count = 0;

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.stream = fs.createWriteStream(file, { highWaterMark: 1 << 20 });
  }

  /** Queues one record; call `drain()` now and then to write what was queued. */
  write(value: unknown): void {
    const line = `${JSON.stringify(value)}\n`;
    this.buffer.push(line);
    this.bytes += line.length;
    this.count++;
  }

  get pending(): number {
    return this.bytes;
  }

  async drain(): Promise<void> {
    if (this.buffer.length === 0) return;
    const chunk = this.buffer.join('');
    this.buffer = [];
    this.bytes = 0;
    if (!this.stream.write(chunk)) await new Promise<void>((resolve) => this.stream.once('drain', resolve));
  }

  async close(): Promise<void> {
    await this.drain();
    await new Promise<void>((resolve, reject) =>
      this.stream.end((err?: Error | null) => (err ? reject(err) : resolve())),
    );
  }
}
