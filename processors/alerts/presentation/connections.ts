import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../../schemas/json-schema.ts';
import type { ChatConnection } from '../delivery/connections/chat-connections.ts';
import type { WebhookConnection } from '../delivery/connections/webhook-connections.ts';

/**
 * Webhook and team-chat connections, and test sends, as the REST API shows them: response
 * schemas (TypeBox: validation, serialisation, the OpenAPI document) and views.
 */
export const WebhookConnectionSchema = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  created_at: Timestamp,
  surface: Type.String({ description: '`PLATFORM` for connections made with an API key' }),
  secret_prefix: Type.String({ description: 'masked prefix of the signing secret' }),
  secret: Type.Optional(
    Type.String({ description: 'the full signing secret: returned only on create and on rotate' }),
  ),
});

export const webhookConnectionView = (c: WebhookConnection, secret?: string) => ({
  id: c.id,
  project_id: c.project_id,
  name: c.name,
  url: c.url,
  created_at: new Date(c.created_at).toISOString(),
  surface: c.surface,
  secret_prefix: c.secret_prefix,
  ...(secret ? { secret } : {}),
});

export const TestDeliverySchema = Type.Object({
  webhook_connection_id: Type.String(),
  url: Type.String(),
  delivered: Type.Boolean({ description: 'true when the endpoint answered 2xx' }),
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
});

export const ChatConnectionSchema = Type.Object({
  id: Type.String(),
  project_id: Type.String(),
  name: Type.String(),
  team_id: Type.Union([Type.String(), Type.Null()], { description: 'workspace id on the chat platform' }),
  team_name: Type.Union([Type.String(), Type.Null()]),
  surface: Type.String(),
  created_at: Timestamp,
});

export const ChatChannelSchema = Type.Object({
  id: Type.String({ description: 'use as `chat_channel_id` in an alert notification' }),
  name: Type.String(),
  is_private: Type.Boolean(),
  is_member: Type.Boolean({
    description: 'whether the bot is in the channel (it can post only where it is)',
  }),
});

export const chatConnectionView = (c: ChatConnection) => ({
  id: c.id,
  project_id: c.project_id,
  name: c.name,
  team_id: c.team_id,
  team_name: c.team_name,
  surface: c.surface,
  created_at: new Date(c.created_at).toISOString(),
});
