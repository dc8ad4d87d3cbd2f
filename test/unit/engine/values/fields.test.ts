/**
 * Field names are data (issue 27, item 1): the own-field helpers and the copies at the engine
 * boundary (clone.ts) keep `__proto__` and the names plain objects inherit as ordinary fields.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cloneDocument, cloneForStorage, cloneSpreadForStorage, cloneValue } from '../../../../src/engine/values/clone';
import { getField, hasField, ownValue, setField } from '../../../../src/engine/values/fields';
import type { Document } from '../../../../src/engine/values/types';

const J = (text: string): Document => JSON.parse(text) as Document;

describe('own-field helpers', () => {
  it('setField makes __proto__ an own enumerable field and never changes the prototype', () => {
    const o: Document = {};
    setField(o, '__proto__', { polluted: 1 });
    setField(o, 'constructor', 2);
    assert.equal(Object.getPrototypeOf(o), Object.prototype);
    assert.deepEqual(Object.keys(o), ['__proto__', 'constructor']);
    assert.equal(o.polluted, undefined);
    assert.deepEqual(Object.getOwnPropertyDescriptor(o, '__proto__'), {
      value: { polluted: 1 },
      writable: true,
      enumerable: true,
      configurable: true,
    });
    setField(o, '__proto__', 3);
    assert.equal(Object.getOwnPropertyDescriptor(o, '__proto__')?.value, 3, 'a second write replaces the field');
  });

  it('getField, ownValue and hasField see own fields only', () => {
    const o = J('{"__proto__": 1, "x": 2}');
    for (const name of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__']) {
      assert.equal(getField(o, name), undefined, name);
      assert.equal(ownValue(o, name), undefined, name);
      assert.equal(hasField(o, name), false, name);
    }
    assert.equal(ownValue({}, '__proto__'), undefined, 'Object.prototype is not a field');
    assert.equal(getField(o, '__proto__'), 1);
    assert.equal(ownValue(o, '__proto__'), 1);
    assert.equal(ownValue(o, 'x'), 2);
    assert.equal(ownValue(J('{"toString": 5}'), 'toString'), 5);
  });
});

describe('clones keep every field name', () => {
  const doc = () =>
    J('{"_id": 1, "__proto__": {"__proto__": [{"__proto__": 1}]}, "constructor": 2, "toString": {"valueOf": 3}}');
  const text = (d: unknown) => JSON.stringify(d);

  for (const [name, copy] of [
    ['cloneDocument', (d: Document) => cloneDocument(d)],
    ['cloneValue', (d: Document) => cloneValue(d) as Document],
    ['cloneForStorage', (d: Document) => cloneForStorage(d).doc],
    ['cloneSpreadForStorage', (d: Document) => cloneSpreadForStorage(d).doc],
  ] as const) {
    it(`${name} copies __proto__ as data at every level`, () => {
      const input = doc();
      const out = copy(input);
      assert.equal(text(out), text(input));
      assert.equal(Object.getPrototypeOf(out), Object.prototype);
      assert.equal(Object.getPrototypeOf(out.__proto__), Object.prototype);
      assert.notEqual(
        Object.getOwnPropertyDescriptor(out, '__proto__')?.value,
        Object.getOwnPropertyDescriptor(input, '__proto__')?.value,
        'a copy, not shared',
      );
    });
  }
});
