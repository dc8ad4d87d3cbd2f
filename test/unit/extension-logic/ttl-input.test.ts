/** The duration box of "Create TTL Index…": the engine's rules, explained in words while typing. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  changeWords,
  checkCollModInput,
  checkTTLInput,
  checkTTLSpec,
  millisecondsWarning,
} from '../../../src/extension/logic/ttl-input';

const plain = { capped: false, clustered: false, serverVersion: '8.0' as const };

describe('checkTTLInput', () => {
  it('accepts durations and explains what the index will do', () => {
    const r = checkTTLInput('1h', 'lastModifiedDate', plain);
    assert.ok(r.ok);
    assert.equal(r.seconds, 3600);
    assert.match(r.explanation, /1 h \(3,600 s\) after the date in lastModifiedDate/);
    const at = checkTTLInput('at the date in the field', 'expireAt', plain);
    assert.ok(at.ok);
    assert.equal(at.seconds, 0);
    assert.match(at.explanation, /at the date stored in expireAt/);
  });

  it('rule 1.4: refuses out-of-range and negative values with the engine wording and code 67', () => {
    const big = checkTTLInput('2147483648', 'a', plain);
    assert.ok(!big.ok);
    assert.equal(big.code, 67);
    assert.match(big.message, /32-bit integer/);
    const neg = checkTTLInput('-1', 'a', plain);
    assert.ok(!neg.ok);
    assert.match(neg.message, /cannot be less than 0/);
  });

  it('rule 1.7: refuses a TTL index on _id', () => {
    const r = checkTTLInput('60', '_id', plain);
    assert.ok(!r.ok);
    assert.equal(r.codeName, 'InvalidIndexSpecificationOption');
  });

  it('rule 1.6: refuses a compound TTL index', () => {
    const r = checkTTLSpec({ key: { a: 1, b: 1 }, name: 'a_1_b_1', expireAfterSeconds: 60 }, plain);
    assert.ok(!r.ok);
    assert.match(r.message, /compound indexes do not support TTL/);
  });

  it('rule 1.8: refuses a TTL index on a capped collection on 7.0 only', () => {
    assert.ok(!checkTTLInput('60', 't', { ...plain, capped: true, serverVersion: '7.0' }).ok);
    assert.ok(checkTTLInput('60', 't', { ...plain, capped: true }).ok);
  });

  it('rule 6.4: needs the timeField and a metaField filter on time-series collections', () => {
    const ts = { ...plain, timeseries: { timeField: 'ts', metaField: 'meta' } };
    assert.ok(!checkTTLInput('60', 'other', ts).ok);
    assert.ok(!checkTTLInput('60', 'ts', ts).ok);
    assert.ok(checkTTLInput('60', 'ts', ts, { 'meta.kind': 'debug' }).ok);
  });

  it('collMod values: a number, not negative, and not silently clamped', () => {
    assert.ok(checkCollModInput('90s', '8.0').ok);
    const neg = checkCollModInput('-5', '8.0');
    assert.ok(!neg.ok);
    assert.equal(neg.code, 72);
    assert.ok(!checkCollModInput('1e10', '8.0').ok);
  });
});

describe('millisecondsWarning and changeWords (issue 18.4)', () => {
  it('rule TTL014: warns on a value that looks like milliseconds, with the value meant', () => {
    assert.equal(
      millisecondsWarning(86_400_000),
      '86,400,000 s is 1,000 days (about 2.7 years); did you mean 86400 (1 day)? expireAfterSeconds counts seconds, not milliseconds.',
    );
    assert.equal(millisecondsWarning(86_400), undefined);
    assert.match(millisecondsWarning(3_600_000)!, /did you mean 3600 \(1 hour\)/);
    assert.equal(millisecondsWarning(2_592_000), undefined, '30 days in seconds is not milliseconds');
  });

  it('says old → new', () => {
    assert.equal(changeWords(3600, 60), 'expireAfterSeconds 3,600 (1 h) → 60 (1 min)');
    assert.equal(changeWords(undefined, 60), 'expireAfterSeconds 60 (1 min)');
  });
});
