import { type TSchema, Type } from '@sinclair/typebox';
import {
  ALERT_ENTITY_TYPES,
  ALERT_KINDS,
  CADENCES,
  CHANNEL_TYPES,
  SPEAKER_ROLES,
} from '../../../schemas/event-enums.ts';
import { StringEnum, Timestamp } from '../../../schemas/json-schema.ts';
import { ALERT_LIMITS, POPULARITY_FILTERS, RELEVANCE_FILTERS } from '../model.ts';

/**
 * Request and response schemas of the alert endpoints (TypeBox: validation, serialisation and
 * the OpenAPI document). Every field a response carries is declared here.
 */

const Id = (description?: string) => Type.String({ minLength: 1, maxLength: 200, description });
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** For request bodies: null first, or type coercion would turn null into "" before it is tried. */
const NullableInput = <T extends TSchema>(t: T) => Type.Union([Type.Null(), t]);

export const AlertEntityInput = Type.Object(
  {
    entity_type: StringEnum(ALERT_ENTITY_TYPES),
    entity_id: Id('entity slug or ID; a company also by domain (`apple.com`)'),
  },
  { additionalProperties: false },
);

export const ChannelInput = Type.Object(
  {
    type: StringEnum(CHANNEL_TYPES),
    email: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: 320,
        description: 'EMAIL: a verified notification email of the organization',
      }),
    ),
    chat_connection_id: Type.Optional(Id('CHAT: a team-chat connection of the project')),
    chat_channel_id: Type.Optional(Id('CHAT: a channel the connection can post to')),
    webhook_connection_id: Type.Optional(Id('WEBHOOK: a webhook connection of the project')),
  },
  { additionalProperties: false },
);

const LanguageTag = Type.String({
  pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
  maxLength: 35,
  description: 'BCP-47-like tag; `fr` covers `fr-FR` and `fr-CA`',
});

export const FiltersSchema = Type.Object(
  {
    languages: Type.Optional(
      Type.Array(LanguageTag, {
        maxItems: ALERT_LIMITS.languages,
        description: 'episode languages; empty or absent = every language. Gates detection and backfill.',
      }),
    ),
    relevance: Type.Optional(
      StringEnum(RELEVANCE_FILTERS, {
        description:
          'RELEVANT keeps on-target matches only; applied at read and delivery time (default EVERYTHING)',
      }),
    ),
    source_popularity: Type.Optional(
      StringEnum(POPULARITY_FILTERS, {
        description:
          'POPULAR keeps podcasts in the top 5% of currently charting podcasts; applied at read and delivery time (default ANY)',
      }),
    ),
    speaker_roles: Type.Optional(
      Type.Array(StringEnum(SPEAKER_ROLES), {
        minItems: 1,
        maxItems: SPEAKER_ROLES.length,
        description:
          'PODCAST_SPEAKER alerts only; default every role but HOST. Gates detection and backfill.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'All axes optional. Reads echo the axes that were set; unset axes take their defaults.',
  },
);

export const CreateAlertBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200, description: 'shown in email subjects' }),
    description: Type.Optional(NullableInput(Type.String({ maxLength: 2000 }))),
    kind: Type.Optional(
      StringEnum(ALERT_KINDS, { description: 'default ENTITY_MENTION; fixed at creation' }),
    ),
    delivery_cadence: Type.Optional(StringEnum(CADENCES, { description: 'default REALTIME' })),
    entities: Type.Array(AlertEntityInput, { minItems: 1, maxItems: ALERT_LIMITS.entities }),
    notifications: Type.Array(ChannelInput, { minItems: 1, maxItems: ALERT_LIMITS.notifications }),
    filters: Type.Optional(FiltersSchema),
    is_active: Type.Optional(Type.Boolean({ description: 'default true' })),
  },
  { additionalProperties: false },
);

