/**
 * An open-addressing hash table from ObjectId to record, for the `_id` index's commonest key.
 *
 * Why not a `Map` keyed by a 12-character string: that costs a string object per document (32 bytes
 * the garbage collector walks on every major collection), a string hash per look-up, and a Map entry
 * besides. Here each slot holds the id's 32-bit hash in a typed array, beside a parallel array of
 * records; a look-up whose hash matches confirms the id against the record's own `_id` (bson 7 keeps
 * an ObjectId as four 24-bit words: they are compared, nothing is converted). An insert of a new id
 * almost never gets that far, so it reads no document; a hit reads the document its caller wants.
 *
 * Linear probing keeps a look-up in one or two cache lines; a delete shifts the following run back
 * (no tombstones, so a table that sees constant TTL churn never degrades), and the hash tells each
 * entry's home at any capacity, so neither the shift-back nor growing reads an id. Each record
 * remembers its home slot (`idSlot`) and a delete finds it in the run that starts there (linear
 * probing keeps every slot from an entry's home to the entry occupied): a delete touches neither
 * the document nor its `_id`, and moving an entry writes nothing to its record. (The table held the
 * ids' 16 bytes and each record its exact slot before: at 1M ids a TTL batch then spent ~30% of its
 * time on the shift-back's reads of that 32 MB array and its writes to moved records.)
 */
import type { ObjectId } from 'bson';

/** A record as the table sees it: `idSlot` is its home slot while the table holds it, -1 otherwise. */
export interface Slotted {
  idSlot: number;
}

const MIN_CAPACITY = 16;
/** Grow beyond this load: linear probing's miss cost (every insert is a miss first) climbs fast after it. */
const MAX_LOAD = 0.75;

export class ObjectIdTable<R extends Slotted> {
  /** Per slot: the hash of the id held there (its home is `hash & mask` at any capacity). */
  private hashes = new Int32Array(MIN_CAPACITY);
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

  /** `idOf` gives a stored record's id: a look-up whose hash matches confirms it there. */
  constructor(private readonly idOf: (record: R) => ObjectId) {}

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

  /** Store `record` under `id` (replacing whatever record had that id) and tell it its home slot. */
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
      this.hashes[slot] = hash(w0, w1, w2, w3);
      this.count++;
    }
    this.records[slot] = record;
    record.idSlot = this.hashes[slot] & this.mask;
    this.version++;
  }

  /** Remove `record`, found in the run from the home slot it remembers; false when the table does not hold it. */
  remove(record: R): boolean {
    const home = record.idSlot;
    if (home < 0 || home > this.mask) return false;
    const records = this.records;
    let slot = home;
    for (;;) {
      const r = records[slot];
      if (r === record) break;
      if (r === undefined) return false;
      slot = (slot + 1) & this.mask;
      if (slot === home) return false;
    }
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
    this.hashes = new Int32Array(MIN_CAPACITY);
    this.records = new Array<R | undefined>(MIN_CAPACITY).fill(undefined);
    this.mask = MIN_CAPACITY - 1;
    this.count = 0;
    this.version++;
    this.probedId = undefined;
  }

  /** The slot holding `id`, or the empty slot where it would go. */
  private find(id: ObjectId): number {
    loadWords(id);
    const a = w0,
      b = w1,
      c = w2,
      d = w3;
    const h = hash(a, b, c, d);
    const hashes = this.hashes;
    const records = this.records;
    const mask = this.mask;
    let slot = h & mask;
    for (;;) {
      const r = records[slot];
      if (r === undefined) return slot;
      if (hashes[slot] === h && hasWords(this.idOf(r), a, b, c, d)) return slot;
      slot = (slot + 1) & mask;
    }
  }

  /**
   * Empty `slot` and pull back each later entry of its run that may sit there (its home is not in
   * the cyclic range (slot, its position]), so every entry stays reachable from its home.
   */
  private shiftBack(slot: number): void {
    const hashes = this.hashes;
    const records = this.records;
    const mask = this.mask;
    let hole = slot;
    let next = (hole + 1) & mask;
    for (;;) {
      const r = records[next];
      if (r === undefined) break;
      const h = hashes[next];
      const home = h & mask;
      // Movable when home lies cyclically outside (hole, next].
      if (hole <= next ? home <= hole || home > next : home <= hole && home > next) {
        hashes[hole] = h;
        records[hole] = r;
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
    const oldHashes = this.hashes;
    const oldRecords = this.records;
    this.hashes = new Int32Array(capacity);
    this.records = new Array<R | undefined>(capacity).fill(undefined);
    this.mask = capacity - 1;
    const hashes = this.hashes;
    const records = this.records;
    const mask = this.mask;
    for (let i = 0; i < oldRecords.length; i++) {
      const r = oldRecords[i];
      if (r === undefined) continue;
      const h = oldHashes[i];
      const home = h & mask;
      let slot = home;
      while (records[slot] !== undefined) slot = (slot + 1) & mask;
      hashes[slot] = h;
      records[slot] = r;
      r.idSlot = home;
    }
    this.version++;
  }
}

/** The hash of `id` (tests build colliding ids and long runs with it). */
export function objectIdHash(id: ObjectId): number {
  loadWords(id);
  return hash(w0, w1, w2, w3);
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

/** Whether `id`'s words are a, b, c, d (the module's words are the caller's: left untouched). */
function hasWords(id: ObjectId, a: number, b: number, c: number, d: number): boolean {
  const o = id as unknown as { i0?: number; i1: number; i2: number; i3: number };
  if (typeof o.i0 === 'number') return o.i3 === d && o.i2 === c && o.i1 === b && o.i0 === a;
  const x = id.id;
  return (
    ((x[9] << 16) | (x[10] << 8) | x[11]) === d &&
    ((x[6] << 16) | (x[7] << 8) | x[8]) === c &&
    ((x[3] << 16) | (x[4] << 8) | x[5]) === b &&
    ((x[0] << 16) | (x[1] << 8) | x[2]) === a
  );
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
