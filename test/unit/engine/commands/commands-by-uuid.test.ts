/**
 * find, count, distinct and listIndexes may name their collection by the UUID listCollections
 * shows, within the command's database; an unknown UUID is NamespaceNotFound (26).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { UUID } from 'bson';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

function uuidOf(engine: Engine, db: string, name: string): unknown {
  const infos = (engine.runCommand(db, { listCollections: 1, filter: { name } }).cursor as Document)
    .firstBatch as Document[];
  return (infos[0].info as Document).uuid;
}

describe('commands by collection UUID', () => {
  it('find, count, distinct and listIndexes read the collection the UUID names', () => {
    const engine = new Engine();
    engine.runCommand('test', { insert: 'main', documents: [{ a: 'FOO' }] });
    engine.runCommand('test', { insert: 'sub', documents: [{ a: 'BAR' }, { a: 'BAZ' }] });
    const uuid = uuidOf(engine, 'test', 'main');
    const found = (engine.runCommand('test', { find: uuid }).cursor as Document).firstBatch as Document[];
    assert.deepEqual(
      found.map((d) => d.a),
      ['FOO'],
    );
    assert.equal(engine.runCommand('test', { count: uuid }).n, 1);
    assert.deepEqual(engine.runCommand('test', { distinct: uuid, key: 'a' }).values, ['FOO']);
    const indexes = (engine.runCommand('test', { listIndexes: uuid }).cursor as Document).firstBatch as Document[];
    assert.deepEqual(
      indexes.map((i) => i.name),
      ['_id_'],
    );
  });

  it("a UUID no collection of the command's database has is 26 NamespaceNotFound, even if another database has it", () => {
    const engine = new Engine();
    engine.runCommand('other', { insert: 'main', documents: [{ a: 1 }] });
    const elsewhere = uuidOf(engine, 'other', 'main');
    assert.equal(engine.runCommand('other', { count: elsewhere }).n, 1);
    for (const cmd of [{ find: elsewhere }, { count: new UUID() }, { listIndexes: new UUID() }])
      expectError(() => engine.runCommand('test', cmd), 26);
  });
});