export const PatchAlertBody = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(NullableInput(Type.String({ maxLength: 2000 }))),
    kind: Type.Optional(
      StringEnum(ALERT_KINDS, { description: 'fixed at creation: only the current value is accepted' }),
    ),
    delivery_cadence: Type.Optional(StringEnum(CADENCES)),
    entities: Type.Optional(
      Type.Array(AlertEntityInput, {
        minItems: 1,
        maxItems: ALERT_LIMITS.entities,
        description: 'replaces the whole set',
      }),
    ),
    notifications: Type.Optional(
      Type.Array(ChannelInput, {
        minItems: 1,
        maxItems: ALERT_LIMITS.notifications,
        description: 'replaces the whole set',
      }),
    ),
    filters: Type.Optional(
      Type.Object(FiltersSchema.properties, {
        additionalProperties: false,
        description: 'replaces the whole set; `{}` clears every axis; absent leaves them unchanged',
      }),
    ),
    is_active: Type.Optional(Type.Boolean({ description: 'false pauses, true resumes' })),
  },
  { additionalProperties: false },
);

const AlertEntityOut = Type.Object({
  entity_type: StringEnum(ALERT_ENTITY_TYPES),
  entity_id: Type.String(),
  name: Nullable(Type.String()),
  slug: Nullable(Type.String()),
});

const ChannelOut = Type.Object({
  type: StringEnum(CHANNEL_TYPES),
  email: Type.Optional(Type.String()),
  chat_connection_id: Type.Optional(Type.String()),
  chat_channel_id: Type.Optional(Type.String()),
  webhook_connection_id: Type.Optional(Type.String()),
});

