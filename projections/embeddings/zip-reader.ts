import { createReadStream, createWriteStream } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createInflateRaw } from 'node:zlib';

// Just enough of the ZIP format (APPNOTE 6.3) to pull a few entries out of a jar: the central
// directory gives names, sizes and CRCs; entries are stored or deflated. Entries are streamed to
// disk so a 90 MB model never sits in memory, and every byte is checked against the CRC.

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  crc32: number;
  localHeaderOffset: number;
  flags: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const ZIP64_MARKER = 0xffffffff;

export class ZipFormatError extends Error {
  override name = 'ZipFormatError';
}

export async function listZipEntries(zipPath: string): Promise<ZipEntry[]> {
  const file = await open(zipPath, 'r');
  try {
    const { size } = await file.stat();
    // The end-of-central-directory record is 22 bytes plus a comment of up to 65535 bytes.
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = Buffer.alloc(tailLength);
    await file.read(tail, 0, tailLength, size - tailLength);
    let eocd = -1;
    for (let i = tailLength - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD_SIGNATURE) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw new ZipFormatError(`${zipPath}: no end of central directory (not a zip file?)`);
    const entryCount = tail.readUInt16LE(eocd + 10);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    if (cdOffset === ZIP64_MARKER || cdSize === ZIP64_MARKER || entryCount === 0xffff) {
      throw new ZipFormatError(`${zipPath}: ZIP64 archives are not supported`);
    }
    if (cdOffset + cdSize > size) throw new ZipFormatError(`${zipPath}: central directory out of range`);
    const cd = Buffer.alloc(cdSize);
    await file.read(cd, 0, cdSize, cdOffset);

    const entries: ZipEntry[] = [];
    let p = 0;
    for (let n = 0; n < entryCount; n++) {
      if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL_SIGNATURE) {
        throw new ZipFormatError(`${zipPath}: corrupt central directory at entry ${n}`);
      }
      const nameLength = cd.readUInt16LE(p + 28);
      const extraLength = cd.readUInt16LE(p + 30);
      const commentLength = cd.readUInt16LE(p + 32);
      const flags = cd.readUInt16LE(p + 8);
      const entry: ZipEntry = {
        flags,
        method: cd.readUInt16LE(p + 10),
        crc32: cd.readUInt32LE(p + 16),
        compressedSize: cd.readUInt32LE(p + 20),
        size: cd.readUInt32LE(p + 24),
        localHeaderOffset: cd.readUInt32LE(p + 42),
        // Bit 11 marks UTF-8 names; jars always set it or use ASCII.
        name: cd.toString(flags & 0x800 ? 'utf8' : 'latin1', p + 46, p + 46 + nameLength),
      };
      entries.push(entry);
      p += 46 + nameLength + extraLength + commentLength;
    }
    return entries;
  } finally {
    await file.close();
  }
}

/** Writes one entry's uncompressed bytes to `destPath`, verifying size and CRC-32. */
export async function extractZipEntry(zipPath: string, entry: ZipEntry, destPath: string): Promise<void> {
  if (entry.flags & 0x1) throw new ZipFormatError(`${entry.name}: encrypted entries are not supported`);
  if (entry.method !== 0 && entry.method !== 8) {
    throw new ZipFormatError(`${entry.name}: unsupported compression method ${entry.method}`);
  }
  if (entry.compressedSize === ZIP64_MARKER || entry.size === ZIP64_MARKER) {
    throw new ZipFormatError(`${entry.name}: ZIP64 entries are not supported`);
  }
  const dataStart = await localDataOffset(zipPath, entry);

  let crc = 0;
  let written = 0;
  const check = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      crc = crc32(chunk, crc);
      written += chunk.length;
      if (written > entry.size) done(new ZipFormatError(`${entry.name}: more data than the declared size`));
      else done(null, chunk);
    },
  });
  if (entry.compressedSize === 0) {
    await writeFile(destPath, '');
  } else {
    const source = createReadStream(zipPath, { start: dataStart, end: dataStart + entry.compressedSize - 1 });
    const stages = entry.method === 8 ? [source, createInflateRaw(), check] : [source, check];
    await pipeline([...stages, createWriteStream(destPath)]);
  }
  if (written !== entry.size) {
    throw new ZipFormatError(`${entry.name}: expected ${entry.size} bytes, got ${written}`);
  }
  if (crc >>> 0 !== entry.crc32 >>> 0) {
    throw new ZipFormatError(`${entry.name}: CRC-32 mismatch (archive corrupt)`);
  }
}

async function localDataOffset(zipPath: string, entry: ZipEntry): Promise<number> {
  const file = await open(zipPath, 'r');
  try {
    const header = Buffer.alloc(30);
    const { bytesRead } = await file.read(header, 0, 30, entry.localHeaderOffset);
    if (bytesRead < 30 || header.readUInt32LE(0) !== LOCAL_SIGNATURE) {
      throw new ZipFormatError(`${entry.name}: bad local header`);
    }
    // The local name/extra lengths may differ from the central directory's; only these count here.
    return entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  } finally {
    await file.close();
  }
}
