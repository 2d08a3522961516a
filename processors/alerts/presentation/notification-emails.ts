import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../../schemas/json-schema.ts';
import type { NotificationEmailRow } from '../delivery/channels/notification-emails.ts';

/** A notification email as the REST API shows it: response schema and view. */
export const NotificationEmailSchema = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  email: Type.String(),
  verified: Type.Boolean(),
  verified_at: Type.Union([Timestamp, Type.Null()]),
  created_at: Timestamp,
});

export const notificationEmailView = (e: NotificationEmailRow) => ({
  id: e.id,
  organization_id: e.organization_id,
  email: e.email,
  verified: e.verified_at !== null,
  verified_at: e.verified_at ? new Date(e.verified_at).toISOString() : null,
  created_at: new Date(e.created_at).toISOString(),
});
