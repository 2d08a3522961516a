/**
 * A delivery as the REST reads show it: its cadence and window, how many matches it carries,
 * and per channel the senders' outcome (`PENDING` → `RETRYING` → `DELIVERED` | `ABANDONED`),
 * summed up in one status. Read by reads/deliveries.ts; the HTTP response schema is in
 * http-schemas.ts.
 */
export type ChannelStatus = 'PENDING' | 'RETRYING' | 'DELIVERED' | 'ABANDONED';
export type DeliveryStatus = 'PENDING' | 'DELIVERING' | 'DELIVERED' | 'PARTIALLY_DELIVERED' | 'ABANDONED';

export interface DeliveryChannelDoc {
  type: string;
  email?: string;
  webhook_connection_id?: string;
  chat_connection_id?: string;
  chat_channel_id?: string;
  status: ChannelStatus;
  attempts: number;
  status_code: number | null;
  error: string | null;
  last_attempt_at: string | null;
}

export interface DeliveryDoc {
  id: string;
  alert_id: string;
  cadence: string;
  status: DeliveryStatus;
  window_start: string | null;
  window_end: string | null;
  match_count: number;
  channels: DeliveryChannelDoc[];
  created_at: string;
  url: string;
}

/** The status of a delivery from the status of its channels. */
export function overall(channels: DeliveryChannelDoc[]): DeliveryStatus {
  if (channels.length === 0) return 'PENDING';
  const final = channels.every((c) => c.status === 'DELIVERED' || c.status === 'ABANDONED');
  if (!final)
    return channels.some((c) => c.attempts > 0 || c.status === 'RETRYING') ? 'DELIVERING' : 'PENDING';
  const delivered = channels.filter((c) => c.status === 'DELIVERED').length;
  if (delivered === channels.length) return 'DELIVERED';
  return delivered === 0 ? 'ABANDONED' : 'PARTIALLY_DELIVERED';
}
