/**
 * An open-addressing hash table from ObjectId to record, for the `_id` index's commonest key.
 *
 * Why not a `Map` keyed by a 12-character string: that costs a string object per document (32 bytes
 * the garbage collector walks on every major collection), a string hash per look-up, and a Map entry
 * besides. Here the id's 96 bits live in a typed array as four 24-bit words (bson 7 keeps an
 * ObjectId as exactly these words: nothing is converted), beside a parallel array of records.
 * Linear probing keeps a look-up in one or two cache lines; a delete shifts the following run back
 * (no tombstones, so a table that sees constant TTL churn never degrades). Each record remembers its
 * slot (`idSlot`), so a delete touches neither the document nor its `_id`.
 */
import type { ObjectId } from 'bson';

/** A record as the table sees it: `idSlot` is its slot while the table holds it, -1 otherwise. */
export interface Slotted {
  idSlot: number;
}

const MIN_CAPACITY = 16;
/** Grow beyond this load: linear probing's miss cost (every insert is a miss first) climbs fast after it. */
const MAX_LOAD = 0.75;

export class ObjectIdTable<R extends Slotted> {
  /** Four words per slot: the id's bytes 0–2, 3–5, 6–8, 9–11. */
  private words = new Int32Array(MIN_CAPACITY * 4);
  private records: Array<R | undefined> = new Array<R | undefined>(MIN_CAPACITY).fill(undefined);
  private mask = MIN_CAPACITY - 1;
  private count = 0;
  /**
   * A write probes its `_id` (uniqueness) and then stores it: the probe's slot is kept with the
   * table's version, and a store of the same id object at the same version lands there directly.
   */
  private version = 0;
  private probedId: ObjectId | undefined;
  private probedSlot = -1;
  private probedVersion = -1;
  /** A size announced by `expect`, reserved on the first store. */
  private expected = 0;

  get size(): number {
    return this.count;
  }

  /** Room for `count` ids, made when the table holds its first id (see IdTable.expectRecords). */
  expect(count: number): void {
    this.expected = count;
    if (this.count > 0) this.reserve();
  }

  /** The record stored under `id`'s value. */
  get(id: ObjectId): R | undefined {
    const slot = this.find(id);
    this.probedId = id;
    this.probedSlot = slot;
    this.probedVersion = this.version;
    return this.records[slot];
  }

  /** Store `record` under `id` (replacing whatever record had that id) and tell it its slot. */
  set(id: ObjectId, record: R): void {
    // Growing changes the version, so a probe taken before it is not trusted.
    if (this.expected > 0) this.reserve();
    if (this.count + 1 > this.records.length * MAX_LOAD) this.grow();
    const slot = id === this.probedId && this.probedVersion === this.version ? this.probedSlot : this.find(id);
    this.probedId = undefined;
    const old = this.records[slot];
    if (old !== undefined) {
      if (old !== record) old.idSlot = -1;
    } else {
      loadWords(id);
      const w = slot * 4;
      this.words[w] = w0;
      this.words[w + 1] = w1;
      this.words[w + 2] = w2;
      this.words[w + 3] = w3;
      this.count++;
    }
    this.records[slot] = record;
    record.idSlot = slot;
    this.version++;
  }

  /** Remove `record` from the slot it remembers; false when the table does not hold it there. */
  remove(record: R): boolean {
    const slot = record.idSlot;
    if (slot < 0 || this.records[slot] !== record) return false;
    record.idSlot = -1;
    this.count--;
    this.version++;
    this.shiftBack(slot);
    return true;
  }

  *values(): IterableIterator<R> {
    for (const r of this.records) if (r !== undefined) yield r;
  }

  clear(): void {
    for (const r of this.records) if (r !== undefined) r.idSlot = -1;
    this.words = new Int32Array(MIN_CAPACITY * 4);
    this.records = new Array<R | undefined>(MIN_CAPACITY).fill(undefined);
    this.mask = MIN_CAPACITY - 1;
    this.count = 0;
    this.version++;
    this.probedId = undefined;
  }

