import type { Alert, RuleViolation } from '../../processors/alerts/index.ts';
import { type Fragment, html, type SafeHtml } from '../html.ts';
import { choices, errorSummary, type FieldErrors, field, form, type View } from './layout.ts';

/**
 * The alert form of the dashboard: its values, read from a posted form or an alert; the alert
 * input the API's request body would carry (checked here for what the request schema checks:
 * lengths, counts, language tags); rule violations mapped back to the form's fields; and the
 * form itself. Entities are checkboxes (`TYPE:id`); entity search adds candidates, by a
 * "Search" button without script and by suggestions as one types with it (app.js).
 */
export const KINDS = [
  { value: 'ENTITY_MENTION', label: 'Mentioned in an episode' },
  { value: 'PODCAST_SPEAKER', label: 'Speaks on an episode (as a guest or other non-host speaker)' },
] as const;
export const CADENCES = [
  { value: 'REALTIME', label: 'Each match as it is found' },
  { value: 'DAILY', label: 'A daily digest' },
  { value: 'WEEKLY', label: 'A weekly digest (Mondays)' },
] as const;
const ROLES = ['HOST', 'GUEST', 'PANELIST', 'CORRESPONDENT', 'AUDIENCE', 'SOUNDBITE_SPEAKER'] as const;
const DEFAULT_ROLES = ROLES.filter((r) => r !== 'HOST');
const ENTITY_TYPES = ['PERSON', 'COMPANY', 'KNOWLEDGE_GRAPH_ENTITY'] as const;
const LANGUAGE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;
export const TYPE_LABELS: Record<string, string> = {
  PERSON: 'person',
  COMPANY: 'company',
  KNOWLEDGE_GRAPH_ENTITY: 'topic',
};

export interface AlertFormValues {
  title: string;
  description: string;
  kind: string;
  cadence: string;
  /** `TYPE:id` of each chosen entity. */
  entities: string[];
  webhooks: string[];
  emails: string[];
  /** `connectionId/channelId`. */
  chats: string[];
  languages: string;
  relevance: string;
  popularity: string;
  roles: string[];
  active: boolean;
  /** The entity search typed. */
  q: string;
}

type Form = { one(name: string): string; all(name: string): string[] };

export function valuesFromForm(f: Form): AlertFormValues {
  return {
    title: f.one('title'),
    description: f.one('description'),
    kind: f.one('kind') || 'ENTITY_MENTION',
    cadence: f.one('cadence') || 'REALTIME',
    entities: [...new Set(f.all('entity'))],
    webhooks: f.all('webhook'),
    emails: f.all('email'),
    chats: f.all('chat'),
    languages: f.one('languages'),
    relevance: f.one('relevance') || 'EVERYTHING',
    popularity: f.one('popularity') || 'ANY',
    roles: f.all('role'),
    active: f.one('active') === 'on',
    q: f.one('q'),
  };
}

export function valuesFromAlert(alert: Alert): AlertFormValues {
  const channels = alert.notifications;
  return {
    title: alert.title,
    description: alert.description ?? '',
    kind: alert.kind,
    cadence: alert.delivery_cadence,
    entities: alert.entities.map((e) => `${e.entity_type}:${e.entity_id}`),
    webhooks: channels.flatMap((c) => (c.type === 'WEBHOOK' ? [c.webhook_connection_id] : [])),
    emails: channels.flatMap((c) => (c.type === 'EMAIL' ? [c.email] : [])),
    chats: channels.flatMap((c) =>
      c.type === 'CHAT' ? [`${c.chat_connection_id}/${c.chat_channel_id}`] : [],
    ),
    languages: (alert.filters.languages ?? []).join(', '),
    relevance: alert.filters.relevance ?? 'EVERYTHING',
    popularity: alert.filters.source_popularity ?? 'ANY',
    roles: alert.filters.speaker_roles ?? [...DEFAULT_ROLES],
    active: alert.is_active,
    q: '',
  };
}

