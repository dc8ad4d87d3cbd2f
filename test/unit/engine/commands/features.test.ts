/**
 * features: the ObjectId machine id, and oidReset drawing a new one that the ids made afterwards carry.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Long, type ObjectId } from 'bson';
import { Engine, type Document } from '../../../../src/engine';

function machineOf(id: ObjectId): number {
  return Buffer.from(id.id).readUInt32LE(4);
}

function insertedId(engine: Engine): ObjectId {
  engine.runCommand('test', { insert: 'c', documents: [{ a: 1 }] });
  const docs = (engine.runCommand('test', { find: 'c', sort: { $natural: -1 }, limit: 1 }).cursor as Document)
    .firstBatch as Document[];
  return docs[0]._id as ObjectId;
}

describe('features', () => {
  it('reports the machine id that the ids the engine makes carry', () => {
    const engine = new Engine();
    const reply = engine.runCommand('test', { features: 1 });
    assert.ok(reply.oidMachine instanceof Long);
    assert.equal(reply.oidMachine.toNumber(), machineOf(insertedId(engine)));
    assert.equal(reply.oidMachineOld, undefined);
  });

  it('oidReset draws a new machine id, answers the old one in oidMachineOld, and new ids carry the new one', () => {
    const engine = new Engine();
    const before = engine.runCommand('test', { features: 1 }).oidMachine as Long;
    const reply = engine.runCommand('test', { features: 1, oidReset: true });
    assert.ok(before.equals(reply.oidMachineOld as Long));
    assert.ok(!before.equals(reply.oidMachine as Long));
    assert.equal((reply.oidMachine as Long).toNumber(), machineOf(insertedId(engine)));
  });
});