const alertFields = {
  id: Type.String(),
  project_id: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
  kind: StringEnum(ALERT_KINDS),
  delivery_cadence: StringEnum(CADENCES),
  entities: Type.Array(AlertEntityOut),
  notifications: Type.Array(ChannelOut),
  filters: Type.Object(FiltersSchema.properties, { description: 'the axes that were set' }),
  is_active: Type.Boolean(),
  surface: Type.String({ description: 'PLATFORM for alerts made with an API key' }),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const AlertSchema = Type.Object(alertFields);

export const MonitorSchema = Type.Object({
  ...alertFields,
  monitor_id: Type.String({ deprecated: true, description: 'deprecated: equals `id`' } as never),
});

// ---------------------------------------------------------------------------------------------
// Matches and deliveries.

const LineSchema = Type.Object({
  speaker: Type.String(),
  role: Nullable(Type.String()),
  start_seconds: Type.Number(),
  end_seconds: Type.Number(),
  text: Type.String(),
  is_mention: Type.Boolean(),
});

const WindowSchema = Type.Object({
  start_seconds: Type.Number(),
  end_seconds: Type.Number(),
  lines: Type.Array(LineSchema),
  clip_url: Nullable(Type.String()),
  clip_id: Type.Optional(Type.String({ description: 'speaker matches' })),
  clip_title: Type.Optional(Type.String({ description: 'speaker matches' })),
  clip_type: Type.Optional(Type.String({ description: 'speaker matches' })),
});

const BiasSchema = Type.Object({
  bias: Nullable(StringEnum(['LEFT', 'LEAN_LEFT', 'CENTER', 'LEAN_RIGHT', 'RIGHT'] as const)),
  lean_score: Nullable(Type.Number({ description: '-1 (left) to +1 (right)' })),
  is_political: Type.Boolean(),
  political_context: Type.String(),
  evaluated_at: Timestamp,
});

export const EpisodeBlockSchema = Type.Object({
  title: Type.String(),
  slug: Type.String(),
  published_at: Timestamp,
  podcast_id: Type.String(),
  podcast_title: Type.String(),
  podcast_slug: Type.String(),
  podcast_image_url: Nullable(Type.String()),
  podcast_popularity_badge: Nullable(StringEnum(['Top Podcast', 'Very Popular', 'Popular'] as const)),
  podcast_popularity: Nullable(
    Type.Number({
      description: 'global popularity percentile among charting podcasts; null when not charting',
    }),
  ),
  podcast_bias: Nullable(BiasSchema),
});

const MatchDeliveryRef = Type.Object({
  id: Type.String(),
  cadence: StringEnum(CADENCES),
  created_at: Timestamp,
});

const matchFields = {
  id: Type.String(),
  alert_id: Type.String(),
  monitor_id: Type.String({ deprecated: true, description: 'deprecated: equals `alert_id`' } as never),
  kind: StringEnum(ALERT_KINDS),
  entity_type: StringEnum(ALERT_ENTITY_TYPES),
  entity_id: Type.String(),
  source_type: Type.String({ description: 'PODCAST_EPISODE' }),
  source_id: Type.String({ description: 'episode id' }),
  detected_at: Timestamp,
  mention_count: Type.Integer({ description: 'for PODCAST_SPEAKER: the speaker’s line count' }),
  mention_variants: Type.Optional(Type.Array(Type.String(), { description: 'mention alerts' })),
  relevance: StringEnum(['on_target', 'incidental'] as const),
  llm_summary: Type.Optional(
    Type.String({
      description:
        'asynchronous, absent until written: a short summary of the match, by the configured chat model or else extracted from the windows (their sentences naming the matched terms)',
    }),
  ),
  roles: Type.Optional(Type.Array(Type.String(), { description: 'speaker alerts' })),
  is_backfilled: Type.Boolean({
    description:
      'history, never delivered: found by the one-time backfill over the 7 days before the alert, or on an episode published more than 2 days before it was matched (an archive load)',
  }),
  windows: Type.Array(WindowSchema),
  deliveries: Type.Array(MatchDeliveryRef),
};

/** An item of the paginated matches list: no episode block. */
export const MatchListItem = Type.Object(matchFields);

/** The single-match read and delivery-landing items: with the episode block. */
export const MatchSchema = Type.Object({ ...matchFields, episode: EpisodeBlockSchema });

const DeliveryChannelSchema = Type.Object({
  type: StringEnum(CHANNEL_TYPES),
  email: Type.Optional(Type.String()),
  webhook_connection_id: Type.Optional(Type.String()),
  chat_connection_id: Type.Optional(Type.String()),
  chat_channel_id: Type.Optional(Type.String()),
  status: StringEnum(['PENDING', 'RETRYING', 'DELIVERED', 'ABANDONED'] as const),
  attempts: Type.Integer(),
  status_code: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  last_attempt_at: Nullable(Timestamp),
});

const deliveryFields = {
  id: Type.String(),
  alert_id: Type.String(),
  cadence: StringEnum(CADENCES),
  status: StringEnum(['PENDING', 'DELIVERING', 'DELIVERED', 'PARTIALLY_DELIVERED', 'ABANDONED'] as const),
  window_start: Nullable(Timestamp),
  window_end: Nullable(Timestamp),
  match_count: Type.Integer(),
  channels: Type.Array(DeliveryChannelSchema),
  created_at: Timestamp,
  url: Type.String({ description: 'the delivery page' }),
};

export const DeliverySchema = Type.Object(deliveryFields);

export const DeliveryLandingSchema = Type.Object({
  ...deliveryFields,
  matches: Type.Array(MatchSchema),
  matches_has_more: Type.Boolean(),
  matches_cursor: Type.Optional(Type.String({ description: 'absent on the last page' })),
});

// ---------------------------------------------------------------------------------------------
// Previews.

export const PreviewBody = Type.Object(
  {
    kind: Type.Optional(StringEnum(ALERT_KINDS, { description: 'default ENTITY_MENTION' })),
    entities: Type.Array(AlertEntityInput, { minItems: 1, maxItems: ALERT_LIMITS.entities }),
    filters: Type.Optional(FiltersSchema),
  },
  { additionalProperties: false },
);

export const PreviewSchema = Type.Object({
  preview_id: Type.String(),
  status: StringEnum(['PENDING', 'RUNNING', 'COMPLETE', 'FAILED'] as const),
  estimated_match_count: Nullable(
    Type.Integer({
      description:
        'episodes of the window that would match (an upper bound when relevance is RELEVANT); null until COMPLETE',
    }),
  ),
  window_start: Timestamp,
  window_end: Timestamp,
  error: Nullable(Type.String()),
  created_at: Timestamp,
  completed_at: Nullable(Timestamp),
});
