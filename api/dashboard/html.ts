/**
 * Typed HTML templates with auto-escaping: `html\`<p>${text}</p>\`` escapes every interpolated
 * value unless it is itself `Html` (another template, or `trusted` text the code wrote). Arrays
 * are joined; `null`, `undefined` and `false` render nothing. Pages are functions of typed data
 * returning `Html`, so the compiler checks what each page needs, and no value a person typed
 * reaches the page unescaped.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Fragment = Html | string | number | null | undefined | false | readonly Fragment[];

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
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Fragment[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Text the code itself wrote (never a request's or a store's value), inserted as it is. */
export function trusted(text: string): Html {
  return new Html(text);
}

/** Joins fragments with a separator. */
export function join(items: readonly Fragment[], separator: Fragment = ''): Html {
  return new Html(
    items
      .map(render)
      .filter((s) => s !== '')
      .join(render(separator)),
  );
}
