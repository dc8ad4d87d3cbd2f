/**
 * The bounds and shapes of src/engine/ttl/validation.ts that the rule-by-rule tests pass by:
 * the upper bound of a collection-level value (rule 5.3), a time-series TTL index's field and
 * filter (rule 6.4, with $and / $or), and what the monitor makes of stored values (rules 1.9, 4.2).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32, Long } from 'bson';
import {
  checkClusteredExpireAfterSeconds,
  checkIndexExpireAfterSeconds,
  checkTTLIndexSpec,
  effectiveExpireAfterSeconds,
  INT32_MAX,
  listedExpireAfterSeconds,
  ttlKeyIsUsable,
  type TTLCollectionFacts,
} from '../../../../src/engine/ttl/validation';
import { expectError } from '../../helpers/expect-error';

const NOW = 1_000_000_000; // ms: 1,000,000 seconds after the epoch
const INVALID_OPTIONS = 72;

describe('rule 5.3: collection-level expireAfterSeconds', () => {
  it('rule 5.3: the seconds since the epoch are the largest value accepted; one more is refused', () => {
    assert.equal(checkClusteredExpireAfterSeconds(NOW / 1000, NOW), NOW / 1000);
    expectError(
      () => checkClusteredExpireAfterSeconds(NOW / 1000 + 1, NOW),
      INVALID_OPTIONS,
      "'expireAfterSeconds' must be within an acceptable range, try a lower number: 1000001 seconds reaches back before 1970 (at most 1000000 now).",
      'InvalidOptions',
    );
  });

  it('rule 5.3: a value whose milliseconds are no safe integer is refused whatever the clock says', () => {
    expectError(() => checkClusteredExpireAfterSeconds(2 ** 53, Number.MAX_VALUE), INVALID_OPTIONS);
    expectError(() => checkClusteredExpireAfterSeconds(Long.MAX_VALUE, Number.MAX_VALUE), INVALID_OPTIONS);
  });

  it('rule 5.3: 0 is accepted, a negative value is refused, fractions truncate', () => {
    assert.equal(checkClusteredExpireAfterSeconds(0, NOW), 0);
    assert.equal(checkClusteredExpireAfterSeconds(10.9, NOW), 10);
    expectError(
      () => checkClusteredExpireAfterSeconds(-1, NOW),
      INVALID_OPTIONS,
      "'expireAfterSeconds' cannot be less than 0 (got -1).",
    );
  });

  it('rule 5.3: a non-number is a TypeMismatch naming its BSON type', () => {
    expectError(
      () => checkClusteredExpireAfterSeconds('60', NOW),
      14,
      `'expireAfterSeconds' must be a number of seconds (or "off" in collMod), got string.`,
      'TypeMismatch',
    );
  });
});

const ts = (over: Partial<TTLCollectionFacts> = {}): TTLCollectionFacts => ({
  capped: false,
  clustered: true,
  timeseries: { timeField: 't', metaField: 'meta' },
  serverVersion: '8.0',
  ...over,
});
const tsIndex = (key: Record<string, unknown>, partialFilterExpression?: unknown) => ({
  key,
  name: 'x',
  expireAfterSeconds: 60,
  ...(partialFilterExpression === undefined ? {} : { partialFilterExpression }),
});

describe('rule 6.4: a TTL index on a time-series collection', () => {
  it('rule 6.4: a TTL index on another field than the timeField is refused, naming both', () => {
    expectError(
      () => checkTTLIndexSpec(tsIndex({ other: 1 }, { meta: 1 }), ts()),
      INVALID_OPTIONS,
      "TTL indexes on non-time fields are not supported on time-series collections: index 't' (the timeField), not 'other'.",
    );
  });

  it('rule 6.4: on the timeField with a filter on the metaField or its subfields, it is accepted', () => {
    for (const filter of [{ meta: 'a' }, { 'meta.kind': 'debug' }, { meta: 1, 'meta.b': 2 }])
      assert.equal(checkTTLIndexSpec(tsIndex({ t: 1 }, filter), ts()).seconds, 60, JSON.stringify(filter));
  });

  it('rule 6.4: $and and $or of metaField conditions are accepted, nested too', () => {
    for (const filter of [
      { $and: [{ 'meta.a': 1 }, { 'meta.b': 2 }] },
      { $or: [{ 'meta.a': 1 }, { meta: 'x' }] },
      { $and: [{ $or: [{ 'meta.a': 1 }, { 'meta.b': 1 }] }, { meta: { $exists: true } }] },
    ])
      assert.equal(checkTTLIndexSpec(tsIndex({ t: 1 }, filter), ts()).seconds, 60, JSON.stringify(filter));
  });

  it('rule 6.4: a filter that names any other field, directly or inside $and / $or, is refused', () => {
    for (const filter of [
      {},
      { t: 1 },
      { metadata: 1 },
      { 'meta.a': 1, other: 1 },
      { $and: [{ 'meta.a': 1 }, { other: 1 }] },
      { $or: [{ other: 1 }] },
      { $and: [] },
      { $or: 'meta' },
      { $and: [1] },
      { $nor: [{ 'meta.a': 1 }] },
    ])
      expectError(
        () => checkTTLIndexSpec(tsIndex({ t: 1 }, filter), ts()),
        INVALID_OPTIONS,
        /require a partialFilterExpression on the metaField \('meta'\)/,
        'InvalidOptions',
      );
  });

  it('rule 6.4: without a filter, or on a collection without a metaField, it is refused and says which', () => {
    expectError(() => checkTTLIndexSpec(tsIndex({ t: 1 }), ts()), INVALID_OPTIONS, /metaField \('meta'\)/);
    expectError(
      () => checkTTLIndexSpec(tsIndex({ t: 1 }, { meta: 1 }), ts({ timeseries: { timeField: 't' } })),
      INVALID_OPTIONS,
      /metaField \(this collection has none\): e\.g\. \{partialFilterExpression: \{"meta\.kind": "debug"\}\}/,
    );
  });
});

describe('rules 1.5–1.10: the order of refusals', () => {
  it('a capped clustered collection refuses any TTL index first (6049202), even with a bad value', () => {
    expectError(
      () => checkTTLIndexSpec({ key: { a: 1 }, expireAfterSeconds: 'x' }, ts({ capped: true, timeseries: undefined })),
      6049202,
    );
  });

  it('rule 1.8: a capped collection refuses TTL indexes on 7.0 and accepts them on 8.0', () => {
    const capped = ts({ capped: true, clustered: false, timeseries: undefined });
    expectError(
      () => checkTTLIndexSpec({ key: { a: 1 }, expireAfterSeconds: 5 }, { ...capped, serverVersion: '7.0' }),
      67,
      /capped collection \(MongoDB 7\.0\)/,
    );
    assert.equal(checkTTLIndexSpec({ key: { a: 1 }, expireAfterSeconds: 5 }, capped).seconds, 5);
  });

  it('rule 1.6: the compound-key refusal names the key and the single-field index to create', () => {
    expectError(
      () => checkTTLIndexSpec({ key: { a: 1, b: 1 }, expireAfterSeconds: 5 }, ts({ timeseries: undefined })),
      67,
      /Cannot create TTL index on \{ ?"?a"?: ?1, ?"?b"?: ?1 ?\}: create \{a: 1\} with expireAfterSeconds/,
    );
  });
});

describe('rules 1.9, 4.2: what the monitor makes of a stored index', () => {
  it('rule 1.9: text and compound keys are skipped with log 22540, hashed and geo keys with 22541', () => {
    assert.deepEqual(ttlKeyIsUsable({ a: 1 }), { usable: true });
    assert.deepEqual(ttlKeyIsUsable({ a: -1 }), { usable: true });
    assert.deepEqual(ttlKeyIsUsable({ a: 1, b: 1 }), {
      usable: false,
      reason: 'key for ttl index can only have 1 field',
      logId: 22540,
    });
    assert.deepEqual(ttlKeyIsUsable({ a: 'text' }), {
      usable: false,
      reason: 'key for ttl index can only have 1 field',
      logId: 22540,
    });
    for (const plugin of ['hashed', '2dsphere', '2d'])
      assert.deepEqual(ttlKeyIsUsable({ a: plugin }), {
        usable: false,
        reason: "special index can't be used as a TTL index, skipping TTL job",
        logId: 22541,
      });
  });

  it('rule 1.9: a key whose value names no special index type counts as a B-tree key and is usable', () => {
    // mongod maps an index type name it does not know to a B-tree (IndexNames::nameToType), so only
    // the special types are skipped; such a key reaches the monitor only from an older catalog.
    for (const dir of ['btree', 'notAType', '', 1.5, true])
      assert.deepEqual(ttlKeyIsUsable({ a: dir }), { usable: true }, JSON.stringify(dir));
  });

  it('rule 4.2: a stored value is used truncated; NaN, negative, out-of-int32 or non-numeric values are skipped', () => {
    assert.equal(effectiveExpireAfterSeconds(5.9), 5);
    assert.equal(effectiveExpireAfterSeconds(0), 0);
    assert.equal(effectiveExpireAfterSeconds(INT32_MAX), INT32_MAX);
    for (const v of [NaN, -1, INT32_MAX + 1, '5', null, undefined])
      assert.equal(effectiveExpireAfterSeconds(v), undefined, String(v));
  });

  it('rule 4.2: listIndexes shows an int32, and 2147483647 for a stored value the monitor skips', () => {
    assert.deepEqual(listedExpireAfterSeconds(10.5), new Int32(10));
    assert.deepEqual(listedExpireAfterSeconds(NaN), new Int32(INT32_MAX));
    assert.deepEqual(listedExpireAfterSeconds(-3), new Int32(INT32_MAX));
  });
});

describe('rule 1.4: the refusal message', () => {
  it('rule 1.4: without an index spec to quote, the message ends with what to do', () => {
    expectError(
      () => checkIndexExpireAfterSeconds(-1),
      67,
      "TTL index 'expireAfterSeconds' option cannot be less than 0 (got -1). Use 0 to expire documents at the date stored in the field.",
    );
  });
});
