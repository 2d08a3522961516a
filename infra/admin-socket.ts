import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Logger } from 'pino';
import { AccountError } from '../projections/state/accounts.ts';
import { type OperatorActions, OperatorError } from './operator.ts';

const ACTIONS = [
  'createOrganization',
  'createProject',
  'setPlan',
  'listProjects',
  'grantEntitlement',
  'revokeEntitlement',
  'createKey',
  'revokeKey',
  'listKeys',
  'connectChat',
  'listChatConnections',
  'createIngestToken',
  'revokeIngestToken',
  'listIngestTokens',
  'rotateSigningKeys',
  'listenWebhooks',
  'renewWebhookListen',
  'closeWebhookListen',
] as const satisfies readonly (keyof OperatorActions)[];

export function adminSocketPath(dataDir: string): string {
  return path.join(dataDir, 'admin.sock');
}

/**
 * Serves operator actions on a Unix socket in the data dir, so `earshot keys …` reaches a running
 * service. Access is governed by file permissions on the socket (owner only).
 */
export async function startAdminSocket(socketPath: string, actions: OperatorActions, logger: Logger) {
  fs.rmSync(socketPath, { force: true });
  const server = http.createServer(async (req, res) => {
    const action = (req.url ?? '').slice(1) as (typeof ACTIONS)[number];
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    res.setHeader('content-type', 'application/json');
    if (req.method !== 'POST' || !ACTIONS.includes(action)) {
      res.writeHead(404).end(JSON.stringify({ error: `unknown action ${action}` }));
      return;
    }
    try {
      const input = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      const result = await (actions[action] as (i: unknown) => Promise<unknown>)(input);
      res.writeHead(200).end(JSON.stringify(result));
      // A listening receiver renews its lease every few seconds: not worth a line each time.
      if (action === 'renewWebhookListen') logger.debug({ action }, 'operator action');
      else logger.info({ action }, 'operator action');
    } catch (err) {
      const known = err instanceof OperatorError || err instanceof AccountError;
      res.writeHead(known ? 400 : 500).end(JSON.stringify({ error: known ? err.message : 'internal error' }));
      if (!known) logger.error({ err, action }, 'operator action failed');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  fs.chmodSync(socketPath, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        fs.rmSync(socketPath, { force: true });
      }),
  };
}

/** Operator actions performed by the service listening on `socketPath`, or undefined if none is. */
export async function adminClient(socketPath: string): Promise<OperatorActions | undefined> {
  if (!fs.existsSync(socketPath)) return undefined;
  // node:http rather than undici: an operator command loads as little as it can. One connection
  // per call (no keep-alive), so that nothing holds the command's process open when it is done.
  const call = (action: string, input: unknown) =>
    new Promise<{ error?: string }>((resolve, reject) => {
      const payload = JSON.stringify(input);
      const req = http.request(
        {
          socketPath,
          agent: false,
          path: `/${action}`,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            try {
              const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: string };
              if (res.statusCode !== 200)
                reject(new OperatorError(body.error ?? `admin socket answered ${res.statusCode}`));
              else resolve(body);
            } catch (err) {
              reject(err);
            }
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  try {
    await call('listKeys', { project: '' }).catch((err: unknown) => {
      if (err instanceof OperatorError) return;
      throw err;
    });
  } catch {
    return undefined;
  }
  return Object.fromEntries(
    ACTIONS.map((a) => [a, (input: unknown) => call(a, input)]),
  ) as unknown as OperatorActions;
}
