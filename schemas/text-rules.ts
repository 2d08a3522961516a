/**
 * What text every store accepts, checked once at the edge (ingest records, HTTP requests) so that
 * no store ever sees text it would refuse or silently change:
 *
 * - no NUL (U+0000): PostgreSQL refuses it in `text` and `jsonb` ("invalid byte sequence",
 *   "unsupported Unicode escape sequence");
 * - well-formed UTF-16, no lone surrogate: ClickHouse refuses it in JSON input ("missing second
 *   part of surrogate pair"); PostgreSQL, LanceDB and OpenSearch would store U+FFFD instead;
 * - bounded length: identifiers (`id`, `…_id`, `slug`, `…_slug`, `guid`) are keys of PostgreSQL
 *   b-tree indexes (at most 2,704 bytes per entry) and OpenSearch keyword fields (32,766 bytes),
 *   so at most 256 characters; any other string at most 100,000 characters.
 */
export const MAX_IDENTIFIER_CHARS = 256;
export const MAX_TEXT_CHARS = 100_000;

/** Why a string cannot be stored, or undefined when it can. */
export function textProblem(value: string, maxChars = MAX_TEXT_CHARS): string | undefined {
  if (value.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (!isWellFormed(value)) return 'must be valid Unicode (a lone UTF-16 surrogate is not)';
  if (value.length > maxChars) return `must be at most ${maxChars.toLocaleString('en-US')} characters`;
  return undefined;
}

/** `String.prototype.isWellFormed` (Node 20), typed here because the TypeScript lib predates it. */
function isWellFormed(value: string): boolean {
  return (value as string & { isWellFormed(): boolean }).isWellFormed();
}

/** Whether a field name holds an identifier (bounded by MAX_IDENTIFIER_CHARS). */
export function isIdentifierField(name: string): boolean {
  return (
    name === 'id' || name === 'guid' || name === 'slug' || name.endsWith('_id') || name.endsWith('_slug')
  );
}

export interface TextViolation {
  /** Where the string is: property names and array indexes from the root. */
  path: (string | number)[];
  reason: string;
  /** The offending string, when short enough to quote. */
  value?: string;
}

export interface TextCheckOptions {
  /** Most violations reported (default 20). */
  limit?: number;
  /** Longest string allowed at a path (default: identifiers by their last property name, else MAX_TEXT_CHARS). */
  maxChars?: (path: readonly (string | number)[]) => number;
}

function defaultMaxChars(path: readonly (string | number)[]): number {
  for (let i = path.length - 1; i >= 0; i--) {
    const p = path[i];
    if (typeof p === 'string') return isIdentifierField(p) ? MAX_IDENTIFIER_CHARS : MAX_TEXT_CHARS;
  }
  return MAX_TEXT_CHARS;
}

/**
 * Every string in a JSON-like value (object keys included) that a store would refuse, with its
 * path. Walks arrays and plain objects to any depth; other values are left alone.
 */
export function textViolations(root: unknown, options: TextCheckOptions = {}): TextViolation[] {
  const limit = options.limit ?? 20;
  const maxChars = options.maxChars ?? defaultMaxChars;
  const out: TextViolation[] = [];
  // One path stack for the walk (records hold thousands of strings); copied only for a violation.
  const path: (string | number)[] = [];
  const visit = (value: unknown): void => {
    if (out.length >= limit) return;
    if (typeof value === 'string') {
      const reason = textProblem(value, maxChars(path));
      if (reason) out.push({ path: [...path], reason, ...(value.length <= 200 ? { value } : {}) });
      return;
    }
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        visit(value[i]);
        path.pop();
      }
      return;
    }
    for (const key of Object.keys(value)) {
      if (out.length >= limit) return;
      path.push(key);
      const keyProblem = textProblem(key, MAX_IDENTIFIER_CHARS);
      if (keyProblem) out.push({ path: [...path], reason: `property name ${keyProblem}` });
      else visit((value as Record<string, unknown>)[key]);
      path.pop();
    }
  };
  visit(root);
  return out;
}
