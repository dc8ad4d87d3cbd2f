/**
 * Read and write concerns a standalone engine refuses before running the command, as a mongod that
 * is not a replica-set member does.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Timestamp } from 'bson';
import { Engine } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

const count = (engine: Engine): number => engine.runCommand('app', { count: 'c' }).n as number;

describe('write and read concerns on a standalone engine', () => {
  it('a w mode other than "majority" is BadValue (2) and nothing is written', () => {
    const engine = new Engine();
    expectError(
      () => engine.runCommand('app', { insert: 'c', documents: [{ _id: 1 }], writeConcern: { w: 'invalid' } }),
      2,
      /cannot use non-majority 'w' mode invalid when a host is not a member of a replica set/,
    );
    assert.equal(count(engine), 0);
    engine.runCommand('app', { insert: 'c', documents: [{ _id: 1 }], writeConcern: { w: 'majority' } });
    engine.runCommand('app', { insert: 'c', documents: [{ _id: 2 }], writeConcern: { w: 1 } });
    assert.equal(count(engine), 2);
  });

  it("w greater than 1 is BadValue (2): 'w' > 1 when a host is not replicated", () => {
    expectError(
      () => new Engine().runCommand('app', { insert: 'c', documents: [{}], writeConcern: { w: 2 } }),
      2,
      /cannot use 'w' > 1 when a host is not replicated/,
    );
  });

  it('readConcern afterOpTime is NotAReplicaSet (123)', () => {
    expectError(
      () =>
        new Engine().runCommand('app', {
          find: 'c',
          readConcern: { afterOpTime: { ts: new Timestamp({ t: 1, i: 0 }), t: 0 } },
        }),
      123,
      undefined,
      'NotAReplicaSet',
    );
  });
});
