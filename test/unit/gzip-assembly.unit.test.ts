import { randomBytes } from 'node:crypto';
import { constants, crc32, deflateRawSync, gunzipSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32Combine, FINAL_BLOCK, GZIP_HEADER, gzipTrailer } from '../../api/streams/gzip-assembly.ts';

const piece = (data: Buffer) => deflateRawSync(data, { finishFlush: constants.Z_SYNC_FLUSH });

describe('gzip assembled from pieces compressed apart', () => {
  it('combines CRC-32s as zlib does', () => {
    for (const [a, b] of [
      [0, 0],
      [1, 1],
      [13, 1000],
      [70_000, 3],
      [5, 200_000],
    ] as const) {
      const A = randomBytes(a);
      const B = randomBytes(b);
      expect(crc32Combine(crc32(A), crc32(B), B.length), `${a}+${b}`).toBe(crc32(Buffer.concat([A, B])));
    }
  });

  it('makes one gzip member every decoder reads whole, empty or not', () => {
    const days = [
      Buffer.from('{"id":"a"}\n'.repeat(500)),
      Buffer.from(''),
      randomBytes(40_000),
      Buffer.from('{"id":"z"}\n'),
    ];
    let crc = 0;
    let size = 0;
    for (const d of days) {
      crc = crc32Combine(crc, crc32(d), d.length);
      size += d.length;
    }
    const gz = Buffer.concat([GZIP_HEADER, ...days.map(piece), FINAL_BLOCK, gzipTrailer(crc, size)]);
    expect(gunzipSync(gz).equals(Buffer.concat(days))).toBe(true);
    // One piece alone, with the final block, is a complete raw DEFLATE stream.
    expect(inflateRawSync(Buffer.concat([piece(days[0]!), FINAL_BLOCK])).equals(days[0]!)).toBe(true);
    expect(gunzipSync(Buffer.concat([GZIP_HEADER, FINAL_BLOCK, gzipTrailer(0, 0)]))).toHaveLength(0);
  });
});
