/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of every journal and
 * snapshot frame: it catches torn writes and flipped bits, which is all the store asks of it.
 */
import * as zlib from 'node:zlib';

const TABLE = ((): Uint32Array => {
  const table = new Uint32Array(256);
  // Stryker disable next-line EqualityOperator: table[256] is past a 256-entry Uint32Array's end, where writes are dropped
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32InJs(bytes: Uint8Array, start: number, end: number): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// Node ≥ 20.15 computes the same checksum natively (zlib.crc32), several times faster: recovery
// checks every byte of the snapshot and the journals.
const native = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** The CRC-32 of `bytes[start, end)`. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  // A native call costs about as much as a few hundred bytes in JS: small records stay here.
  // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: zlib and the table give the same checksum (crc32.test checks both sides of the threshold); only the speed differs
  if (native && end - start > NATIVE_FROM_BYTES)
    // Stryker disable next-line ConditionalExpression: a subarray of the whole buffer is a view of the same bytes
    return native(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end)) >>> 0;
  return crc32InJs(bytes, start, end);
}

const NATIVE_FROM_BYTES = 512;

/** The table-driven implementation, for platforms without zlib.crc32 (and to test both agree). */
export const crc32Portable = (bytes: Uint8Array, start = 0, end = bytes.length): number => crc32InJs(bytes, start, end);

/** Continue a CRC-32 (`crc`, the checksum so far; 0 to start) over `bytes`: the checksum of a sequence written in parts. */
export function crc32Continue(crc: number, bytes: Uint8Array): number {
  let c = (crc ^ 0xffffffff) >>> 0;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
