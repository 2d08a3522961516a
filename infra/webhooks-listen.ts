import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../processors/alerts/index.ts';
import { adminClient, adminSocketPath } from './admin-socket.ts';
import { dataDirOf } from './data-dir.ts';
import { type ListenSessionInfo, type OperatorActions, OperatorError } from './operator.ts';

/**
 * `earshot webhooks listen` (compare `stripe listen`): a local receiver on 127.0.0.1, the
 * project's listen connection pointed at it through the running service's admin socket, the
 * receiver's loopback address and port let through the service's outbound guard for a lease this
 * command renews (and ends when it stops), every delivery's signature checked with the
 * connection's secret, and each event printed as it arrives (stdout; status goes to stderr).
 */
export interface ListenOptions {
  project: string;
  /** Port of the receiver (0: any free port). */
  port: number;
  /** One JSON object per event on stdout instead of a line of text. */
  json: boolean;
}

const BODY_LIMIT = 8 * 2 ** 20;
const RENEW_EVERY_MS = 10_000;

interface Envelope {
  event_type?: string;
  delivery_id?: string;
  test?: boolean;
  alert?: { id?: string; title?: string };
  match?: MatchSummary;
  matches?: MatchSummary[];
}
interface MatchSummary {
  id?: string;
  entity_id?: string;
  mention_count?: number;
  episode?: { title?: string; podcast_title?: string };
}

/** One line about an event: when, what, which alert, which episode. */
export function eventLine(body: Envelope, at: Date): string {
  const parts = [at.toISOString().slice(0, 19).replace('T', ' '), body.event_type ?? '?'];
  if (body.alert) parts.push(`alert ${body.alert.id} "${body.alert.title}"`);
  if (body.match) {
    const m = body.match;
    const where = m.episode ? `"${m.episode.title}" on ${m.episode.podcast_title}` : 'an episode';
    parts.push(`${m.entity_id} in ${where} (${m.mention_count ?? 0} lines)`);
  }
  if (body.matches) parts.push(`${body.matches.length} matches`);
  if (body.test) parts.push('[test]');
  parts.push('signature verified');
  return parts.join('  ');
}

function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > BODY_LIMIT) {
        resolve(undefined);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function operator(socketPath: string): Promise<OperatorActions> {
  const ops = await adminClient(socketPath);
  if (!ops) {
    throw new OperatorError(
      `no running service answers on ${socketPath}: start it (npm start, with the same EARSHOT_DATA_DIR) ` +
        'and run earshot webhooks listen again',
    );
  }
  return ops;
}

function instructions(s: ListenSessionInfo, receiver: string): string {
  const api = s.api_url.replace(/\/$/, '');
  const alert = JSON.stringify({
    title: 'Apple on air',
    entities: [{ entity_type: 'COMPANY', entity_id: 'apple.com' }],
    notifications: [{ type: 'WEBHOOK', webhook_connection_id: s.connection.id }],
  });
  return [
    `Listening on ${receiver} for the webhooks of project ${s.project_id}`,
    `  connection  ${s.connection.id} "${s.connection.name}" (${
      s.reused ? 'reused: alerts that notify it deliver here' : 'created'
    })`,
    `  secret      ${s.secret} (every delivery's signature is checked with it)`,
    '  The service lets this receiver through its outbound guard while this runs. Ctrl-C stops it.',
    '',
    'Next, with EARSHOT_API_KEY set to a key of the project:',
    '  1. an alert that notifies this connection:',
    `     curl -s -X POST -H "X-API-Key: $EARSHOT_API_KEY" -H 'content-type: application/json' '${api}/v1/projects/${s.project_id}/alerts' -d '${alert}'`,
    '  2. a test event to its webhooks (the "id" the first answer gave):',
    `     curl -s -X POST -H "X-API-Key: $EARSHOT_API_KEY" '${api}/v1/alerts/ALERT_ID/test-webhook'`,
    "  Episodes processed from now on that mention the alert's entities are delivered here too.",
    '',
  ].join('\n');
}

/** Runs until SIGINT or SIGTERM; resolves when the receiver has stopped and the lease is ended. */
export async function listenForWebhooks(options: ListenOptions): Promise<void> {
  const socketPath = adminSocketPath(dataDirOf(process.env.EARSHOT_DATA_DIR));
  let ops = await operator(socketPath);
  let session: ListenSessionInfo | undefined;

  const server = http.createServer(async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const raw = await readBody(req).catch(() => undefined);
    if (raw === undefined || !session) {
      res.writeHead(raw === undefined ? 413 : 503).end();
      return;
    }
    let body: Envelope;
    try {
      body = verifyWebhook(session.secret, req.headers, raw) as Envelope;
    } catch (err) {
      process.stderr.write(
        `rejected a delivery to ${req.url}: signature check failed (${(err as Error).message})\n`,
      );
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid signature"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    const at = new Date();
    process.stdout.write(
      options.json
        ? `${JSON.stringify({ received_at: at.toISOString(), verified: true, webhook_id: req.headers['x-webhook-id'], event: body })}\n`
        : `${eventLine(body, at)}\n`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const receiver = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  try {
    session = await ops.listenWebhooks({ project: options.project, url: receiver });
  } catch (err) {
    server.close();
    throw err;
  }
  process.stderr.write(instructions(session, receiver));

  // Renew the lease; when the service no longer knows it (it restarted), open the session again:
  // the connection and its secret are reused.
  let warned = false;
  const renew = async () => {
    try {
      const { renewed } = await ops.renewWebhookListen({ leaseId: session!.leaseId });
      if (!renewed) {
        session = await ops.listenWebhooks({ project: options.project, url: receiver });
        process.stderr.write(
          `the service had dropped the lease; listening again (${session.connection.id})\n`,
        );
      }
      if (warned) process.stderr.write('the service answers again\n');
      warned = false;
    } catch (err) {
      if (!warned) {
        process.stderr.write(`the service does not answer (${(err as Error).message}); trying again\n`);
        warned = true;
      }
      ops = (await adminClient(socketPath)) ?? ops;
    }
  };
  const timer = setInterval(() => void renew(), RENEW_EVERY_MS);

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  clearInterval(timer);
  await ops.closeWebhookListen({ leaseId: session.leaseId }).catch(() => undefined);
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  process.stderr.write(
    `stopped: the service refuses deliveries to ${receiver} again (connection ${session.connection.id} stays; ` +
      'run earshot webhooks listen to receive them again)\n',
  );
}
