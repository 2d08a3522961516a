import type { AlertKind } from '../../../schemas/event-enums.ts';
import type { AlertEntityRef } from '../model.ts';
import { type DigestMatch, digestSummary, type MatchDocument } from '../presentation/match-document.ts';
import { type AlertReadServices, matchDocuments, sampleMatchDocument } from '../reads/matches.ts';
import type { AlertInfo, DeliveryContent } from './content.ts';

interface AlertRow {
  id: string;
  project_id: string;
  organization_id: string;
  title: string;
  kind: AlertKind;
  is_active: boolean;
  deleted_at: Date | null;
  entities: AlertEntityRef[];
  notifications: { type: string; webhook_connection_id?: string }[];
}

/**
 * The senders' view of alert management: alerts from the `alerts` table and match documents
 * from alert management's shared reads (`matchDocuments(…, { audience: 'webhook' })`, the REST
 * single-match read minus `deliveries`, `monitor_id` and the raw popularity percentile),
 * `digestSummary` for digest items and `sampleMatchDocument` for test sends.
 */
export class StateDeliveryContent implements DeliveryContent {
  constructor(private readonly services: AlertReadServices) {}

  async alerts(ids: string[]): Promise<Map<string, AlertInfo>> {
    if (ids.length === 0) return new Map();
    const rows = await this.services.state.query<AlertRow>(
      `SELECT a.id, a.project_id, p.organization_id, a.title, a.kind, a.is_active, a.deleted_at, a.entities,
         a.notifications
       FROM alerts a JOIN projects p ON p.id = a.project_id WHERE a.id = ANY($1::text[])`,
      [ids],
    );
    return new Map(
      rows.map((r) => [
        r.id,
        {
          id: r.id,
          project_id: r.project_id,
          organization_id: r.organization_id,
          title: r.title,
          kind: r.kind,
          is_active: r.is_active,
          deleted: r.deleted_at !== null,
          entities: r.entities,
          webhook_connection_ids: r.notifications
            .filter((n) => n.type === 'WEBHOOK' && n.webhook_connection_id)
            .map((n) => n.webhook_connection_id!),
        },
      ]),
    );
  }

  async matches(ids: string[]): Promise<Map<string, MatchDocument>> {
    const docs = await matchDocuments(this.services, ids, { audience: 'webhook' });
    return new Map(docs.map((d) => [d.id, d]));
  }

  summarize(match: MatchDocument): DigestMatch {
    return digestSummary(match);
  }

  sampleMatch(alert: AlertInfo): Promise<MatchDocument> {
    return sampleMatchDocument(this.services, alert, { audience: 'webhook' });
  }
}
