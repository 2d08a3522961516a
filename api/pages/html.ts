import { escapeHtml, html, SafeHtml } from '../html.ts';

export { escapeHtml, html, SafeHtml };

/** `code` spans for text written with backticks (`query.limit`), escaped. */
export function withCode(text: string): SafeHtml {
  return new SafeHtml(
    text
      .split('`')
      .map((piece, i) => (i % 2 === 1 ? `<code>${escapeHtml(piece)}</code>` : escapeHtml(piece)))
      .join(''),
  );
}

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
a{color:#0b57d0}a:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
code{background:#f1f1f1;padding:0 .25em;border-radius:3px}
h1{font-size:1.6rem}ul{padding-left:1.2rem}li{margin:.3rem 0}
@media (prefers-color-scheme:dark){body{background:#121212;color:#e8e8e8}a{color:#8ab4f8}code{background:#2a2a2a}}`;

/** A whole page: language, viewport, title and a small inline stylesheet (no external assets). */
export function page(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title><style>${new SafeHtml(STYLE)}</style></head>
<body><main>${body}</main></body></html>
`.value;
}