export function emptyValues(): AlertFormValues {
  return {
    title: '',
    description: '',
    kind: 'ENTITY_MENTION',
    cadence: 'REALTIME',
    entities: [],
    webhooks: [],
    emails: [],
    chats: [],
    languages: '',
    relevance: 'EVERYTHING',
    popularity: 'ANY',
    roles: [...DEFAULT_ROLES],
    active: true,
    q: '',
  };
}

/** The alert body (as `POST /v1/projects/{id}/alerts` takes it) of the form, or what is wrong. */
export function inputOf(v: AlertFormValues) {
  const errors: FieldErrors = {};
  if (v.title.length === 0) errors.title = 'enter a title';
  else if ([...v.title].length > 200) errors.title = 'must be at most 200 characters';
  if ([...v.description].length > 2000) errors.description = 'must be at most 2,000 characters';
  if (!KINDS.some((k) => k.value === v.kind)) errors.kind = 'choose what to watch for';
  if (!CADENCES.some((c) => c.value === v.cadence)) errors.cadence = 'choose how often to be notified';
  const entities = v.entities.flatMap((e) => {
    const [type, id] = [e.slice(0, e.indexOf(':')), e.slice(e.indexOf(':') + 1)];
    return (ENTITY_TYPES as readonly string[]).includes(type) && id.length > 0 && id.length <= 200
      ? [{ entity_type: type as (typeof ENTITY_TYPES)[number], entity_id: id }]
      : [];
  });
  if (entities.length === 0) errors.entity = 'choose at least one person, company or topic (search for it)';
  else if (entities.length > 100) errors.entity = 'choose at most 100';
  const notifications = [
    ...v.webhooks.map((id) => ({ type: 'WEBHOOK' as const, webhook_connection_id: id })),
    ...v.emails.map((email) => ({ type: 'EMAIL' as const, email })),
    ...v.chats.map((c) => ({
      type: 'CHAT' as const,
      chat_connection_id: c.slice(0, c.indexOf('/')),
      chat_channel_id: c.slice(c.indexOf('/') + 1),
    })),
  ];
  if (notifications.length === 0) errors.notifications = 'choose at least one webhook, address or channel';
  else if (notifications.length > 20) errors.notifications = 'choose at most 20';
  const languages = v.languages
    .split(/[\s,]+/)
    .map((l) => l.trim())
    .filter(Boolean);
  if (languages.length > 50) errors.languages = 'name at most 50 languages';
  else if (languages.some((l) => !LANGUAGE.test(l) || l.length > 35))
    errors.languages = 'use language tags such as en, de, pt-BR, separated by commas';
  let roles: (typeof ROLES)[number][] | undefined;
  if (v.kind === 'PODCAST_SPEAKER') {
    const chosen = ROLES.filter((r) => v.roles.includes(r));
    if (chosen.length === 0) errors.role = 'choose at least one role';
    // The default set is left unset, so the alert follows the default.
    else if (chosen.length !== DEFAULT_ROLES.length || !DEFAULT_ROLES.every((r) => chosen.includes(r)))
      roles = chosen;
  }
  const filters = {
    ...(languages.length > 0 ? { languages } : {}),
    ...(v.relevance === 'RELEVANT' ? { relevance: 'RELEVANT' as const } : {}),
    ...(v.popularity === 'POPULAR' ? { source_popularity: 'POPULAR' as const } : {}),
    ...(roles ? { speaker_roles: roles } : {}),
  };
  if (Object.keys(errors).length > 0) return { errors };
  return {
    errors,
    input: {
      title: v.title,
      description: v.description.length > 0 ? v.description : null,
      kind: v.kind as (typeof KINDS)[number]['value'],
      delivery_cadence: v.cadence as (typeof CADENCES)[number]['value'],
      entities,
      notifications,
      filters,
    },
  };
}

