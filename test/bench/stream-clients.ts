import { parentPort, workerData } from 'node:worker_threads';
import { EventSource } from 'eventsource';

/**
 * Stream clients for the streams benchmark, run in a worker thread so that their parsing does not
 * share the server's event loop: `live` holds many EventSources on the live stream and reports each
 * episode as it arrives; `replay` reads an archive replay to its end; `download` reads a bulk
 * download (gzip, decoded as a client would) to its end.
 */
type Job =
  | { mode: 'live'; url: string; key: string; clients: number }
  | { mode: 'replay'; url: string; key: string }
  | { mode: 'download'; url: string; key: string };

const job = workerData as Job;
const port = parentPort!;

const withKey = (key: string) => (input: string | URL | Request, init?: RequestInit) =>
  fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-api-key': key } });

if (job.mode === 'live') {
  const sources: EventSource[] = [];
  let ready = 0;
  for (let i = 0; i < job.clients; i++) {
    const source = new EventSource(job.url, { fetch: withKey(job.key) });
    let counted = false;
    source.addEventListener('position', () => {
      if (!counted) {
        counted = true;
        if (++ready === job.clients) port.postMessage({ type: 'ready' });
      }
    });
    source.addEventListener('episode', (e) => {
      const at = Date.now();
      // The record's id without parsing all of it (it starts with {"id":"…").
      const data = (e as MessageEvent).data as string;
      port.postMessage({
        type: 'episode',
        client: i,
        id: data.slice(7, data.indexOf('"', 7)),
        at,
        bytes: data.length,
      });
    });
    sources.push(source);
  }
  port.on('message', (msg: { type: string }) => {
    if (msg.type === 'close') {
      for (const s of sources) s.close();
      port.postMessage({ type: 'closed' });
    }
  });
} else if (job.mode === 'replay') {
  const started = performance.now();
  let episodes = 0;
  let bytes = 0;
  const source = new EventSource(job.url, { fetch: withKey(job.key) });
  source.addEventListener('episode', (e) => {
    episodes++;
    bytes += ((e as MessageEvent).data as string).length;
  });
  source.addEventListener('complete', () => {
    source.close();
    port.postMessage({ type: 'done', episodes, bytes, ms: performance.now() - started });
  });
  source.addEventListener('error', (e) => {
    if (typeof (e as MessageEvent).data === 'string') {
      source.close();
      port.postMessage({ type: 'failed', error: (e as MessageEvent).data });
    }
  });
} else {
  const started = performance.now();
  const res = await fetch(job.url, { headers: { 'x-api-key': job.key, 'accept-encoding': 'gzip' } });
  const wire = Number(res.headers.get('content-length'));
  let episodes = 0;
  let bytes = 0;
  // undici decodes gzip; records are counted by their line ends.
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) episodes++;
  }
  port.postMessage({
    type: 'done',
    status: res.status,
    encoding: res.headers.get('content-encoding'),
    episodes,
    bytes,
    wire,
    ms: performance.now() - started,
  });
}
