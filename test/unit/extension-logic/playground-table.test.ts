/**
 * The notebook's documents table with field names plain objects inherit (issue 27, item 1): a
 * `__proto__` or `constructor` field is a column like any other, through the whole path from a
 * shell statement to the renderer's JSON.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatEjsonValue, tableOf } from '../../../src/extension/logic/playground-table';
import { outputSpecOf } from '../../../src/extension/logic/playground-outputs';
import { statementOutputs } from '../../../src/shell/cell-outputs';
import { harness } from '../shell/helpers';

describe('playground table: field names are data', () => {
  it('__proto__, constructor and toString are columns; a document without them shows missing cells', () => {
    const docs = JSON.parse(
      '[{"_id": 1, "__proto__": 5, "constructor": {"__proto__": 1}}, {"_id": 2, "toString": "s"}]',
    ) as unknown[];
    const t = tableOf({ documents: docs, hasMore: false });
    assert.deepEqual(t.columns, ['_id', '__proto__', 'constructor', 'toString']);
    assert.deepEqual(t.rows, [
      ['1', '5', "{ ['__proto__']: 1 }", undefined],
      ['2', undefined, undefined, 's'],
    ]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('a nested __proto__ is shown as mongosh shows it, never as a literal key', () => {
    assert.equal(
      formatEjsonValue(JSON.parse('{"__proto__": {"a": 1}, "valueOf": 2}')),
      "{ ['__proto__']: { a: 1 }, valueOf: 2 }",
    );
  });

  it('from a shell statement through the documents mime item to the table', () => {
    const h = harness();
    h.run(`db.p.insertMany([JSON.parse('{"_id": 1, "__proto__": 5, "x": 1}'), {_id: 2, constructor: 'c'}])`);
    const outputs = statementOutputs(h.last('db.p.find()'));
    const mapped = outputs.map(outputSpecOf);
    const items = mapped.flatMap((m) => (m.kind === 'items' ? m.items : []));
    const documentsItem = items.find((i) => i.mime === 'application/vnd.ttl-workbench.documents+json') as
      { json: unknown } | undefined;
    assert.ok(documentsItem, 'a documents item');
    // The notebook carries the item as JSON text to the renderer.
    const t = tableOf(JSON.parse(JSON.stringify(documentsItem.json)));
    assert.deepEqual(t.columns, ['_id', '__proto__', 'x', 'constructor']);
    assert.deepEqual(t.rows, [
      ['1', '5', '1', undefined],
      ['2', undefined, undefined, 'c'],
    ]);
  });
});