/** A rule violation's field (`entities[0].entity_id`) as the form field that holds it. */
export function errorsOfViolations(violations: RuleViolation[], fallback: string): FieldErrors {
  const errors: FieldErrors = {};
  for (const v of violations) {
    const name = v.field.startsWith('entities')
      ? 'entity'
      : v.field.startsWith('notifications')
        ? 'notifications'
        : v.field === 'filters.speaker_roles'
          ? 'role'
          : v.field.startsWith('filters.languages')
            ? 'languages'
            : v.field === 'kind'
              ? 'kind'
              : '_form';
    const text = v.value !== undefined ? `${String(v.value)} ${v.message}` : v.message;
    errors[name] = errors[name] ? `${errors[name]}; ${text}` : text;
  }
  if (Object.keys(errors).length === 0) errors._form = fallback;
  return errors;
}

export const FIELD_LABELS: Record<string, string> = {
  title: 'Title',
  description: 'Description',
  kind: 'Watch for',
  cadence: 'How often',
  entity: 'Who or what',
  notifications: 'Notify',
  languages: 'Languages',
  role: 'Speaker roles',
};

export interface ChannelOptions {
  webhooks: { id: string; name: string; url: string }[];
  /** Verified notification emails of the organization. */
  emails: string[];
  chats: { value: string; label: string }[];
  /** Where each kind of channel is managed. */
  manage: { webhooks: string; emails: string; chat: string };
}

export interface EntityChoice {
  value: string;
  name: string;
  type: string;
}

