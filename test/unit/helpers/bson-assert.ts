import assert from 'node:assert/strict';
import { Int32, Long } from 'bson';

/** Asserts a value is an Int32 holding n (type fidelity, not just value). */
export function isInt32(v: unknown, n: number): void {
  assert.ok(v instanceof Int32, `expected Int32, got ${String(v)} (${typeof v})`);
  assert.equal(v.value, n);
}

/** Asserts a value is a Long holding n. */
export function isLong(v: unknown, n: bigint): void {
  assert.ok(v instanceof Long, `expected Long, got ${String(v)}`);
  assert.equal(v.toBigInt(), n);
}
