/** Test helper: a value's objects are all plain objects with Object.prototype (no prototype was changed on the way). */
import assert from 'node:assert/strict';

/** Names every plain object inherits (or whose assignment has a side effect): field names that must stay data. */
export const INHERITED_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
];

export function assertPlain(value: unknown, where = 'value'): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => assertPlain(v, `${where}[${i}]`));
    return;
  }
  if ((value as { _bsontype?: unknown })._bsontype !== undefined || value instanceof Date || value instanceof RegExp)
    return;
  assert.equal(Object.getPrototypeOf(value), Object.prototype, `${where}: prototype changed`);
  for (const key of Object.keys(value))
    assertPlain((value as Record<string, unknown>)[key], `${where}.${JSON.stringify(key)}`);
}
