import { EventSource } from 'eventsource';
import { waitFor } from './wait-for.ts';

/** An event as the EventSource delivered it. */
export interface ReceivedEvent {
  type: string;
  data: string;
  id: string;
  at: number;
}

/**
 * A real SSE client (the `eventsource` package, the WHATWG EventSource for Node) on an endpoint
 * of the API, with the API key on every request and, when given, a Last-Event-ID on the first;
 * it reconnects by itself (sending Last-Event-ID) as browsers do. Collects every event of the
 * kinds the API sends, and every connection error.
 */
export function sseClient(
  url: string,
  key: string,
  options: { lastEventId?: string; onEvent?: (e: ReceivedEvent) => void } = {},
) {
  const events: ReceivedEvent[] = [];
  const failures: { code?: number; message?: string }[] = [];
  let connections = 0;
  let first = true;
  const source = new EventSource(url, {
    fetch: (input, init) => {
      connections++;
      const headers: Record<string, string> = {
        ...(init?.headers as Record<string, string>),
        'x-api-key': key,
      };
      if (first && options.lastEventId) headers['Last-Event-ID'] = options.lastEventId;
      first = false;
      return fetch(input, { ...init, headers });
    },
  });
  const collect = (type: string) => (e: Event) => {
    const message = e as MessageEvent;
    if (type === 'error' && typeof message.data !== 'string') {
      failures.push({
        code: (e as unknown as { code?: number }).code,
        message: (e as unknown as { message?: string }).message,
      });
      return;
    }
    const received = { type, data: message.data as string, id: message.lastEventId, at: Date.now() };
    events.push(received);
    options.onEvent?.(received);
  };
  for (const type of ['episode', 'complete', 'error', 'position'])
    source.addEventListener(type, collect(type));
  const of = (type: string) => events.filter((e) => e.type === type);
  return {
    source,
    events,
    failures,
    get connections() {
      return connections;
    },
    of,
    /** Episode records received, parsed. */
    episodes: () =>
      of('episode').map(
        (e) => JSON.parse(e.data) as { id: string; published_at: string } & Record<string, unknown>,
      ),
    async waitForEvents(type: string, n: number, timeoutMs = 15_000) {
      await waitFor(() => of(type).length >= n, {
        timeoutMs,
        what: `${n} ${type} events (have ${of(type).length})`,
      });
    },
    close: () => source.close(),
  };
}
