import { EnvSchema } from './config.ts';

interface DocumentedSchema {
  default?: unknown;
  description?: string;
  unset?: string;
}

export const CONFIG_TABLE_BEGIN = '<!-- generated from infra/config.ts by `npm run docs:config`: begin -->';
export const CONFIG_TABLE_END = '<!-- generated: end -->';

function defaultCell(schema: DocumentedSchema, optional: boolean): string {
  if (schema.default !== undefined) return schema.default === '' ? 'empty' : `\`${String(schema.default)}\``;
  if (optional) return schema.unset ? `unset → ${schema.unset}` : 'unset';
  return 'required';
}

/** The table of every environment variable, in schema order, as docs/configuration.md shows it. */
export function configTable(): string {
  const required = new Set<string>(EnvSchema.required ?? []);
  const rows = Object.entries(EnvSchema.properties).map(([name, raw]) => {
    const schema = raw as DocumentedSchema;
    const text = (schema.description ?? '').replaceAll('|', '\\|');
    return `| \`${name}\` | ${defaultCell(schema, !required.has(name)).replaceAll('|', '\\|')} | ${text} |`;
  });
  return ['| variable | default | meaning |', '|----------|---------|---------|', ...rows].join('\n');
}

/** `page` with the generated table between its markers replaced by the current one. */
export function withConfigTable(page: string): string {
  const begin = page.indexOf(CONFIG_TABLE_BEGIN);
  const end = page.indexOf(CONFIG_TABLE_END);
  if (begin < 0 || end < begin) throw new Error('docs/configuration.md has no generated-table markers');
  return `${page.slice(0, begin + CONFIG_TABLE_BEGIN.length)}\n${configTable()}\n${page.slice(end)}`;
}