  /** The slot holding `id`, or the empty slot where it would go. */
  private find(id: ObjectId): number {
    loadWords(id);
    const a = w0, b = w1, c = w2, d = w3;
    const words = this.words;
    const records = this.records;
    const mask = this.mask;
    let slot = hash(a, b, c, d) & mask;
    for (;;) {
      if (records[slot] === undefined) return slot;
      const w = slot * 4;
      if (words[w + 3] === d && words[w + 2] === c && words[w + 1] === b && words[w] === a) return slot;
      slot = (slot + 1) & mask;
    }
  }

  /**
   * Empty `slot` and pull back each later entry of its run that may sit there (its home is not in
   * the cyclic range (slot, its position]), so every entry stays reachable from its home.
   */
  private shiftBack(slot: number): void {
    const words = this.words;
    const records = this.records;
    const mask = this.mask;
    let hole = slot;
    let next = (hole + 1) & mask;
    for (;;) {
      const r = records[next];
      if (r === undefined) break;
      const w = next * 4;
      const home = hash(words[w], words[w + 1], words[w + 2], words[w + 3]) & mask;
      // Movable when home lies cyclically outside (hole, next].
      if (hole <= next ? home <= hole || home > next : home <= hole && home > next) {
        const h = hole * 4;
        words[h] = words[w];
        words[h + 1] = words[w + 1];
        words[h + 2] = words[w + 2];
        words[h + 3] = words[w + 3];
        records[hole] = r;
        r.idSlot = hole;
        hole = next;
      }
      next = (next + 1) & mask;
    }
    records[hole] = undefined;
  }

  private reserve(): void {
    let capacity = this.records.length;
    while (this.expected > capacity * MAX_LOAD) capacity *= 2;
    this.expected = 0;
    if (capacity > this.records.length) this.grow(capacity);
  }

  private grow(capacity = this.records.length * 2): void {
    const oldWords = this.words;
    const oldRecords = this.records;
    this.words = new Int32Array(capacity * 4);
    this.records = new Array<R | undefined>(capacity).fill(undefined);
    this.mask = capacity - 1;
    const words = this.words;
    const records = this.records;
    const mask = this.mask;
    for (let i = 0; i < oldRecords.length; i++) {
      const r = oldRecords[i];
      if (r === undefined) continue;
      const w = i * 4;
      const a = oldWords[w], b = oldWords[w + 1], c = oldWords[w + 2], d = oldWords[w + 3];
      let slot = hash(a, b, c, d) & mask;
      while (records[slot] !== undefined) slot = (slot + 1) & mask;
      const n = slot * 4;
      words[n] = a;
      words[n + 1] = b;
      words[n + 2] = c;
      words[n + 3] = d;
      records[slot] = r;
      r.idSlot = slot;
    }
    this.version++;
  }
}

/** The words of the id `loadWords` last read: module state, so no array is made per look-up. */
let w0 = 0;
let w1 = 0;
let w2 = 0;
let w3 = 0;

/** Read the id's four 24-bit words: bson 7's own fields, or computed from its bytes. */
function loadWords(id: ObjectId): void {
  const o = id as unknown as { i0?: number; i1: number; i2: number; i3: number };
  if (typeof o.i0 === 'number') {
    w0 = o.i0;
    w1 = o.i1;
    w2 = o.i2;
    w3 = o.i3;
    return;
  }
  const b = id.id;
  w0 = (b[0] << 16) | (b[1] << 8) | b[2];
  w1 = (b[3] << 16) | (b[4] << 8) | b[5];
  w2 = (b[6] << 16) | (b[7] << 8) | b[8];
  w3 = (b[9] << 16) | (b[10] << 8) | b[11];
}

/**
 * 32 bits from 96: a multiply-add over the words, then murmur3's finaliser so that ids differing
 * only in the counter's low bits (consecutive ids from one process) spread over the whole table.
 */
function hash(a: number, b: number, c: number, d: number): number {
  let h = (Math.imul(a, 0x9e3779b1) + Math.imul(b, 0x85ebca77) + Math.imul(c, 0xc2b2ae3d) + d) | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}
