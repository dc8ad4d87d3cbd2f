/**
 * Field names are data: a document may hold a field named `__proto__`, `constructor`, `toString`…
 * like any other (mongod stores them as ordinary names). Plain assignment `obj[key] = v` with key
 * `__proto__` calls Object.prototype's setter and changes the object's prototype instead, and a
 * plain read `obj[key]` of `constructor` or `toString` finds the function every object inherits.
 * These helpers write and read own properties only; the slow path is taken for `__proto__` alone.
 */
import type { Document } from './types';

/** `obj[key] = value` as an own, enumerable data property, even for the key `__proto__`. */
export function setField(obj: Document, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** Whether `obj` has its own field `key` (inherited properties are not fields). */
export function hasField(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** The own field `key` of `obj`, or undefined (never an inherited property). */
export function getField(obj: Document, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

/**
 * `obj[key]` for a hot path: the same as getField, but `hasOwnProperty` is asked only when the
 * plain read found a function or Object.prototype itself — the only things a plain object
 * inherits (its methods, and `__proto__`); document values are never functions.
 */
export function ownValue(obj: Document, key: string): unknown {
  const v = obj[key];
  if ((typeof v === 'function' || v === Object.prototype) && !Object.prototype.hasOwnProperty.call(obj, key))
    return undefined;
  return v;
}
