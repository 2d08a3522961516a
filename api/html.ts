/**
 * Typed HTML templates with auto-escaping, for every page the service renders (the start and
 * error pages, the dashboard): `html\`<p>${text}</p>\`` escapes every interpolated value unless
 * it is itself `SafeHtml` (another template, or `trusted` text the code wrote). Arrays are
 * joined; `null`, `undefined` and `false` render nothing. Pages are functions of typed data
 * returning `SafeHtml`, so the compiler checks what each page needs, and no value a person typed
 * reaches a page unescaped.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Fragment = SafeHtml | string | number | null | undefined | false | readonly Fragment[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function render(value: Fragment): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Fragment[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** Text the code itself wrote (never a request's or a store's value), inserted as it is. */
export function trusted(text: string): SafeHtml {
  return new SafeHtml(text);
}

/** Joins fragments with a separator. */
export function join(items: readonly Fragment[], separator: Fragment = ''): SafeHtml {
  return new SafeHtml(
    items
      .map(render)
      .filter((s) => s !== '')
      .join(render(separator)),
  );
}
