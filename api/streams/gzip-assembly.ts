/**
 * One gzip stream (RFC 1952) assembled from pieces compressed apart: each piece is raw DEFLATE
 * (RFC 1951) ended with a sync flush instead of a final block, so pieces can follow one another;
 * the stream is a gzip header, the pieces, an empty final block and a trailer holding the CRC-32
 * and size of everything. The CRC-32 of the whole is combined from the pieces' own (zlib's
 * `crc32_combine`), so no byte is compressed or read again. This is how a period of the bulk
 * download is served from its days' builds as a single gzip member, which every gzip client reads.
 */

/** A gzip header: deflate, no flags, no time, no extra flags, OS Unix (what zlib writes). */
export const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03]);

/** An empty final block with fixed Huffman codes: BFINAL 1, BTYPE 01, end of block. */
export const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** Length of the gzip trailer. */
export const GZIP_TRAILER_BYTES = 8;

/** The gzip trailer: CRC-32 and size (modulo 2^32) of the uncompressed data, little-endian. */
export function gzipTrailer(crc: number, size: number): Buffer {
  const out = Buffer.alloc(GZIP_TRAILER_BYTES);
  out.writeUInt32LE(crc >>> 0, 0);
  out.writeUInt32LE(size % 2 ** 32, 4);
  return out;
}

function times(matrix: Uint32Array, vector: number): number {
  let sum = 0;
  let v = vector >>> 0;
  for (let i = 0; v !== 0; i++, v >>>= 1) if (v & 1) sum ^= matrix[i]!;
  return sum >>> 0;
}

function square(out: Uint32Array, matrix: Uint32Array): void {
  for (let n = 0; n < 32; n++) out[n] = times(matrix, matrix[n]!);
}

/**
 * The CRC-32 of A followed by B, from the CRC-32 of A, that of B and the length of B (zlib's
 * `crc32_combine`: B's length in zeros is applied to A's CRC through the CRC's GF(2) operator,
 * squared for each bit of the length).
 */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB <= 0) return crcA >>> 0;
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  odd[0] = 0xedb88320; // the CRC-32 polynomial: the operator for one zero bit
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row >>> 0;
  square(even, odd); // two zero bits
  square(odd, even); // four zero bits
  let crc = crcA >>> 0;
  let length = lengthB;
  for (;;) {
    square(even, odd);
    if (length % 2 === 1) crc = times(even, crc);
    length = Math.floor(length / 2);
    if (length === 0) break;
    square(odd, even);
    if (length % 2 === 1) crc = times(odd, crc);
    length = Math.floor(length / 2);
    if (length === 0) break;
  }
  return (crc ^ crcB) >>> 0;
}
