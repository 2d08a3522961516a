/**
 * How the streaming operations appear in the OpenAPI document: OpenAPI 3.2 describes a response
 * made of a sequence of items (`text/event-stream`, `application/x-ndjson`) with `itemSchema`.
 */
const RECORD_REF = { $ref: '#/components/schemas/EpisodeRecord' };

const jsonData = (schema: object, description: string) => ({
  type: 'string',
  contentMediaType: 'application/json',
  contentSchema: schema,
  description,
});

/** One SSE event kind: its `event` name, its `data` (JSON) and whether it carries an `id`. */
function eventKind(name: string, data: object, description: string, withId: boolean) {
  return {
    type: 'object',
    description,
    required: withId ? ['event', 'data', 'id'] : ['event', 'data'],
    properties: {
      event: { const: name },
      data: jsonData(data, description),
      id: { type: 'string', description: 'resume position: send it back as Last-Event-ID or cursor' },
      retry: { type: 'integer', description: 'reconnection time in milliseconds' },
    },
  };
}

const ERROR_EVENT = eventKind(
  'error',
  {
    type: 'object',
    required: ['error_code', 'detail'],
    properties: {
      error_code: {
        type: 'string',
        description:
          'cursor_expired (older than the live stream keeps: it restarts from the oldest kept), cursor_ahead (a position not handed out yet: closed), cursor_stale (the period was rebuilt since: start again without a cursor), slow_consumer (the client read too slowly: closed), stream_failed',
      },
      detail: { type: 'string' },
    },
  },
  'the stream cannot go on as asked (or, for cursor_expired, goes on from elsewhere)',
  false,
);

const POSITION_EVENT = {
  type: 'object',
  description:
    'a position without an episode (at the start, and after episodes the filters skipped): an id and empty data',
  required: ['event', 'id'],
  properties: { event: { const: 'position' }, id: { type: 'string' }, data: { const: '' } },
};

export const LIVE_STREAM_ITEM = {
  description:
    'Server-Sent Events: `episode` events (each with an id to resume from), `position` events, `error` events; comment lines every 15 s keep the connection open',
  oneOf: [
    eventKind('episode', RECORD_REF, 'one fully processed episode, in processing order', true),
    POSITION_EVENT,
    ERROR_EVENT,
  ],
};

export const ARCHIVE_STREAM_ITEM = {
  description:
    'Server-Sent Events: one `episode` event per episode in publication order, then `complete`; `error` when a cursor is stale',
  oneOf: [
    eventKind('episode', RECORD_REF, 'one episode of the period, in publication order', true),
    eventKind(
      'complete',
      {
        type: 'object',
        required: ['episodes', 'period'],
        properties: { episodes: { type: 'integer' }, period: { type: 'string' } },
      },
      'the replay is complete: episodes in the period, and the period',
      true,
    ),
    ERROR_EVENT,
  ],
};

export const NDJSON_ITEM = RECORD_REF;
