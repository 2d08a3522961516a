import { deliveryPageUrl } from '../../presentation/match-document.ts';
import type { ChatConnections } from '../connections/chat-connections.ts';
import type { DeliveryJob } from '../jobs.ts';
import {
  type AttemptResult,
  type ChannelSender,
  type CommonDeps,
  isResult,
  loadContent,
  newAttemptId,
  unique,
} from './attempt.ts';
import { type ChatApi, PERMANENT_CHAT_ERRORS } from './chat-api.ts';
import { renderChat } from './render.ts';

export interface ChatSenderDeps extends CommonDeps {
  connections: ChatConnections;
  api: ChatApi;
  entityNames(ids: string[]): Promise<Map<string, string>>;
}

/** Posts matches to the attached channel through the chat Web API. */
export class ChatSender implements ChannelSender {
  readonly type = 'CHAT' as const;

  constructor(private readonly deps: ChatSenderDeps) {}

  async prepare(jobs: DeliveryJob[]) {
    const [connections, content] = await Promise.all([
      this.deps.connections.forDelivery(unique(jobs.map((j) => j.channel.chat_connection_id))),
      loadContent(this.deps, jobs),
    ]);
    return async (job: DeliveryJob): Promise<AttemptResult> => {
      const connection = connections.get(job.channel.chat_connection_id ?? '');
      const destination = `${job.channel.chat_connection_id}/${job.channel.chat_channel_id}`;
      if (!connection || connection.deleted_at) {
        return { outcome: 'skip', destination, reason: 'chat connection deleted' };
      }
      const resolved = content.resolve(job, destination);
      if (isResult(resolved)) return resolved;
      const attemptId = newAttemptId();
      const names = await this.deps.entityNames(unique(resolved.docs.map((m) => m.entity_id)));
      const message = renderChat({
        alert: resolved.alert,
        cadence: job.cadence,
        matches: resolved.docs,
        entityNames: names,
        deliveryUrl: deliveryPageUrl(this.deps.dashboardUrl, job.delivery_id),
      });
      const res = await this.deps.api.postMessage(connection.token, {
        channel: job.channel.chat_channel_id ?? '',
        ...message,
      });
      const base = { attemptId, destination, statusCode: res.status ?? null, durationMs: res.durationMs };
      if (res.ok) return { ...base, outcome: 'delivered', error: null };
      const permanent = res.refused || PERMANENT_CHAT_ERRORS.has(res.error ?? '');
      return {
        ...base,
        outcome: permanent ? 'abandon' : 'failed',
        error: res.error ?? 'chat API error',
        retryAfterMs: res.retryAfterMs,
      };
    };
  }
}
