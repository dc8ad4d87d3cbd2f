/**
 * The order in which mongod refuses an update pipeline (src/mongo/db/update/pipeline_executor.cpp):
 * it parses every stage first, then checks the stage positions, and only then refuses a known stage
 * that cannot run in an update (InvalidOptions, 72). A malformed or unknown stage therefore reports
 * its own error wherever it stands.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { compilePipelineUpdate } from '../../../../src/engine/query/update';
import { expectError } from '../../helpers/expect-error';

const now = new Date('2030-01-02T03:04:05Z');

function refused(name: string): string {
  return `${name} is not allowed to be used within an update`;
}

describe('pipeline update: which error a refused pipeline gives', () => {
  it('pipeline update: a malformed stage an update cannot run reports its parse error, not 72', () => {
    expectError(
      () => compilePipelineUpdate([{ $match: 5 }], now),
      15959,
      'the match filter must be an expression in an object',
    );
    expectError(() => compilePipelineUpdate([{ $sort: 5 }], now), 15973);
  });

  it('pipeline update: a malformed or unknown stage after a refused one is reported first', () => {
    expectError(() => compilePipelineUpdate([{ $match: {} }, { $set: 5 }], now), 40272);
    expectError(() => compilePipelineUpdate([{ $limit: 1 }, { $bogus: 1 }], now), 40324);
  });

  it('pipeline update: the first refused stage is the one named', () => {
    expectError(
      () => compilePipelineUpdate([{ $set: { a: 1 } }, { $match: {} }, { $sort: { a: 1 } }], now),
      72,
      refused('$match'),
    );
  });

  it('pipeline update: a stage only the aggregate command can run is refused with 72 like any other', () => {
    expectError(() => compilePipelineUpdate([{ $collStats: {} }], now), 72, refused('$collStats'));
    expectError(() => compilePipelineUpdate([{ $indexStats: {} }], now), 72, refused('$indexStats'));
    const geoNear = { $geoNear: { near: [0, 0], distanceField: 'd' } };
    expectError(() => compilePipelineUpdate([geoNear], now), 72, refused('$geoNear'));
  });

  it('pipeline update: a stage out of place is reported before the refusal (40601)', () => {
    expectError(
      () => compilePipelineUpdate([{ $out: 'x' }, { $set: { a: 1 } }], now),
      40601,
      '$out can only be the final stage in the pipeline',
    );
  });

  it('pipeline update: the update command reports a malformed refused stage as mongod does', () => {
    const engine = new Engine();
    engine.runCommand('app', { insert: 'c', documents: [{ _id: 1 }] });
    const reply = engine.runCommand('app', { update: 'c', updates: [{ q: {}, u: [{ $match: 5 }] }] });
    const errors = reply.writeErrors as Document[];
    assert.equal(errors.length, 1);
    assert.equal(errors[0].code, 15959);
  });
});
