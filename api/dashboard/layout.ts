import { type Fragment, html, join, type SafeHtml } from '../html.ts';

/**
 * The page frame and form parts every dashboard page is built from. Every input has a label
 * (errors are tied to it with `aria-describedby` and listed in a summary at the top of the form),
 * controls are native elements (keyboard-usable as they are), the focus ring is always visible
 * (app.css), and the layout is one column on a phone.
 */
export interface View {
  /** Path prefix of the dashboard (`/dashboard`), for links. */
  base: string;
  /** The session's form token; absent only where no form is shown. */
  csrf?: string;
  /** The signed-in person. */
  user?: { email: string };
  /** Versioned asset paths. */
  assets: { css: string; js: string };
}

export const href = (view: View, path: string) => (path === '/' ? `${view.base}/` : `${view.base}${path}`);

export interface Crumb {
  label: string;
  path?: string;
}

export function page(
  view: View,
  opts: { title: string; crumbs?: Crumb[]; tabs?: SafeHtml; body: Fragment; wide?: boolean },
): SafeHtml {
  const crumbs = opts.crumbs?.length
    ? html`<nav class="crumbs" aria-label="Breadcrumbs"><ol>${opts.crumbs.map((c) =>
        c.path
          ? html`<li><a href="${href(view, c.path)}">${c.label}</a></li>`
          : html`<li aria-current="page">${c.label}</li>`,
      )}</ol></nav>`
    : '';
  const account = view.user
    ? html`<nav class="account" aria-label="Account">
        <a href="${href(view, '/')}">Overview</a>
        <a href="${href(view, '/account')}">${view.user.email}</a>
        ${form(view, '/sign-out', html`<button type="submit" class="link">Sign out</button>`, { inline: true })}
      </nav>`
    : html`<nav class="account" aria-label="Account">
        <a href="${href(view, '/sign-in')}">Sign in</a> <a href="${href(view, '/sign-up')}">Sign up</a>
      </nav>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${opts.title} · Earshot</title>
<link rel="stylesheet" href="${view.assets.css}">
<script src="${view.assets.js}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><a class="brand" href="${href(view, '/')}">Earshot</a>${account}</header>
<main id="main" tabindex="-1" class="${opts.wide ? 'wide' : ''}">
${crumbs}
<h1>${opts.title}</h1>
${opts.tabs ?? ''}
${opts.body}
</main>
</body>
</html>`;
}

/** A POST form carrying the session's CSRF token. */
export function form(
  view: View,
  action: string,
  body: Fragment,
  opts: { inline?: boolean; confirm?: string; label?: string; id?: string } = {},
): SafeHtml {
  return html`<form method="post" action="${href(view, action)}"${opts.inline ? html` class="inline"` : ''}${
    opts.confirm ? html` data-confirm="${opts.confirm}"` : ''
  }${opts.label ? html` aria-label="${opts.label}"` : ''}${opts.id ? html` id="${opts.id}"` : ''}>
<input type="hidden" name="_csrf" value="${view.csrf ?? ''}">
${body}
</form>`;
}

/**
 * A one-button POST form (revoke, delete, pause…). `context` completes the button's name for
 * screen readers ("Revoke" → "Revoke key backend") without changing what is shown, so a table of
 * rows with the same buttons stays unambiguous.
 */
export function action(
  view: View,
  path: string,
  label: string,
  opts: { confirm?: string; danger?: boolean; fields?: Record<string, string>; context?: string } = {},
): SafeHtml {
  const hidden = Object.entries(opts.fields ?? {}).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return form(
    view,
    path,
    html`${hidden}<button type="submit"${opts.danger ? html` class="danger"` : ''}>${label}${
      opts.context ? html`<span class="visually-hidden"> ${opts.context}</span>` : ''
    }</button>`,
    { inline: true, confirm: opts.confirm },
  );
}

export type FieldErrors = Record<string, string>;

/** The list of a form's errors, linked to their fields; focused by app.js. */
export function errorSummary(errors: FieldErrors, labels: Record<string, string> = {}): Fragment {
  const entries = Object.entries(errors);
  if (entries.length === 0) return '';
  return html`<div class="error-summary" role="alert" tabindex="-1">
<h2>There is a problem</h2>
<ul>${entries.map(([name, message]) =>
    name === '_form'
      ? html`<li>${message}</li>`
      : html`<li><a href="#f-${name}">${labels[name] ?? name}: ${message}</a></li>`,
  )}</ul></div>`;
}

