import type { Queryable } from '../../../projections/state/state-store.ts';
import {
  type ChannelStatus,
  type DeliveryChannelDoc,
  type DeliveryDoc,
  overall,
} from '../presentation/delivery-document.ts';
import { deliveryPageUrl } from '../presentation/match-document.ts';
import { webhookConnectionUrls } from '../rules/references.ts';
import type { ListPosition } from './matches.ts';

/**
 * Reads of the delivery read model (`deliveries`, `delivery_channels`, `delivery_outcomes`,
 * written by projectors/deliveries-projector.ts): an alert's deliveries, newest first, and one
 * delivery with its matches' ids (the landing page a notification links to).
 */

interface DeliveryRow {
  id: string;
  alert_id: string;
  project_id: string;
  cadence: string;
  window_start: Date | string | null;
  window_end: Date | string | null;
  match_ids: string[];
  requested_at: Date | string;
}

interface ChannelRow {
  delivery_id: string;
  channel_key: string;
  type: string;
  email: string | null;
  webhook_connection_id: string | null;
  chat_connection_id: string | null;
  chat_channel_id: string | null;
}

interface OutcomeRow {
  delivery_id: string;
  channel_type: string;
  destination: string;
  status: ChannelStatus;
  attempts: number;
  status_code: number | null;
  error: string | null;
  last_attempt_at: Date | string | null;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/**
 * Pairs senders' outcomes with a delivery's channels: by channel key (`EMAIL:addr`,
 * `WEBHOOK:whc_…`, `CHAT:conn/channel`) or the bare address / connection id / `conn/channel`;
 * for webhooks also by the connection's url; and a lone channel of a type takes the lone
 * outcome of that type.
 */
function pairOutcomes(
  channels: ChannelRow[],
  outcomes: OutcomeRow[],
  urls: Map<string, string>,
): Map<string, OutcomeRow> {
  const paired = new Map<string, OutcomeRow>();
  const used = new Set<OutcomeRow>();
  for (const c of channels) {
    const names = new Set([c.channel_key, c.channel_key.slice(c.channel_key.indexOf(':') + 1)]);
    if (c.type === 'WEBHOOK' && c.webhook_connection_id && urls.has(c.webhook_connection_id)) {
      names.add(urls.get(c.webhook_connection_id)!);
    }
    const o = outcomes.find(
      (x) =>
        !used.has(x) &&
        x.channel_type === c.type &&
        names.has(c.type === 'EMAIL' ? x.destination.toLowerCase() : x.destination),
    );
    if (o) {
      paired.set(c.channel_key, o);
      used.add(o);
    }
  }
  for (const type of new Set(channels.map((c) => c.type))) {
    const open = channels.filter((c) => c.type === type && !paired.has(c.channel_key));
    const left = outcomes.filter((o) => o.channel_type === type && !used.has(o));
    if (open.length === 1 && left.length === 1 && channels.filter((c) => c.type === type).length === 1) {
      paired.set(open[0]!.channel_key, left[0]!);
    }
  }
  return paired;
}

async function deliveryDocs(
  db: Queryable,
  rows: DeliveryRow[],
  dashboardUrl: string,
): Promise<DeliveryDoc[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [channels, outcomes] = await Promise.all([
    db.query<ChannelRow>(
      'SELECT * FROM delivery_channels WHERE delivery_id = ANY($1::text[]) ORDER BY channel_key',
      [ids],
    ),
    db.query<OutcomeRow>('SELECT * FROM delivery_outcomes WHERE delivery_id = ANY($1::text[])', [ids]),
  ]);
  const urls = await webhookConnectionUrls(
    db,
    channels.filter((c) => c.webhook_connection_id).map((c) => c.webhook_connection_id!),
  );
  return rows.map((r) => {
    const mine = channels.filter((c) => c.delivery_id === r.id);
    const paired = pairOutcomes(
      mine,
      outcomes.filter((o) => o.delivery_id === r.id),
      urls,
    );
    const docs: DeliveryChannelDoc[] = mine.map((c) => {
      const o = paired.get(c.channel_key);
      const doc: DeliveryChannelDoc = {
        type: c.type,
        status: o?.status ?? 'PENDING',
        attempts: o?.attempts ?? 0,
        status_code: o?.status_code ?? null,
        error: o?.error ?? null,
        last_attempt_at: iso(o?.last_attempt_at ?? null),
      };
      if (c.email !== null) doc.email = c.email;
      if (c.webhook_connection_id !== null) doc.webhook_connection_id = c.webhook_connection_id;
      if (c.chat_connection_id !== null) doc.chat_connection_id = c.chat_connection_id;
      if (c.chat_channel_id !== null) doc.chat_channel_id = c.chat_channel_id;
      return doc;
    });
    return {
      id: r.id,
      alert_id: r.alert_id,
      cadence: r.cadence,
      status: overall(docs),
      window_start: iso(r.window_start),
      window_end: iso(r.window_end),
      match_count: r.match_ids.length,
      channels: docs,
      created_at: new Date(r.requested_at).toISOString(),
      url: deliveryPageUrl(dashboardUrl, r.id),
    };
  });
}

/** A page of an alert's deliveries, newest first. */
export async function deliveriesPage(
  db: Queryable,
  alertId: string,
  after: ListPosition | undefined,
  limit: number,
  dashboardUrl: string,
): Promise<{ data: DeliveryDoc[]; next?: ListPosition }> {
  const rows = await db.query<DeliveryRow>(
    `SELECT * FROM deliveries WHERE alert_id = $1
       AND ($2::timestamptz IS NULL OR (requested_at, id) < ($2::timestamptz, $3::text))
     ORDER BY requested_at DESC, id DESC LIMIT $4`,
    [alertId, after?.d ?? null, after?.i ?? '', limit + 1],
  );
  const page = rows.slice(0, limit);
  const data = await deliveryDocs(db, page, dashboardUrl);
  const last = page.at(-1);
  return {
    data,
    next:
      rows.length > limit && last ? { d: new Date(last.requested_at).toISOString(), i: last.id } : undefined,
  };
}

/** One delivery with its project, or undefined. */
export async function deliveryDocument(
  db: Queryable,
  id: string,
  dashboardUrl: string,
): Promise<{ delivery: DeliveryDoc; projectId: string; matchIds: string[] } | undefined> {
  const [row] = await db.query<DeliveryRow>('SELECT * FROM deliveries WHERE id = $1', [id]);
  if (!row) return undefined;
  const [delivery] = await deliveryDocs(db, [row], dashboardUrl);
  return { delivery: delivery!, projectId: row.project_id, matchIds: row.match_ids };
}
