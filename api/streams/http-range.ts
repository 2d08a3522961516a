/**
 * The parts of HTTP a resumable download needs (RFC 9110): one byte range, content coding.
 */

/** A byte range, both ends included. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The one byte range of a `Range` header over a representation of `total` bytes: a range,
 * `unsatisfiable` (416), or undefined when there is no usable header (a syntax this server does
 * not serve, such as several ranges, is ignored: the whole representation is sent).
 */
export function parseRange(
  header: string | undefined,
  total: number,
): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    // The last n bytes.
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return total === 0 ? 'unsatisfiable' : { start: Math.max(0, total - n), end: total - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? total - 1 : Math.min(Number(m[2]), total - 1);
  if (!Number.isSafeInteger(start) || start >= total) return 'unsatisfiable';
  if (end < start) return undefined;
  return { start, end };
}

/** Whether `Accept-Encoding` admits gzip (`gzip` or `*` with a non-zero q). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let star: boolean | undefined;
  for (const part of header.split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)).find((m) => m)?.[1];
    const allowed = q === undefined || Number(q) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return allowed;
    if (coding === '*') star = allowed;
  }
  return star ?? false;
}

/** Whether an `If-None-Match` value names `etag` (weak comparison; `*` matches any). */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** Whether a Range applies under `If-Range` (absent, or exactly the current strong ETag). */
export function rangeApplies(ifRange: string | undefined, etag: string): boolean {
  return ifRange === undefined || ifRange.trim() === etag;
}
