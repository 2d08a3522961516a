import type { Alert } from '../model.ts';
import type { PreviewRow } from '../reads/preview.ts';

/**
 * Alerts and previews as the REST reads show them (schemas: http-schemas.ts `AlertSchema`,
 * `PreviewSchema`). Entity names and slugs come from the catalog (`AlertManagement.entityNames`).
 */
export function alertView(a: Alert, names: Map<string, { name: string; slug: string }>) {
  return {
    id: a.id,
    project_id: a.project_id,
    title: a.title,
    description: a.description,
    kind: a.kind,
    delivery_cadence: a.delivery_cadence,
    entities: a.entities.map((e) => ({
      entity_type: e.entity_type,
      entity_id: e.entity_id,
      name: names.get(e.entity_id)?.name ?? null,
      slug: names.get(e.entity_id)?.slug ?? null,
    })),
    notifications: a.notifications,
    filters: a.filters,
    is_active: a.is_active,
    surface: a.surface,
    created_at: a.created_at.toISOString(),
    updated_at: a.updated_at.toISOString(),
  };
}

export function previewView(p: PreviewRow) {
  const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
  return {
    preview_id: p.id,
    status: p.status,
    estimated_match_count: p.status === 'COMPLETE' ? p.estimated_match_count : null,
    window_start: iso(p.window_start) ?? iso(p.created_at)!,
    window_end: iso(p.window_end) ?? iso(p.created_at)!,
    error: p.error,
    created_at: iso(p.created_at)!,
    completed_at: p.status === 'COMPLETE' || p.status === 'FAILED' ? iso(p.completed_at) : null,
  };
}
