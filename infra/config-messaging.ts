import { Type } from '@sinclair/typebox';
import { OptionalUrl } from './config-fields.ts';

/** Team chat, the LLM summarizer and webhook delivery. Part of `EnvSchema`. */
export const messagingSettings = {
  EARSHOT_CHAT_API_URL: Type.String({
    format: 'uri',
    default: 'https://slack.com/api',
    description:
      'team-chat Web API base (`chat.postMessage`-compatible; the install from the dashboard calls its `oauth.v2.access`)',
  }),
  EARSHOT_CHAT_CLIENT_ID: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'the team-chat app\'s OAuth v2 client id (with `EARSHOT_CHAT_CLIENT_SECRET`, both or neither): the dashboard offers "Add to team chat" ([Dashboard](dashboard.md#team-chat))',
      unset: 'no install from the dashboard (operators: `earshot chat connect`)',
    }),
  ),
  EARSHOT_CHAT_CLIENT_SECRET: Type.Optional(
    Type.String({
      minLength: 1,
      description: "the team-chat app's OAuth v2 client secret, sent to `oauth.v2.access`",
      unset: 'no install from the dashboard',
    }),
  ),
  EARSHOT_CHAT_AUTHORIZE_URL: Type.String({
    format: 'uri',
    default: 'https://slack.com/oauth/v2/authorize',
    description: "the team-chat platform's OAuth v2 authorization page the install sends people to",
  }),
  EARSHOT_LLM_URL: OptionalUrl(
    'OpenAI-compatible chat server (`POST …/v1/chat/completions`) that writes the `llm_summary` of alert matches, reached through the outbound guard (`http` and private addresses only when in `EARSHOT_OUTBOUND_ALLOWLIST`)',
    'extractive summaries: sentences of the match windows',
  ),
  EARSHOT_LLM_MODEL: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'model name sent to that server',
      unset: 'no `model` in the request (single-model servers)',
    }),
  ),
  EARSHOT_LLM_API_KEY: Type.Optional(
    Type.String({ minLength: 1, description: 'bearer token for that server; never logged' }),
  ),
  EARSHOT_LLM_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 300_000,
    default: 20_000,
    description:
      'budget of one summary request; a timeout, 408, 429 or 5xx is tried 3 times in all, then the summary is extractive',
  }),
  EARSHOT_DELIVERY_RETRY_SCHEDULE: Type.String({
    default: '0s,5s,5m,30m,2h',
    pattern: '^\\s*\\d+(\\.\\d+)?(ms|s|m|h)(\\s*,\\s*\\d+(\\.\\d+)?(ms|s|m|h))*\\s*$',
    description: 'delay before each delivery attempt, one entry per attempt (±10 % jitter)',
  }),
  EARSHOT_DELIVERY_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 256,
    description:
      'deliveries one sender process attempts at once (at most 128 of them, over at most 64 connections, to one webhook connection)',
  }),
};
