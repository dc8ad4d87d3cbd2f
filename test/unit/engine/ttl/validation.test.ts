/**
 * The pure TTL rule functions of src/engine/ttl/validation.ts, rule by rule (docs/ttl-rules.md
 * §1.1–1.4, 1.6, 1.9, 3.1, 3.2, 4.2, 5.3). No engine, no clock: only values in, checks out.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal128, Double, Int32, Long, ObjectId, Timestamp } from 'bson';

import {
  checkClusteredExpireAfterSeconds,
  checkCollModIndexExpireAfterSeconds,
  checkIndexExpireAfterSeconds,
  checkTTLIndexSpec,
  effectiveExpireAfterSeconds,
  isTTLIndexSpec,
  listedExpireAfterSeconds,
  safeNumberInt,
  safeNumberLong,
  ttlKeyIsUsable,
  type TTLCollectionFacts,
} from '../../../../src/engine/ttl/validation';
import { expectError } from '../../helpers/expect-error';

// ---- helpers ----------------------------------------------------------------------------------

const NUMERIC_MSG = /TTL index 'expireAfterSeconds' option must be numeric, but received a type of '([a-zA-Z]+)'/;
const NAN_MSG = /TTL index 'expireAfterSeconds' option must not be NaN/;
const RANGE_MSG_80 = /TTL index 'expireAfterSeconds' must be within the range of a 32-bit integer/;
const RANGE_MSG_70 = /TTL index 'expireAfterSeconds' option must be within an acceptable range, try a lower number/;
const NEGATIVE_MSG = /TTL index 'expireAfterSeconds' option cannot be less than 0/;

const JAN_2026 = Date.UTC(2026, 0, 1);

function facts(over: Partial<TTLCollectionFacts> = {}): TTLCollectionFacts {
  return { capped: false, clustered: false, serverVersion: '8.0', ...over };
}

// ---- 1.1 ---------------------------------------------------------------------------------------

describe('ttl validation: rule 1.1 (presence makes a TTL index)', () => {
  it('rule 1.1: a spec with a top-level expireAfterSeconds option is a TTL index', () => {
    assert.equal(isTTLIndexSpec({ key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 }), true);
  });

  it('rule 1.1: presence counts whatever the value (0, a string, null)', () => {
    assert.equal(isTTLIndexSpec({ key: { t: 1 }, expireAfterSeconds: 0 }), true);
    assert.equal(isTTLIndexSpec({ key: { t: 1 }, expireAfterSeconds: 'abc' }), true);
    assert.equal(isTTLIndexSpec({ key: { t: 1 }, expireAfterSeconds: null }), true);
  });

  it('rule 1.1: a key field named expireAfterSeconds is not a TTL option', () => {
    assert.equal(isTTLIndexSpec({ key: { x: 1, expireAfterSeconds: 1 }, name: 'x_1_expireAfterSeconds_1' }), false);
    assert.equal(isTTLIndexSpec({ key: { expireAfterSeconds: 1 }, name: 'expireAfterSeconds_1' }), false);
  });

  it('rule 1.1: a spec without the option is not TTL', () => {
    assert.equal(isTTLIndexSpec({ key: { t: 1 }, name: 't_1' }), false);
  });
});

// ---- 1.2 ---------------------------------------------------------------------------------------

describe('ttl validation: rule 1.2 (accepted BSON types)', () => {
  for (const [label, value, expected] of [
    ['int32', new Int32(3600), 3600],
    ['int64 (Long)', Long.fromNumber(3600), 3600],
    ['double (JS number)', 3600, 3600],
    ['double (bson Double)', new Double(3600), 3600],
    ['decimal128', Decimal128.fromString('3600'), 3600],
  ] as Array<[string, unknown, number]>) {
    it(`rule 1.2: ${label} is accepted`, () => {
      assert.equal(checkIndexExpireAfterSeconds(value).seconds, expected);
    });
  }

  for (const [label, value, typeName] of [
    ['string', '3600', 'string'],
    ['bool', true, 'bool'],
    ['null', null, 'null'],
    ['object', { s: 1 }, 'object'],
    ['array', [3600], 'array'],
    ['date', new Date(0), 'date'],
    ['ObjectId', new ObjectId(), 'objectId'],
    ['Timestamp', new Timestamp({ t: 1, i: 1 }), 'timestamp'],
  ] as Array<[string, unknown, string]>) {
    it(`rule 1.2: ${label} is refused with 67 CannotCreateIndex`, () => {
      const err = expectError(() => checkIndexExpireAfterSeconds(value), 67, NUMERIC_MSG, 'CannotCreateIndex');
      assert.equal(NUMERIC_MSG.exec(err.message)![1], typeName);
    });
  }

  it('rule 1.2: the message carries the index spec as context', () => {
    const spec = { key: { t: 1 }, name: 't_1', expireAfterSeconds: 'abc' };
    expectError(() => checkIndexExpireAfterSeconds('abc', '8.0', spec), 67, /Index spec: .*t_1/);
  });

  it('rule 1.2: without an index spec the message ends with what to do, with no context after it', () => {
    const err = expectError(() => checkIndexExpireAfterSeconds('abc'), 67, NUMERIC_MSG);
    assert.match(err.message, /e\.g\. expireAfterSeconds: 3600\.$/);
  });

  it('rule 1.2: 7.0 refuses non-numeric values the same way', () => {
    expectError(() => checkIndexExpireAfterSeconds('3600', '7.0'), 67, NUMERIC_MSG);
  });
});

// ---- 1.3 ---------------------------------------------------------------------------------------

describe('ttl validation: rule 1.3 (NaN)', () => {
  it('rule 1.3: double NaN is refused with 67', () => {
    expectError(() => checkIndexExpireAfterSeconds(NaN), 67, NAN_MSG, 'CannotCreateIndex');
  });

  it('rule 1.3: bson Double NaN is refused with 67', () => {
    expectError(() => checkIndexExpireAfterSeconds(new Double(NaN)), 67, NAN_MSG);
  });

  it('rule 1.3: decimal NaN is refused with 67', () => {
    expectError(() => checkIndexExpireAfterSeconds(Decimal128.fromString('NaN')), 67, NAN_MSG);
  });

  it('rule 1.3: decimal -NaN is refused with 67', () => {
    expectError(() => checkIndexExpireAfterSeconds(Decimal128.fromString('-NaN')), 67, NAN_MSG);
  });

  it('rule 1.3: NaN is refused in 7.0 too', () => {
    expectError(() => checkIndexExpireAfterSeconds(NaN, '7.0'), 67, NAN_MSG);
    expectError(() => checkIndexExpireAfterSeconds(Decimal128.fromString('NaN'), '7.0'), 67, NAN_MSG);
  });
});

// ---- 1.4 ---------------------------------------------------------------------------------------

describe('ttl validation: rule 1.4 (range and truncation)', () => {
  it('rule 1.4: 0 is valid', () => {
    assert.equal(checkIndexExpireAfterSeconds(0).seconds, 0);
    assert.equal(checkIndexExpireAfterSeconds(new Int32(0)).seconds, 0);
  });

  it('rule 1.4: 2147483647 (int32 max) is valid', () => {
    assert.equal(checkIndexExpireAfterSeconds(2147483647).seconds, 2147483647);
    assert.equal(checkIndexExpireAfterSeconds(Long.fromNumber(2147483647)).seconds, 2147483647);
  });

  it('rule 1.4: 2147483648 is refused with 67', () => {
    expectError(() => checkIndexExpireAfterSeconds(2147483648), 67, RANGE_MSG_80, 'CannotCreateIndex');
  });

  it('rule 1.4: Long 2147483648 is refused with 67', () => {
    expectError(() => checkIndexExpireAfterSeconds(Long.fromString('2147483648')), 67, RANGE_MSG_80);
  });

  it('rule 1.4: 9223372036854775808 is refused with 67', () => {
    expectError(() => checkIndexExpireAfterSeconds(9223372036854775808), 67, RANGE_MSG_80);
  });

  it('rule 1.4: Long max (9223372036854775807) is refused with 67', () => {
    expectError(() => checkIndexExpireAfterSeconds(Long.MAX_VALUE), 67, RANGE_MSG_80);
  });

  it('rule 1.4: 999999999999999 is refused with 67', () => {
    expectError(() => checkIndexExpireAfterSeconds(999999999999999), 67, RANGE_MSG_80);
  });

  it('rule 1.4: Infinity is refused with 67 (clamps to 2^63, beyond int32)', () => {
    expectError(() => checkIndexExpireAfterSeconds(Infinity), 67, RANGE_MSG_80);
    expectError(() => checkIndexExpireAfterSeconds(-Infinity), 67);
  });

  it('rule 1.4: 7.0 uses the older "acceptable range" wording for out-of-range values', () => {
    expectError(() => checkIndexExpireAfterSeconds(2147483648, '7.0'), 67, RANGE_MSG_70, 'CannotCreateIndex');
  });

  it('rule 1.4: -1 is refused with 67 (cannot be less than 0)', () => {
    expectError(() => checkIndexExpireAfterSeconds(-1), 67, NEGATIVE_MSG, 'CannotCreateIndex');
    expectError(() => checkIndexExpireAfterSeconds(new Int32(-1)), 67, NEGATIVE_MSG);
    expectError(() => checkIndexExpireAfterSeconds(Long.fromNumber(-1)), 67, NEGATIVE_MSG);
  });

  it('rule 1.4: -2147483649 fails the range check first (it does not fit in int32)', () => {
    expectError(() => checkIndexExpireAfterSeconds(-2147483649), 67, RANGE_MSG_80);
  });

  it('rule 1.4: -0.5 truncates to 0 and is accepted', () => {
    assert.equal(checkIndexExpireAfterSeconds(-0.5).seconds, 0);
  });

  it('rule 1.4: -0.999 truncates to 0 and is accepted; -1.5 truncates to -1 and is refused', () => {
    assert.equal(checkIndexExpireAfterSeconds(-0.999).seconds, 0);
    expectError(() => checkIndexExpireAfterSeconds(-1.5), 67, NEGATIVE_MSG);
  });

  it('rule 1.4: 2147483647.9 is accepted as 2147483647', () => {
    assert.equal(checkIndexExpireAfterSeconds(2147483647.9).seconds, 2147483647);
  });

  it('rule 1.4: 10000.7 is stored as 10000 in 8.0 and as given in 7.0', () => {
    const v8 = checkIndexExpireAfterSeconds(10000.7, '8.0');
    assert.equal(v8.seconds, 10000);
    assert.ok(v8.stored instanceof Int32, '8.0 stores the truncated value as an Int32');
    assert.equal(v8.stored.value, 10000);
    const v7 = checkIndexExpireAfterSeconds(10000.7, '7.0');
    assert.equal(v7.seconds, 10000, 'the observable expiry is the same in 7.0');
    assert.equal(v7.stored, 10000.7, '7.0 keeps the double as given');
  });

  it('rule 1.4: 8.0 stores integral values of any numeric type as Int32', () => {
    for (const v of [3600, new Int32(3600), Long.fromNumber(3600), Decimal128.fromString('3600')]) {
      const r = checkIndexExpireAfterSeconds(v, '8.0');
      assert.ok(r.stored instanceof Int32);
      assert.equal(r.stored.value, 3600);
    }
  });

  it('rule 1.4: Long values in range are accepted', () => {
    assert.equal(checkIndexExpireAfterSeconds(Long.fromNumber(86400)).seconds, 86400);
  });

  it('rule 1.4: a value larger than the seconds since the epoch is fine for a secondary index', () => {
    const nowPlus = Math.floor(JAN_2026 / 1000) + 1000;
    assert.equal(checkIndexExpireAfterSeconds(nowPlus).seconds, nowPlus);
  });

  it('rule 1.4: decimal numbers behave like doubles (truncate 10000.7 → 10000, spec confidence low)', () => {
    assert.equal(checkIndexExpireAfterSeconds(Decimal128.fromString('10000.7')).seconds, 10000);
  });

  it('rule 1.4: decimal 2147483648 and decimal -1 are refused with 67', () => {
    expectError(() => checkIndexExpireAfterSeconds(Decimal128.fromString('2147483648')), 67, RANGE_MSG_80);
    expectError(() => checkIndexExpireAfterSeconds(Decimal128.fromString('-1')), 67, NEGATIVE_MSG);
  });

  it('rule 1.4: decimal 1E+30 is refused with 67 (range)', () => {
    expectError(() => checkIndexExpireAfterSeconds(Decimal128.fromString('1E+30')), 67, RANGE_MSG_80);
  });

  it('rule 1.4: safeNumberLong: NaN → 0, truncation toward zero, clamping', () => {
    assert.equal(safeNumberLong(NaN), 0);
    assert.equal(safeNumberLong(1.9), 1);
    assert.equal(safeNumberLong(-1.9), -1);
    assert.equal(safeNumberLong(1e30), 2 ** 63);
    assert.equal(safeNumberLong(-1e30), -(2 ** 63));
    assert.equal(safeNumberLong(Long.fromNumber(42)), 42);
  });

  it('rule 1.4: safeNumberInt clamps to int32', () => {
    assert.equal(safeNumberInt(2147483648), 2147483647);
    assert.equal(safeNumberInt(-2147483649), -2147483648);
    assert.equal(safeNumberInt(NaN), 0);
    assert.equal(safeNumberInt(7.9), 7);
  });
});

// ---- 1.5 / 1.6 / 1.8 / 1.9 through checkTTLIndexSpec --------------------------------------------

describe('ttl validation: rules 1.6, 1.8, 1.9 (whole TTL specs)', () => {
  it('rule 1.6: a compound key with EAS is refused with 67 even when EAS is valid', () => {
    expectError(
      () => checkTTLIndexSpec({ key: { a: 1, b: 1 }, name: 'a_1_b_1', expireAfterSeconds: 10 }, facts()),
      67,
      /TTL indexes are single-field indexes, compound indexes do not support TTL/,
      'CannotCreateIndex',
    );
  });

  it('rule 1.6: a single-field key passes', () => {
    assert.equal(checkTTLIndexSpec({ key: { a: 1 }, name: 'a_1', expireAfterSeconds: 10 }, facts()).seconds, 10);
    assert.equal(
      checkTTLIndexSpec({ key: { 'a.b': -1 }, name: 'a.b_-1', expireAfterSeconds: 10 }, facts()).seconds,
      10,
    );
  });

  it('rule 1.9: wildcard {"$**": 1} with EAS is refused with 67', () => {
    expectError(
      () => checkTTLIndexSpec({ key: { '$**': 1 }, name: '$**_1', expireAfterSeconds: 10 }, facts()),
      67,
      /Index type 'wildcard' does not support the 'expireAfterSeconds' option/,
    );
  });

  it('rule 1.9: wildcard {"a.$**": 1} with EAS is refused with 67 ("cannot make a TTL index")', () => {
    expectError(
      () => checkTTLIndexSpec({ key: { 'a.$**': 1 }, name: 'a.$**_1', expireAfterSeconds: 10 }, facts()),
      67,
      /cannot make a TTL index/,
    );
  });

  it('rule 1.6 before 1.9: a compound key with a wildcard part and EAS is refused as compound (67)', () => {
    const err = expectError(
      () => checkTTLIndexSpec({ key: { 'a.$**': 1, t: 1 }, name: 'a.$**_1_t_1', expireAfterSeconds: 10 }, facts()),
      67,
      /TTL indexes are single-field indexes, compound indexes do not support TTL/,
    );
    assert.doesNotMatch(err.message, /wildcard/);
    assert.match(
      err.message,
      /create \{t: 1\} with expireAfterSeconds/,
      'the wildcard part is never offered as the TTL field',
    );
  });

  it('rule 1.6: a compound key of wildcard parts only is refused without offering any of them as the TTL field', () => {
    const err = expectError(
      () => checkTTLIndexSpec({ key: { 'a.$**': 1, 'b.$**': 1 }, name: 'ab', expireAfterSeconds: 10 }, facts()),
      67,
      /compound indexes do not support TTL/,
    );
    assert.match(
      err.message,
      /: create a single-field index on the date field with expireAfterSeconds, and the compound/,
    );
  });

  it('rule 1.9: hashed, 2dsphere, 2d and text single-field TTL specs pass validation', () => {
    for (const dir of ['hashed', '2dsphere', '2d', 'text']) {
      assert.equal(
        checkTTLIndexSpec({ key: { a: dir }, name: `a_${dir}`, expireAfterSeconds: 10 }, facts()).seconds,
        10,
      );
    }
  });

  it('rule 1.8: 8.0 accepts a TTL index on a capped collection', () => {
    assert.equal(
      checkTTLIndexSpec({ key: { a: 1 }, name: 'a_1', expireAfterSeconds: 5 }, facts({ capped: true })).seconds,
      5,
    );
  });

  it('rule 1.8: 7.0 refuses a TTL index on a capped collection with 67', () => {
    expectError(
      () =>
        checkTTLIndexSpec(
          { key: { a: 1 }, name: 'a_1', expireAfterSeconds: 5 },
          facts({ capped: true, serverVersion: '7.0' }),
        ),
      67,
      /Cannot create TTL index on a capped collection/,
    );
  });

  it('rule 1.8: capped + clustered is refused with 6049202 in both versions', () => {
    for (const serverVersion of ['8.0', '7.0'] as const) {
      expectError(
        () =>
          checkTTLIndexSpec(
            { key: { a: 1 }, name: 'a_1', expireAfterSeconds: 5 },
            facts({ capped: true, clustered: true, serverVersion }),
          ),
        6049202,
        /TTL secondary indexes are not allowed on a capped clustered collection/,
      );
    }
  });

  it('rule 1.5: capped+clustered (6049202) is checked before the EAS value', () => {
    expectError(
      () =>
        checkTTLIndexSpec(
          { key: { a: 1 }, name: 'a_1', expireAfterSeconds: 'abc' },
          facts({ capped: true, clustered: true }),
        ),
      6049202,
    );
  });

  it('rule 1.5: a bad EAS on a compound key is still 67', () => {
    expectError(
      () => checkTTLIndexSpec({ key: { a: 1, b: 1 }, name: 'a_1_b_1', expireAfterSeconds: 'x' }, facts()),
      67,
    );
  });

  it('rule 1.11: a clustered (not capped) collection accepts a secondary TTL index', () => {
    assert.equal(
      checkTTLIndexSpec({ key: { a: 1 }, name: 'a_1', expireAfterSeconds: 5 }, facts({ clustered: true })).seconds,
      5,
    );
  });
});

describe('ttl validation: rule 1.9 / 7.6 (which keys the monitor can use)', () => {
  it('rule 1.9: an ascending or descending single btree field is usable', () => {
    assert.deepEqual(ttlKeyIsUsable({ t: 1 }), { usable: true });
    assert.deepEqual(ttlKeyIsUsable({ t: -1 }), { usable: true });
  });

  it('rule 1.9: hashed, 2dsphere and 2d are never used (log 22541)', () => {
    for (const dir of ['hashed', '2dsphere', '2d']) {
      const r = ttlKeyIsUsable({ t: dir });
      assert.equal(r.usable, false, dir);
      if (!r.usable) assert.equal(r.logId, 22541, dir);
    }
  });

  it('rule 1.9: text is never used (stored key has 2 fields, log 22540)', () => {
    const r = ttlKeyIsUsable({ t: 'text' });
    assert.equal(r.usable, false);
    if (!r.usable) assert.equal(r.logId, 22540);
  });

  it('rule 7.6: a compound key is never used (log 22540)', () => {
    const r = ttlKeyIsUsable({ a: 1, b: 1 });
    assert.equal(r.usable, false);
    if (!r.usable) assert.equal(r.logId, 22540);
  });
});

// ---- 3.1 / 3.2 ---------------------------------------------------------------------------------

describe('ttl validation: rules 3.1–3.2 (collMod index.expireAfterSeconds)', () => {
  it('rule 3.1: int32, Long, double and decimal are accepted', () => {
    assert.equal(checkCollModIndexExpireAfterSeconds(new Int32(100)), 100);
    assert.equal(checkCollModIndexExpireAfterSeconds(Long.fromNumber(100)), 100);
    assert.equal(checkCollModIndexExpireAfterSeconds(100), 100);
    assert.equal(checkCollModIndexExpireAfterSeconds(Decimal128.fromString('100')), 100);
  });

  for (const [label, value] of [
    ['string "100"', '100'],
    ['bool', true],
    ['object', { s: 100 }],
    ['array', [100]],
    ['date', new Date(100)],
  ] as Array<[string, unknown]>) {
    it(`rule 3.1: ${label} is refused with 14 TypeMismatch`, () => {
      expectError(() => checkCollModIndexExpireAfterSeconds(value), 14, undefined, 'TypeMismatch');
    });
  }

  it('rule 3.1: NaN is treated as 0', () => {
    assert.equal(checkCollModIndexExpireAfterSeconds(NaN), 0);
    assert.equal(checkCollModIndexExpireAfterSeconds(Decimal128.fromString('NaN')), 0);
  });

  it('rule 3.1: 2147483648 silently becomes 2147483647', () => {
    assert.equal(checkCollModIndexExpireAfterSeconds(2147483648), 2147483647);
    assert.equal(checkCollModIndexExpireAfterSeconds(Long.fromString('9223372036854775807')), 2147483647);
  });

  it('rule 3.1: 1.9 becomes 1', () => {
    assert.equal(checkCollModIndexExpireAfterSeconds(1.9), 1);
  });

  it('rule 3.1: -0.5 truncates to 0 and is accepted', () => {
    assert.equal(checkCollModIndexExpireAfterSeconds(-0.5), 0);
  });

  it('rule 3.2: a negative value is refused with 72 InvalidOptions', () => {
    expectError(() => checkCollModIndexExpireAfterSeconds(-1), 72, NEGATIVE_MSG, 'InvalidOptions');
    expectError(() => checkCollModIndexExpireAfterSeconds(Long.fromNumber(-5)), 72, NEGATIVE_MSG);
  });

  it('rule 3.2: a huge negative value clamps to int32 min and is refused with 72', () => {
    expectError(() => checkCollModIndexExpireAfterSeconds(-1e20), 72, NEGATIVE_MSG);
  });
});

// ---- 4.2 ---------------------------------------------------------------------------------------

describe('ttl validation: rule 4.2 (invalid EAS already in the catalog)', () => {
  for (const [label, value] of [
    ['NaN', NaN],
    ['decimal NaN', Decimal128.fromString('NaN')],
    ['beyond int32', 2147483648],
    ['1e10', 1e10],
    ['negative', -5],
    ['a string', '3600'],
  ] as Array<[string, unknown]>) {
    it(`rule 4.2: ${label} is skipped by the monitor and listed as 2147483647`, () => {
      assert.equal(effectiveExpireAfterSeconds(value), undefined);
      const listed = listedExpireAfterSeconds(value);
      assert.ok(listed instanceof Int32);
      assert.equal(listed.value, 2147483647);
    });
  }

  it('rule 4.2: a stored non-integer double is used truncated and listed truncated as Int32', () => {
    assert.equal(effectiveExpireAfterSeconds(10000.7), 10000);
    const listed = listedExpireAfterSeconds(10000.7);
    assert.ok(listed instanceof Int32);
    assert.equal(listed.value, 10000);
  });

  it('rule 4.2 / 9.1: a valid stored Long is listed as Int32', () => {
    const listed = listedExpireAfterSeconds(Long.fromNumber(60));
    assert.ok(listed instanceof Int32);
    assert.equal(listed.value, 60);
    assert.equal(effectiveExpireAfterSeconds(new Int32(0)), 0);
  });
});

// ---- 5.3 ---------------------------------------------------------------------------------------

describe('ttl validation: rule 5.3 (clustered / time-series collection EAS)', () => {
  const nowSecs = Math.floor(JAN_2026 / 1000);

  it('rule 5.3: 0 and ordinary values are accepted', () => {
    assert.equal(checkClusteredExpireAfterSeconds(0, JAN_2026), 0);
    assert.equal(checkClusteredExpireAfterSeconds(3600, JAN_2026), 3600);
    assert.equal(checkClusteredExpireAfterSeconds(Long.fromNumber(86400), JAN_2026), 86400);
    assert.equal(checkClusteredExpireAfterSeconds(new Int32(60), JAN_2026), 60);
  });

  it('rule 5.3: negative is refused with 72 "cannot be less than 0"', () => {
    expectError(() => checkClusteredExpireAfterSeconds(-1, JAN_2026), 72, /cannot be less than 0/, 'InvalidOptions');
  });

  it('rule 5.3: 2147483647 is refused with 72 for clustered collections (beyond now since 1970)', () => {
    expectError(
      () => checkClusteredExpireAfterSeconds(2147483647, JAN_2026),
      72,
      /must be within an acceptable range, try a lower number/,
    );
  });

  it('rule 5.3: exactly the seconds since the epoch is accepted; one more is refused', () => {
    assert.equal(checkClusteredExpireAfterSeconds(nowSecs, JAN_2026), nowSecs);
    expectError(() => checkClusteredExpireAfterSeconds(nowSecs + 1, JAN_2026), 72, /acceptable range/);
  });

  it('rule 5.3: values whose milliseconds overflow int64 are refused with 72', () => {
    expectError(() => checkClusteredExpireAfterSeconds(Long.MAX_VALUE, JAN_2026), 72, /acceptable range/);
    expectError(() => checkClusteredExpireAfterSeconds(1e300, JAN_2026), 72, /acceptable range/);
  });

  it('rule 5.3: non-numeric is refused with 14 TypeMismatch', () => {
    expectError(() => checkClusteredExpireAfterSeconds('3600', JAN_2026), 14, undefined, 'TypeMismatch');
    expectError(() => checkClusteredExpireAfterSeconds(true, JAN_2026), 14);
  });
});
