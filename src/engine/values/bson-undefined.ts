/**
 * BSON's deprecated `undefined` (type 6) as the engine stores it. The engine reads a JS `undefined`
 * as "no such field" everywhere (and stores it as null, as the Node driver and mongosh send it), so
 * a stored type-6 value needs a value of its own: this one frozen marker. The `bson` package has no
 * class for it (it decodes type 6 to a JS `undefined` and never encodes it).
 *
 * Only clients that really send type 6 produce it (the legacy `mongo` shell does); mongod 8.0 then
 * keeps it apart from null: `{a: null}` no longer matches it, `$type: "undefined"` does, it sorts
 * below null (canonical rank 0), and it cannot be an `_id` or a query operand.
 *
 * `toBSON` answers null, so wherever the value is encoded with the `bson` package (the journal,
 * the wire) it is written as null: that package cannot write type 6, would throw on an unknown
 * `_bsontype`, and by default drops a field holding a JS undefined.
 */
export interface BsonUndefined {
  readonly _bsontype: 'Undefined';
  toBSON(): null;
}

export const BSON_UNDEFINED: BsonUndefined = Object.freeze({
  _bsontype: 'Undefined' as const,
  toBSON: () => null,
  toString: () => 'undefined',
});

export function isBsonUndefined(value: unknown): value is BsonUndefined {
  return value === BSON_UNDEFINED;
}
