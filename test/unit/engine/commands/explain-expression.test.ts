/**
 * A $project left in an explained pipeline shows its computed fields as mongod 8.0 prints them
 * optimized: constants as {$const}, and an $and or $or that its constant arguments decide folded to
 * that boolean; one that a field path still decides is not folded.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { serializedExpression } from '../../../../src/engine/commands/explain-expression';

function projected(pipeline: Document[]): Document {
  const engine = new Engine();
  engine.runCommand('t', { insert: 'c', documents: [{ x: true }] });
  const e = engine.runCommand('t', { explain: { aggregate: 'c', pipeline, cursor: {} } });
  return ((e.stages as Document[])[1].$project as Document).a as Document;
}

describe('explain: an optimized $project expression', () => {
  it('$and with a falsy constant and $or with a truthy one fold to that boolean (an empty string is truthy)', () => {
    assert.deepEqual(projected([{ $project: { a: { $and: [1, '', 0, '$x'] } } }]), { $const: false });
    assert.deepEqual(projected([{ $project: { a: { $or: ['', 0, '$x'] } } }]), { $const: true });
    assert.deepEqual(projected([{ $project: { a: { $and: [1, 1, 0, 1] } } }]), { $const: false });
    assert.deepEqual(projected([{ $project: { a: { $or: [0, 0, 0, 1] } } }]), { $const: true });
  });

  it('a field path still deciding the result is not folded; its constants print as $const', () => {
    assert.deepEqual(projected([{ $project: { a: { $and: [1, '$x'] } } }]), { $and: [{ $const: 1 }, '$x'] });
    assert.deepEqual(projected([{ $project: { a: { $or: ['$x'] } } }]), { $or: ['$x'] });
  });

  it('constants, literals and nested operators serialize as mongod prints them', () => {
    assert.deepEqual(serializedExpression({ $add: ['$a', 4] }), { $add: ['$a', { $const: 4 }] });
    assert.deepEqual(serializedExpression({ $literal: '$a' }), { $const: '$a' });
    assert.deepEqual(serializedExpression({ x: 'y' }), { x: { $const: 'y' } });
  });
});
