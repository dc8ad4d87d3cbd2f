/**
 * splitVector: split points over an index prefixed by the key pattern, chunks of half the allowed
 * size at the collection's average document size, never twice on one key, and force cutting once
 * in the middle; dataSize reads its key pattern from min when none is given.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

const FILLER = 'a'.repeat(500);

function setup(xs: number[], key: Document = { x: 1 }): Engine {
  const engine = new Engine();
  engine.runCommand('test', { createIndexes: 'c', indexes: [{ key, name: 'k' }] });
  engine.runCommand('test', { insert: 'c', documents: xs.map((x) => ({ x, y: FILLER })) });
  return engine;
}

function split(engine: Engine, options: Document): Document[] {
  return engine.runCommand('test', { splitVector: 'test.c', keyPattern: { x: 1 }, ...options }).splitKeys as Document[];
}

const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => i + from);

describe('splitVector', () => {
  it('cuts every half chunk: 1 MB over 4500 documents of ~530 bytes gives a key each ~990 documents', () => {
    const engine = setup(range(4500));
    const keys = split(engine, { maxChunkSize: 1 });
    const size = engine.runCommand('test', { collStats: 'c' }).avgObjSize as number;
    const perChunk = Math.floor((1 << 20) / (2 * size));
    assert.equal(keys.length, Math.floor(4500 / (perChunk + 1)));
    assert.deepEqual(keys[0], { x: perChunk + 1 });
  });

  it('a collection smaller than one chunk is not split', () => {
    assert.deepEqual(split(setup(range(10)), { maxChunkSize: 1 }), []);
  });

  it('maxSplitPoints stops early and maxChunkObjects makes chunks smaller', () => {
    assert.equal(split(setup(range(4500)), { maxChunkSize: 1, maxSplitPoints: 1 }).length, 1);
    assert.deepEqual(split(setup(range(1999)), { maxChunkSize: 1, maxChunkObjects: 500 }), [
      { x: 501 },
      { x: 1002 },
      { x: 1503 },
    ]);
  });

  it('never splits twice on one key: the next different key is the split point', () => {
    const engine = setup([...Array(2099).fill(1), ...Array(9).fill(2)]);
    assert.deepEqual(split(engine, { maxChunkSize: 1 }), [{ x: 2 }]);
  });

  it('force cuts once, at the middle document, whatever the size', () => {
    assert.deepEqual(split(setup([1, 2, 3]), { force: true }), [{ x: 2 }]);
  });

  it('uses an index that begins with the key pattern, and answers only its fields', () => {
    const engine = setup([1, 2, 3], { x: 1, y: -1 });
    assert.deepEqual(split(engine, { force: true }), [{ x: 2 }]);
  });

  it('refuses a missing key pattern (2), a missing size (72), no usable index (27) and a missing collection (26)', () => {
    const engine = setup([1]);
    expectError(() => engine.runCommand('test', { splitVector: 'test.c', maxChunkSize: 1 }), 2);
    expectError(() => engine.runCommand('test', { splitVector: 'test.c', keyPattern: { x: 1 } }), 72);
    expectError(() => engine.runCommand('test', { splitVector: 'test.c', keyPattern: { z: 1 }, maxChunkSize: 1 }), 27);
    expectError(() => engine.runCommand('test', { splitVector: 'test.d', keyPattern: { x: 1 }, maxChunkSize: 1 }), 26);
  });
});

describe('dataSize with min and max but no keyPattern', () => {
  it("reads the key pattern from min's fields, ascending", () => {
    const engine = setup(range(10));
    const all = engine.runCommand('test', { dataSize: 'test.c' });
    const part = engine.runCommand('test', { dataSize: 'test.c', min: { x: 3 }, max: { x: 5 } });
    assert.equal(part.numObjects, 2);
    assert.equal(part.size, ((all.size as number) / 10) * 2);
  });
});