/** The form: new (`mode` create) or an existing alert's (edit: its kind is fixed). */
export function alertForm(
  view: View,
  opts: {
    action: string;
    mode: 'create' | 'edit';
    values: AlertFormValues;
    errors: FieldErrors;
    options: ChannelOptions;
    /** Names of the chosen entities and the search's candidates. */
    chosen: EntityChoice[];
    candidates: EntityChoice[];
    /** Entity search with suggestions (absent: the search index is not served here). */
    searchUrl?: string;
  },
): SafeHtml {
  const { values: v, errors, options } = opts;
  const entityLabel = (e: EntityChoice) =>
    html`${e.name} <span class="hint">(${TYPE_LABELS[e.type] ?? e.type})</span>`;
  const chosenIds = new Set(opts.chosen.map((c) => c.value));
  const candidates = opts.candidates.filter((c) => !chosenIds.has(c.value));
  const search: Fragment = opts.searchUrl
    ? html`<div class="field" data-entity-picker="chosen-entities" data-search-url="${opts.searchUrl}">
<label for="f-q">Find a person, company or topic</label>
<p class="hint" id="f-q-hint">A name, part of a name, a ticker, a handle or a domain.</p>
<div class="copy-row"><input id="f-q" name="q" type="search" value="${v.q}" maxlength="200" autocomplete="off" aria-describedby="f-q-hint">
<button type="submit" name="intent" value="search" class="secondary">Search</button></div>
<ul class="suggestions" aria-live="polite"></ul>
${
  candidates.length > 0
    ? html`<fieldset class="field"><legend>Results: tick to add</legend>${candidates.map(
        (c, i) =>
          html`<div class="choice"><input type="checkbox" id="f-candidate-${i}" name="entity" value="${c.value}"> <label for="f-candidate-${i}">${entityLabel(c)}</label></div>`,
      )}</fieldset>`
    : v.q
      ? html`<p class="empty">Nothing found for “${v.q}”.</p>`
      : ''
}
</div>`
    : html`<p class="hint">Entity search is not available on this deployment.</p>`;
  const notifyOptions: Fragment[] = [
    ...options.webhooks.map(
      (w, i) =>
        html`<div class="choice"><input type="checkbox" id="f-webhook-${i}" name="webhook" value="${w.id}"${
          v.webhooks.includes(w.id) ? html` checked` : ''
        }> <label for="f-webhook-${i}">Webhook ${w.name} <span class="hint">${w.url}</span></label></div>`,
    ),
    ...options.emails.map(
      (e, i) =>
        html`<div class="choice"><input type="checkbox" id="f-email-${i}" name="email" value="${e}"${
          v.emails.map((x) => x.toLowerCase()).includes(e.toLowerCase()) ? html` checked` : ''
        }> <label for="f-email-${i}">Email ${e}</label></div>`,
    ),
    ...options.chats.map(
      (c, i) =>
        html`<div class="choice"><input type="checkbox" id="f-chat-${i}" name="chat" value="${c.value}"${
          v.chats.includes(c.value) ? html` checked` : ''
        }> <label for="f-chat-${i}">Team chat ${c.label}</label></div>`,
    ),
  ];
  return html`${errorSummary(errors, FIELD_LABELS)}
${form(
  view,
  opts.action,
  html`${field({ name: 'title', label: 'Title', value: v.title, required: true, maxlength: 200, error: errors.title, hint: 'Shown in the subject of alert mails.' })}
<div class="field${errors.description ? ' invalid' : ''}"><label for="f-description">Description</label>
${errors.description ? html`<p class="error" id="f-description-error">${errors.description}</p>` : ''}
<textarea id="f-description" name="description" rows="2" maxlength="2000">${v.description}</textarea></div>
${
  opts.mode === 'create'
    ? choices({
        name: 'kind',
        legend: 'Watch for',
        type: 'radio',
        options: [...KINDS],
        checked: [v.kind],
        error: errors.kind,
      })
    : html`<p><strong>Watch for:</strong> ${KINDS.find((k) => k.value === v.kind)?.label ?? v.kind} <span class="hint">(fixed when the alert was made)</span></p><input type="hidden" name="kind" value="${v.kind}">`
}
<fieldset class="field${errors.entity ? ' invalid' : ''}" id="f-entity">
<legend>Who or what</legend>
${errors.entity ? html`<p class="error">${errors.entity}</p>` : ''}
<div id="chosen-entities">${opts.chosen.map(
    (c, i) =>
      html`<div class="choice"><input type="checkbox" id="f-entity-${i}" name="entity" value="${c.value}" checked> <label for="f-entity-${i}">${entityLabel(c)}</label></div>`,
  )}</div>
${search}
</fieldset>
${choices({ name: 'cadence', legend: 'How often', type: 'radio', options: [...CADENCES], checked: [v.cadence], error: errors.cadence })}
<fieldset class="field${errors.notifications ? ' invalid' : ''}" id="f-notifications">
<legend>Notify</legend>
${errors.notifications ? html`<p class="error">${errors.notifications}</p>` : ''}
${notifyOptions.length > 0 ? notifyOptions : html`<p class="empty">Nothing to notify yet.</p>`}
<p class="hint">Add <a href="${view.base}${options.manage.webhooks}">webhook connections</a>, <a href="${view.base}${options.manage.emails}">notification emails</a> (verified addresses only) or <a href="${view.base}${options.manage.chat}">a team-chat workspace</a>.</p>
</fieldset>
<fieldset class="field"><legend>Filters</legend>
${field({ name: 'languages', label: 'Languages', value: v.languages, maxlength: 2000, error: errors.languages, hint: 'Episode languages, e.g. "en, de"; empty for every language.' })}
${choices({
  name: 'relevance',
  legend: 'Relevance',
  type: 'radio',
  options: [
    { value: 'EVERYTHING', label: 'Every mention' },
    { value: 'RELEVANT', label: 'Only on-target mentions' },
  ],
  checked: [v.relevance],
})}
${choices({
  name: 'popularity',
  legend: 'Podcasts',
  type: 'radio',
  options: [
    { value: 'ANY', label: 'Any podcast' },
    { value: 'POPULAR', label: 'Only popular podcasts (top 5% of the charts)' },
  ],
  checked: [v.popularity],
})}
${choices({ name: 'role', legend: 'Speaker roles', hint: 'For “speaks on an episode” alerts only.', options: ROLES.map((r) => ({ value: r, label: r.toLowerCase().replace('_', ' ') })), checked: v.roles, error: errors.role })}
</fieldset>
${opts.mode === 'create' ? html`<div class="choice"><input type="checkbox" id="f-active" name="active" value="on"${v.active ? html` checked` : ''}> <label for="f-active">Active from now on (a paused alert does not count against the plan)</label></div>` : ''}
<div class="actions"><button type="submit" name="intent" value="save">${opts.mode === 'create' ? 'Create alert' : 'Save changes'}</button></div>`,
  { label: opts.mode === 'create' ? 'New alert' : 'Edit alert' },
)}`;
}
