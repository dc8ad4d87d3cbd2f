/**
 * Hash lookup by `_id` value for the `_id` index. Values of the common `_id` types map to a canonical
 * JS key, so equal BSON values meet in one Map slot: every number that a double holds exactly
 * (1, NumberInt(1), NumberLong(1), Decimal128("1.0"); 0 and -0, which a Map treats as one key; NaN),
 * strings (and symbols, which compare as strings) and dates, each kind in its own Map; ObjectIds, the
 * commonest `_id` by far, in their own table over the id's bits (`ObjectIdTable`).
 * Everything else (null, embedded documents, numbers no double holds, timestamps, …) has no hash key
 * and is left to the ordered tree: such a value can never equal a hashed one, because hashed kinds
 * cover their whole canonical rank except the inexact numbers.
 */
import type { Long, ObjectId } from 'bson';
import { compareNumbers, toDouble } from '../values/numbers';
import { bsonClassOf } from '../values/types';
import { ObjectIdTable, type Slotted } from './object-id-table';

const TWO_53 = 2 ** 53;

/** What `IdTable.get` answers for a value that has no hash key. */
export const UNHASHABLE: unique symbol = Symbol('unhashable');

/**
 * A stored record as the table sees it: `idSlot` is its home slot while the ObjectId table holds it,
 * IN_MAP while one of the Maps does (its key is then computed again from the `_id` on removal:
 * those ids are rare enough that a field on every record for them is not worth it), else -1.
 */
export type Keyed = Slotted;

const IN_MAP = -2;
const NOT_HELD = -1;

/** `slotOf`'s answer for an ObjectId: it goes to `objectIds`, not to a Map. */
const OBJECT_ID = 'objectId';

export class IdTable<R extends Keyed> {
  private readonly numbers = new Map<number, R>();
  private readonly dates = new Map<number, R>();
  private readonly strings = new Map<string, R>();
  private readonly objectIds: ObjectIdTable<R>;
  /** The key of the last `slotOf` call (kept outside a return object: this runs on every insert). */
  private key: number | string = 0;
  /**
   * The value and map of the last `probe`: a write checks its `_id` (probe) and then stores it (set).
   * Any other call forgets them, so a value changed between two operations is never looked up under
   * its old key. (The ObjectId table keeps its own probe.)
   */
  private probedValue: unknown = undefined;
  private probedMap: Map<number | string, R> | typeof OBJECT_ID | undefined;

  /** `idOf` gives a stored record's `_id` (the ObjectId table confirms its hash hits with it). */
  constructor(idOf: (record: R) => unknown) {
    this.objectIds = new ObjectIdTable<R>(idOf as (record: R) => ObjectId);
  }

  get size(): number {
    return this.numbers.size + this.dates.size + this.strings.size + this.objectIds.size;
  }

  /** The record under `value`'s key, `undefined` when absent, UNHASHABLE when `value` has no key. */
  get(value: unknown): R | undefined | typeof UNHASHABLE {
    const map = this.slotOf(value);
    if (map === OBJECT_ID) return this.objectIds.get(value as ObjectId);
    return map ? map.get(this.key) : UNHASHABLE;
  }

  /** `get` before a `set` of the same value (a write's uniqueness check). */
  probe(value: unknown): R | undefined | typeof UNHASHABLE {
    const map = this.slotOf(value);
    this.probedValue = value;
    this.probedMap = map;
    if (map === OBJECT_ID) return this.objectIds.get(value as ObjectId);
    return map ? map.get(this.key) : UNHASHABLE;
  }

  /**
   * Store `record` under `value`'s key and remember the key on the record; false (nothing stored)
   * when `value` has no hash key.
   */
  set(value: unknown, record: R): boolean {
    const map = value === this.probedValue && value !== undefined ? this.probedMap : this.slotOf(value);
    this.probedValue = undefined;
    if (!map) return false;
    if (map === OBJECT_ID) {
      this.objectIds.set(value as ObjectId, record);
      return true;
    }
    map.set(this.key, record);
    record.idSlot = IN_MAP;
    return true;
  }

  /**
   * Remove `record`, whose `_id` is `id`. An ObjectId leaves by the home slot the record remembers (a TTL
   * batch then touches neither the documents nor their ids); other ids by their key, computed again.
   * False when the record has no hash key.
   */
  remove(record: R, id: unknown): boolean {
    const slot = record.idSlot;
    if (slot >= 0) return this.objectIds.remove(record);
    if (slot !== IN_MAP) return false;
    record.idSlot = NOT_HELD;
    const map = this.slotOf(id);
    if (map && map !== OBJECT_ID && map.get(this.key) === record) map.delete(this.key);
    return true;
  }

  /**
   * Size for `count` ids. Only the ObjectId table has room to reserve, and it takes the hint only
   * once its first ObjectId arrives: a collection of numeric ids never pays for it.
   */
  expectRecords(count: number): void {
    this.objectIds.expect(count);
  }

  *values(): IterableIterator<R> {
    yield* this.numbers.values();
    yield* this.strings.values();
    yield* this.objectIds.values();
    yield* this.dates.values();
  }

  clear(): void {
    this.probedValue = undefined;
    this.numbers.clear();
    this.dates.clear();
    this.strings.clear();
    this.objectIds.clear();
  }

  private slotOf(value: unknown): Map<number | string, R> | typeof OBJECT_ID | undefined {
    this.probedValue = undefined;
    switch (typeof value) {
      case 'string':
        this.key = value;
        return this.strings;
      case 'number':
        this.key = value;
        return this.numbers;
      case 'object':
        break;
      default:
        return undefined;
    }
    if (value === null) return undefined;
    if (value instanceof Date) {
      this.key = value.getTime();
      return this.dates;
    }
    switch (bsonClassOf(value)) {
      case 'ObjectId':
        return OBJECT_ID;
      case 'Int32':
      case 'Double':
        this.key = (value as { value: number }).value;
        return this.numbers;
      case 'Long': {
        const n = (value as Long).toNumber();
        if (Math.abs(n) >= TWO_53 && compareNumbers(value, n) !== 0) return undefined;
        this.key = n;
        return this.numbers;
      }
      case 'Decimal128': {
        const d = toDouble(value);
        if (compareNumbers(value, d) !== 0) return undefined;
        this.key = d;
        return this.numbers;
      }
      case 'BSONSymbol':
        this.key = String((value as { value: unknown }).value);
        return this.strings;
    }
    return undefined;
  }
}
