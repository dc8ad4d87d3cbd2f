/**
 * explain of an aggregate's writing stages: $merge listed with its defaults as mongod serializes
 * it, and $out / $merge refused at the verbosities that would run them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

const DB = 'app';

function seeded(): Engine {
  const engine = new Engine();
  engine.runCommand(DB, { insert: 'src', documents: [{ _id: 1 }] });
  return engine;
}

function explainAggregate(engine: Engine, pipeline: Document[], verbosity: string): Document {
  return engine.runCommand(DB, { explain: { aggregate: 'src', pipeline, cursor: {} }, verbosity });
}

function stageNamed(explain: Document, name: string): Document | undefined {
  return (explain.stages as Document[]).find((s) => name in s);
}

describe('explain of $merge and $out', () => {
  it('$merge shows its target as {db, coll}, on "_id" and the default modes when none are given', () => {
    const explain = explainAggregate(seeded(), [{ $merge: 'target' }], 'queryPlanner');
    assert.deepEqual(stageNamed(explain, '$merge'), {
      $merge: { into: { db: DB, coll: 'target' }, on: '_id', whenMatched: 'merge', whenNotMatched: 'insert' },
    });
  });

  it('$merge keeps a one-field on as a string, and a pipeline mode shows its let with new: "$$ROOT"', () => {
    const explain = explainAggregate(
      seeded(),
      [{ $merge: { into: { db: 'other', coll: 't' }, on: ['_id'], whenMatched: [{ $set: { x: 1 } }] } }],
      'queryPlanner',
    );
    assert.deepEqual(stageNamed(explain, '$merge'), {
      $merge: {
        into: { db: 'other', coll: 't' },
        on: '_id',
        let: { new: '$$ROOT' },
        whenMatched: [{ $set: { x: 1 } }],
        whenNotMatched: 'insert',
      },
    });
  });

  it('explain at queryPlanner writes nothing into the $merge target', () => {
    const engine = seeded();
    explainAggregate(engine, [{ $merge: { into: 'target', whenMatched: 'replace' } }], 'queryPlanner');
    const reply = engine.runCommand(DB, { count: 'target' });
    assert.equal(reply.n, 0);
  });

  it('$merge is refused with 51184 and $out with 51029 at executionStats and allPlansExecution', () => {
    const engine = seeded();
    for (const verbosity of ['executionStats', 'allPlansExecution']) {
      expectError(() => explainAggregate(engine, [{ $merge: 'target' }], verbosity), 51184, /verbosity/);
      expectError(() => explainAggregate(engine, [{ $out: 'target' }], verbosity), 51029, /verbosity/);
    }
    assert.equal(engine.runCommand(DB, { count: 'target' }).n, 0);
  });
});
