import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/** Probes and scrapes: polled every few seconds by orchestrators, logged at debug. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * One log line per answered request instead of fastify's two (on arrival and on completion):
 * the request (its URL redacted by the logger's serializer), the status and the time taken.
 * Probes are logged at debug so they do not bury everything else.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const route = request.routeOptions.url;
    const entry = {
      req: request,
      res: reply,
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
      ...(error ? { err: error } : {}),
    };
    const message = `${request.method} ${route ?? '(no route)'} ${reply.statusCode}`;
    if (error) reply.log.error(entry, message);
    else if (route !== undefined && PROBES.has(route)) reply.log.debug(entry, message);
    else reply.log.info(entry, message);
  }
}
