import { READ, type ToolAnnotations, type ToolDeclaration } from './tool-registry.ts';

/** Creates something new each time (not idempotent), destroys nothing. */
const CREATE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
/** Sets a state: repeating it changes nothing more. */
const SET_STATE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

const alert = { id: { name: 'alert_id', description: 'alert ID' } };
const project = { projectId: { name: 'project_id', description: 'project ID' } };

/**
 * The alert tools, the last of TOOLS (tools.ts) in `tools/list`: each acts on the caller's project
 * unless `project_id` says otherwise, and mirrors one REST operation of the alerts API.
 */
export const ALERT_TOOLS: readonly ToolDeclaration[] = [
  {
    name: 'earshot_list_alerts',
    title: 'List alerts',
    description: "The project's alerts (watches on entities that notify by email, team chat or webhook).",
    category: 'alerts',
    operation: { method: 'GET', path: '/v1/projects/:projectId/alerts' },
    params: project,
    projectParam: 'projectId',
    annotations: READ,
  },
  {
    name: 'earshot_get_alert',
    title: 'Read an alert',
    description: 'One alert.',
    category: 'alerts',
    operation: { method: 'GET', path: '/v1/alerts/:id' },
    params: alert,
    annotations: READ,
  },
  {
    name: 'earshot_create_alert',
    title: 'Create an alert',
    description:
      'Creates an alert on entities (IDs from earshot_search_entities) that notifies by the given channels; a 7-day backfill runs once. Needs a plan with alerts.',
    category: 'alerts',
    operation: { method: 'POST', path: '/v1/projects/:projectId/alerts' },
    params: project,
    projectParam: 'projectId',
    bodyInput: true,
    annotations: CREATE,
  },
  {
    name: 'earshot_pause_alert',
    title: 'Pause an alert',
    description: 'Pauses an alert: it stops matching new episodes; its history stays.',
    category: 'alerts',
    operation: { method: 'PATCH', path: '/v1/alerts/:id' },
    params: alert,
    fixedBody: { is_active: false },
    annotations: SET_STATE,
  },
  {
    name: 'earshot_resume_alert',
    title: 'Resume an alert',
    description: "Resumes a paused alert (counts against the plan's active-alert allowance).",
    category: 'alerts',
    operation: { method: 'PATCH', path: '/v1/alerts/:id' },
    params: alert,
    fixedBody: { is_active: true },
    annotations: SET_STATE,
  },
  {
    name: 'earshot_list_alert_matches',
    title: 'Matches of an alert',
    description: 'Episodes an alert matched, newest first.',
    category: 'alerts',
    operation: { method: 'GET', path: '/v1/alerts/:id/matches' },
    params: alert,
    annotations: READ,
    defaults: { limit: 10 },
  },
  {
    name: 'earshot_get_alert_match',
    title: 'Read an alert match',
    description: 'One match with its episode and the lines that matched.',
    category: 'alerts',
    operation: { method: 'GET', path: '/v1/alerts/matches/:id' },
    params: { id: { name: 'match_id', description: 'match ID (from earshot_list_alert_matches)' } },
    annotations: READ,
  },
  {
    name: 'earshot_list_alert_deliveries',
    title: 'Deliveries of an alert',
    description: 'Notifications an alert sent, with their status per channel.',
    category: 'alerts',
    operation: { method: 'GET', path: '/v1/alerts/:id/deliveries' },
    params: alert,
    annotations: READ,
    defaults: { limit: 10 },
  },
  {
    name: 'earshot_get_alert_delivery',
    title: 'Read an alert delivery',
    description: 'One delivery with its matches.',
    category: 'alerts',
    operation: { method: 'GET', path: '/v1/alerts/deliveries/:id' },
    params: { id: { name: 'delivery_id', description: 'delivery ID (from earshot_list_alert_deliveries)' } },
    annotations: READ,
  },
  {
    name: 'earshot_preview_alert',
    title: 'Preview an alert',
    description:
      'Starts estimating how many matches an alert would have; read the result with earshot_get_alert_preview.',
    category: 'alerts',
    operation: { method: 'POST', path: '/v1/projects/:projectId/alerts/preview' },
    params: project,
    projectParam: 'projectId',
    bodyInput: true,
    annotations: { ...READ, idempotentHint: true },
  },
  {
    name: 'earshot_get_alert_preview',
    title: 'Read an alert preview',
    description: 'The status and estimated match count of a preview.',
    category: 'alerts',
    operation: { method: 'GET', path: '/v1/alerts/preview/:previewId' },
    params: { previewId: { name: 'preview_id', description: 'preview ID (from earshot_preview_alert)' } },
    annotations: READ,
  },
];
