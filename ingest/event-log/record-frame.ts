/**
 * Binary layout of one record in the embedded log:
 *   appendTime f64 | timestamp f64 | keyLen i32 (-1 = null) | key | headerCount u16 |
 *   (nameLen u16 | name | valueLen u32 | value)* | valueLen i32 (-1 = null) | value
 */
export interface StoredRecord {
  appendTime: number;
  timestamp: number;
  key: string | null;
  headers: Record<string, string>;
  value: Buffer | null;
}

export function encodeFrame(
  appendTime: number,
  timestamp: number,
  key: string | null,
  headers: Record<string, string> | undefined,
  value: Buffer | null,
): Buffer {
  const keyBytes = key === null ? null : Buffer.from(key, 'utf8');
  const headerEntries = headers
    ? Object.entries(headers).map(([k, v]) => [Buffer.from(k, 'utf8'), Buffer.from(v, 'utf8')] as const)
    : [];
  let size = 8 + 8 + 4 + (keyBytes?.length ?? 0) + 2 + 4 + (value?.length ?? 0);
  for (const [k, v] of headerEntries) size += 2 + k.length + 4 + v.length;
  const out = Buffer.allocUnsafe(size);
  let at = out.writeDoubleBE(appendTime, 0);
  at = out.writeDoubleBE(timestamp, at);
  at = out.writeInt32BE(keyBytes ? keyBytes.length : -1, at);
  if (keyBytes) at += keyBytes.copy(out, at);
  at = out.writeUInt16BE(headerEntries.length, at);
  for (const [k, v] of headerEntries) {
    at = out.writeUInt16BE(k.length, at);
    at += k.copy(out, at);
    at = out.writeUInt32BE(v.length, at);
    at += v.copy(out, at);
  }
  at = out.writeInt32BE(value ? value.length : -1, at);
  if (value) value.copy(out, at);
  return out;
}

export function frameAppendTime(frame: Uint8Array): number {
  return Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength).readDoubleBE(0);
}

/** Decodes a frame, copying everything out of `frame` (the storage engine may reuse it). */
export function decodeFrame(frame: Uint8Array): StoredRecord {
  const buf = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
  const appendTime = buf.readDoubleBE(0);
  const timestamp = buf.readDoubleBE(8);
  let at = 16;
  const keyLen = buf.readInt32BE(at);
  at += 4;
  let key: string | null = null;
  if (keyLen >= 0) {
    key = buf.toString('utf8', at, at + keyLen);
    at += keyLen;
  }
  const headerCount = buf.readUInt16BE(at);
  at += 2;
  const headers: Record<string, string> = {};
  for (let i = 0; i < headerCount; i++) {
    const nameLen = buf.readUInt16BE(at);
    at += 2;
    const name = buf.toString('utf8', at, at + nameLen);
    at += nameLen;
    const valueLen = buf.readUInt32BE(at);
    at += 4;
    headers[name] = buf.toString('utf8', at, at + valueLen);
    at += valueLen;
  }
  const valueLen = buf.readInt32BE(at);
  at += 4;
  const value = valueLen >= 0 ? Buffer.from(buf.subarray(at, at + valueLen)) : null;
  return { appendTime, timestamp, key, headers, value };
}

/** The key of a frame and whether its value is null, without copying the value. */
export function frameKey(frame: Uint8Array): { key: string | null; tombstone: boolean } {
  const buf = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
  let at = 16;
  const keyLen = buf.readInt32BE(at);
  at += 4;
  const key = keyLen >= 0 ? buf.toString('utf8', at, at + keyLen) : null;
  at += Math.max(0, keyLen);
  const headerCount = buf.readUInt16BE(at);
  at += 2;
  for (let i = 0; i < headerCount; i++) {
    at += 2 + buf.readUInt16BE(at);
    at += 4 + buf.readUInt32BE(at);
  }
  return { key, tombstone: buf.readInt32BE(at) < 0 };
}
