/**
 * The order of a batch of index entries, for building an index in one pass (see bulk-load.ts).
 *
 * The common indexes — TTL dates, numeric ranges — have one field whose entries all hold a number
 * of one canonical rank. Their order is a stable LSD radix sort of the values' IEEE-754 bits (four
 * 16-bit digits, a digit skipped when every value shares it), about 20x faster than sorting with
 * the entry comparator on a million entries. Stability is what keeps equal values in rid order:
 * entries come in rid order. Everything else sorts with the comparator.
 */
import type { EntryKey } from './key-order';

const DIGIT = 1 << 16;

/**
 * A permutation putting `entries` in index order. `entries` come in rid order; `cmp` is the index's
 * entry comparator, `direction` its single field's direction when it has one field.
 */
export function entryOrder(
  entries: readonly EntryKey[],
  cmp: (a: EntryKey, b: EntryKey) => number,
  direction: 1 | -1 | undefined,
): Uint32Array {
  const n = entries.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  if (n < 2) return order;
  const keys = direction === undefined ? undefined : sortableBits(entries, direction);
  if (keys) return radixOrder(keys.hi, keys.lo, order);
  // Array sort is stable; ties cannot happen between distinct entries (the rid is part of them).
  return Uint32Array.from(Array.from(order).sort((a, b) => cmp(entries[a], entries[b])));
}

/**
 * Each entry's value as an unsigned 64-bit key (hi, lo) ordered like the values in `direction`, or
 * undefined when the entries are not all numbers of one rank. The usual mapping: flip every bit of
 * a negative double, only the sign bit of a positive one; -0 counts as 0, as the comparator has it.
 */
function sortableBits(
  entries: readonly EntryKey[],
  direction: 1 | -1,
): { hi: Uint32Array; lo: Uint32Array } | undefined {
  const n = entries.length;
  const rank = entries[0][0];
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  const f = new Float64Array(1);
  const u = new Uint32Array(f.buffer);
  // Little- or big-endian platforms alike: find which half holds the sign.
  f[0] = -1;
  const H = u[1] >>> 31 === 1 ? 1 : 0;
  const L = 1 - H;
  for (let i = 0; i < n; i++) {
    const e = entries[i];
    const v = e[1];
    if (e[0] !== rank || typeof v !== 'number' || v !== v) return undefined;
    f[0] = direction === 1 ? v + 0 : -v + 0; // + 0 turns -0 into 0
    let h = u[H];
    let l = u[L];
    if (h >>> 31) {
      h = ~h >>> 0;
      l = ~l >>> 0;
    } else {
      h = (h | 0x80000000) >>> 0;
    }
    hi[i] = h;
    lo[i] = l;
  }
  return { hi, lo };
}

function radixOrder(hi: Uint32Array, lo: Uint32Array, order: Uint32Array): Uint32Array {
  const n = order.length;
  let from: Uint32Array = order;
  let to: Uint32Array = new Uint32Array(n);
  const counts = new Uint32Array(DIGIT);
  for (const [words, shift] of [
    [lo, 0],
    [lo, 16],
    [hi, 0],
    [hi, 16],
  ] as const) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[(words[i] >>> shift) & 0xffff]++;
    // Every value shares this digit: the pass would not move anything.
    if (counts[(words[0] >>> shift) & 0xffff] === n) continue;
    let sum = 0;
    for (let d = 0; d < DIGIT; d++) {
      const c = counts[d];
      counts[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const at = from[i];
      to[counts[(words[at] >>> shift) & 0xffff]++] = at;
    }
    const t = from;
    from = to;
    to = t;
  }
  return from;
}
