/**
 * A DBRef's fields ($ref, $id, $db) are the `$`-prefixed names a field path may hold, as mongod's
 * FieldPath allows them: in projections and sorts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

function first(engine: Engine, extra: Document): Document[] {
  return (engine.runCommand('app', { find: 'c', ...extra }).cursor as Document).firstBatch as Document[];
}

describe('field paths through a DBRef', () => {
  const engine = new Engine();
  engine.runCommand('app', {
    insert: 'c',
    documents: [
      { _id: 1, sub: { $ref: 'foo', $id: [{ x: 1 }, { x: 2 }] } },
      { _id: 2, sub: { $ref: 'bar', $id: 0 } },
    ],
  });

  it("a positional projection on 'sub.$id.$' keeps the matched element", () => {
    const docs = first(engine, {
      filter: { 'sub.$id': { $elemMatch: { x: 2 } } },
      projection: { _id: 0, 'sub.$id.$': 1 },
    });
    assert.deepEqual(docs, [{ sub: { $id: [{ x: 2 }] } }]);
  });

  it("an inclusion of 'sub.$ref' and a sort on it", () => {
    const docs = first(engine, { filter: {}, projection: { _id: 0, 'sub.$ref': 1 }, sort: { 'sub.$ref': 1 } });
    assert.deepEqual(docs, [{ sub: { $ref: 'bar' } }, { sub: { $ref: 'foo' } }]);
  });

  it('any other $-prefixed name is still refused with 16410', () => {
    expectError(() => first(engine, { filter: {}, projection: { 'sub.$x': 1 } }), 16410);
  });
});
