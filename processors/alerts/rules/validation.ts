import type { Static } from '@sinclair/typebox';
import type { CatalogReader } from '../../../projections/catalog/catalog-reader.ts';
import type { Principal } from '../../../projections/state/accounts.ts';
import type { Queryable } from '../../../projections/state/state-store.ts';
import { SPEAKER_ROLES } from '../../../schemas/event-enums.ts';
import type { AlertEntityRef, AlertFilters, Channel } from '../model.ts';
import type { CreateAlertBody } from '../presentation/http-schemas.ts';
import { liveChatConnections, liveWebhookConnections, verifiedNotificationEmails } from './references.ts';
import type { RuleViolation } from './refusal.ts';

/**
 * What an alert may hold, beyond the shape its request schema checks: 1-100 entities (slug or
 * id, a company also by domain, resolved to ids; the declared type must be the entity's), 1-20 channels, no duplicates;
 * an EMAIL channel names a verified notification email of the organization, a WEBHOOK channel
 * a live webhook connection of the project with the alert's surface, a CHAT channel a live
 * chat connection of the project. Each check collects every violation rather than stopping at
 * the first.
 */
export type AlertInput = Static<typeof CreateAlertBody>;
type ChannelInput = AlertInput['notifications'][number];

/** Filters as stored: the axes given, languages deduplicated, roles in the schema's order. */
export function normalizeFilters(filters: NonNullable<AlertInput['filters']>): AlertFilters {
  const out: AlertFilters = {};
  if (filters.languages !== undefined) out.languages = [...new Set(filters.languages)];
  if (filters.relevance !== undefined) out.relevance = filters.relevance;
  if (filters.source_popularity !== undefined) out.source_popularity = filters.source_popularity;
  if (filters.speaker_roles !== undefined) {
    const set = new Set(filters.speaker_roles);
    out.speaker_roles = SPEAKER_ROLES.filter((r) => set.has(r));
  }
  return out;
}

/**
 * Resolves entity references to ids as every read does — any entity by slug or id, a company
 * also by domain (`apple.com`, `www.apple.com`, `https://apple.com/`) — checking existence,
 * type and duplicates (two references to one entity are a duplicate).
 */
export async function resolveEntities(
  catalog: CatalogReader,
  input: { entity_type: AlertEntityRef['entity_type']; entity_id: string }[],
  violations: RuleViolation[],
): Promise<AlertEntityRef[]> {
  const rows = await catalog.entities(input.map((e) => e.entity_id));
  const byRef = new Map<string, (typeof rows)[number]>();
  for (const r of rows) {
    byRef.set(r.id, r);
    byRef.set(r.slug, r);
  }
  // What is neither a slug nor an id may be a company's domain (a company by any reference).
  const rest = [...new Set(input.map((e) => e.entity_id).filter((ref) => !byRef.has(ref)))];
  const companies = await Promise.all(rest.map((ref) => catalog.company(ref)));
  rest.forEach((ref, i) => {
    const row = companies[i];
    if (row) byRef.set(ref, row);
  });
  const seen = new Set<string>();
  const out: AlertEntityRef[] = [];
  input.forEach((e, i) => {
    const row = byRef.get(e.entity_id);
    const where = `entities[${i}]`;
    if (!row) {
      violations.push({
        field: `${where}.entity_id`,
        message:
          e.entity_type === 'COMPANY'
            ? 'is not a known company (slug, domain or ID)'
            : 'is not a known entity (slug or ID)',
        value: e.entity_id,
      });
      return;
    }
    if (row.kind !== e.entity_type) {
      violations.push({
        field: `${where}.entity_type`,
        message: `does not match the entity, which is a ${row.kind}`,
        value: e.entity_type,
      });
      return;
    }
    if (seen.has(row.id)) {
      violations.push({
        field: `${where}.entity_id`,
        message: 'is listed more than once',
        value: e.entity_id,
      });
      return;
    }
    seen.add(row.id);
    out.push({ entity_type: e.entity_type, entity_id: row.id });
  });
  return out;
}

/** Checks each channel's fields and references; returns channels with only their type's fields. */
export async function resolveChannels(
  db: Queryable,
  principal: Principal,
  surface: string,
  input: ChannelInput[],
  violations: RuleViolation[],
): Promise<Channel[]> {
  const projectId = principal.project.id;
  const need = (c: ChannelInput, i: number, field: keyof ChannelInput) => {
    if (!c[field])
      violations.push({ field: `notifications[${i}].${field}`, message: `is required for ${c.type}` });
    return Boolean(c[field]);
  };
  const emails = input.filter((c) => c.type === 'EMAIL' && c.email).map((c) => c.email!.toLowerCase());
  const hooks = input
    .filter((c) => c.type === 'WEBHOOK' && c.webhook_connection_id)
    .map((c) => c.webhook_connection_id!);
  const chats = input
    .filter((c) => c.type === 'CHAT' && c.chat_connection_id)
    .map((c) => c.chat_connection_id!);
  const [verified, liveHooks, liveChats] = await Promise.all([
    verifiedNotificationEmails(db, principal.project.organization_id, emails),
    liveWebhookConnections(db, projectId, hooks),
    liveChatConnections(db, projectId, chats),
  ]);
  const out: Channel[] = [];
  const seen = new Set<string>();
  input.forEach((c, i) => {
    const where = `notifications[${i}]`;
    let channel: Channel | undefined;
    if (c.type === 'EMAIL') {
      if (!need(c, i, 'email')) return;
      const email = c.email!.toLowerCase();
      if (!verified.has(email)) {
        violations.push({
          field: `${where}.email`,
          message: 'is not a verified notification email of this organization',
          value: c.email,
        });
        return;
      }
      channel = { type: 'EMAIL', email };
    } else if (c.type === 'WEBHOOK') {
      if (!need(c, i, 'webhook_connection_id')) return;
      const hook = liveHooks.get(c.webhook_connection_id!);
      if (!hook || hook.surface !== surface) {
        violations.push({
          field: `${where}.webhook_connection_id`,
          message: hook
            ? `is a ${hook.surface} connection; this alert's surface is ${surface}`
            : 'is not a webhook connection of this project',
          value: c.webhook_connection_id,
        });
        return;
      }
      channel = { type: 'WEBHOOK', webhook_connection_id: c.webhook_connection_id! };
    } else {
      const ok = need(c, i, 'chat_connection_id') && need(c, i, 'chat_channel_id');
      if (!ok) return;
      if (!liveChats.has(c.chat_connection_id!)) {
        violations.push({
          field: `${where}.chat_connection_id`,
          message: 'is not a team-chat connection of this project',
          value: c.chat_connection_id,
        });
        return;
      }
      channel = {
        type: 'CHAT',
        chat_connection_id: c.chat_connection_id!,
        chat_channel_id: c.chat_channel_id!,
      };
    }
    const key = JSON.stringify(channel);
    if (seen.has(key)) {
      violations.push({ field: where, message: 'is listed more than once' });
      return;
    }
    seen.add(key);
    out.push(channel);
  });
  return out;
}
