import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body bytes as received. */
  raw: Buffer;
  body: unknown;
  at: number;
}

export type Responder = (
  req: ReceivedRequest,
  index: number,
) => { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang';

/** A local HTTP receiver on 127.0.0.1 that records every request and answers as told. */
export async function startReceiver(respond: Responder = () => ({ status: 200 })) {
  const received: ReceivedRequest[] = [];
  let responder = respond;
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      body = raw.toString('utf8');
    }
    const entry = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      raw,
      body,
      at: Date.now(),
    };
    const index = received.push(entry) - 1;
    const answer = responder(entry, index);
    if (answer === 'hang') {
      hanging.add(res);
      return;
    }
    const send = () => res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
    if (answer.delayMs) setTimeout(send, answer.delayMs);
    else send();
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    respond(next: Responder) {
      responder = next;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