export function field(opts: {
  name: string;
  label: string;
  type?: string;
  value?: string;
  required?: boolean;
  autocomplete?: string;
  hint?: string;
  error?: string;
  maxlength?: number;
  minlength?: number;
  placeholder?: string;
  inputmode?: string;
}): SafeHtml {
  const id = `f-${opts.name}`;
  const described = [opts.hint ? `${id}-hint` : '', opts.error ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return html`<div class="field${opts.error ? ' invalid' : ''}">
<label for="${id}">${opts.label}</label>
${opts.hint ? html`<p class="hint" id="${id}-hint">${opts.hint}</p>` : ''}
${opts.error ? html`<p class="error" id="${id}-error">${opts.error}</p>` : ''}
<input id="${id}" name="${opts.name}" type="${opts.type ?? 'text'}"${
    opts.value !== undefined && opts.type !== 'password' ? html` value="${opts.value}"` : ''
  }${opts.required ? html` required` : ''}${opts.autocomplete ? html` autocomplete="${opts.autocomplete}"` : ''}${
    opts.maxlength ? html` maxlength="${opts.maxlength}"` : ''
  }${opts.minlength ? html` minlength="${opts.minlength}"` : ''}${
    opts.placeholder ? html` placeholder="${opts.placeholder}"` : ''
  }${opts.inputmode ? html` inputmode="${opts.inputmode}"` : ''}${described ? html` aria-describedby="${described}"` : ''}${
    opts.error ? html` aria-invalid="true"` : ''
  }>
</div>`;
}

export function select(opts: {
  name: string;
  label: string;
  options: { value: string; label: string }[];
  value?: string;
  hint?: string;
  error?: string;
}): SafeHtml {
  const id = `f-${opts.name}`;
  return html`<div class="field${opts.error ? ' invalid' : ''}">
<label for="${id}">${opts.label}</label>
${opts.hint ? html`<p class="hint" id="${id}-hint">${opts.hint}</p>` : ''}
${opts.error ? html`<p class="error" id="${id}-error">${opts.error}</p>` : ''}
<select id="${id}" name="${opts.name}"${opts.hint ? html` aria-describedby="${id}-hint"` : ''}>
${opts.options.map(
  (o) => html`<option value="${o.value}"${o.value === opts.value ? html` selected` : ''}>${o.label}</option>`,
)}
</select>
</div>`;
}

/** A group of checkboxes (or radios) with a legend. */
export function choices(opts: {
  name: string;
  legend: string;
  type?: 'checkbox' | 'radio';
  options: { value: string; label: Fragment; hint?: string }[];
  checked: readonly string[];
  hint?: string;
  error?: string;
}): SafeHtml {
  const type = opts.type ?? 'checkbox';
  return html`<fieldset class="field${opts.error ? ' invalid' : ''}" id="f-${opts.name}">
<legend>${opts.legend}</legend>
${opts.hint ? html`<p class="hint">${opts.hint}</p>` : ''}
${opts.error ? html`<p class="error">${opts.error}</p>` : ''}
${opts.options.map((o, i) => {
  const id = `f-${opts.name}-${i}`;
  return html`<div class="choice"><input type="${type}" id="${id}" name="${opts.name}" value="${o.value}"${
    opts.checked.includes(o.value) ? html` checked` : ''
  }> <label for="${id}">${o.label}</label>${o.hint ? html` <span class="hint">${o.hint}</span>` : ''}</div>`;
})}
</fieldset>`;
}

export function notice(text: Fragment, kind: 'info' | 'success' | 'warning' = 'info'): SafeHtml {
  return html`<div class="notice ${kind}" role="${kind === 'warning' ? 'alert' : 'status'}">${text}</div>`;
}

/** A secret shown once, with a copy button (app.js). */
export function shownOnce(label: string, value: string, id: string): SafeHtml {
  return html`<div class="secret" role="region" aria-labelledby="${id}-label">
<p id="${id}-label"><strong>${label}</strong> It is shown only now: copy it and keep it safe.</p>
<div class="copy-row"><input id="${id}" class="mono" type="text" readonly value="${value}" aria-labelledby="${id}-label">
<button type="button" data-copy="${id}">Copy</button></div>
</div>`;
}

/** A table with a caption (visually hidden when `hideCaption`). */
export function table(opts: {
  caption: string;
  hideCaption?: boolean;
  head: Fragment[];
  rows: Fragment[][];
  empty?: string;
}): SafeHtml {
  if (opts.rows.length === 0 && opts.empty) return html`<p class="empty">${opts.empty}</p>`;
  return html`<div class="table-wrap"><table>
<caption${opts.hideCaption ? html` class="visually-hidden"` : ''}>${opts.caption}</caption>
<thead><tr>${opts.head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${opts.rows.map((r) => html`<tr>${r.map((c, i) => (i === 0 ? html`<th scope="row">${c}</th>` : html`<td>${c}</td>`))}</tr>`)}</tbody>
</table></div>`;
}

/** A date and time, in UTC, machine-readable. */
export function when(value: Date | string | null | undefined, empty = '—'): Fragment {
  if (value === null || value === undefined) return empty;
  const d = new Date(value);
  return html`<time datetime="${d.toISOString()}">${d.toISOString().slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** Tabs of a project's pages. */
export function projectTabs(view: View, projectId: string, current: string): SafeHtml {
  const e = encodeURIComponent(projectId);
  const tabs: [string, string][] = [
    ['Overview', `/projects/${e}`],
    ['API keys', `/projects/${e}/keys`],
    ['Usage', `/projects/${e}/usage`],
    ['Alerts', `/projects/${e}/alerts`],
    ['Webhooks', `/projects/${e}/webhooks`],
    ['Team chat', `/projects/${e}/chat`],
    ['Agents', `/projects/${e}/agents`],
    ['Plan', `/projects/${e}/plan`],
  ];
  return html`<nav class="tabs" aria-label="Project"><ul>${tabs.map(
    ([label, path]) =>
      html`<li><a href="${href(view, path)}"${label === current ? html` aria-current="page"` : ''}>${label}</a></li>`,
  )}</ul></nav>`;
}

export const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

export { join };
