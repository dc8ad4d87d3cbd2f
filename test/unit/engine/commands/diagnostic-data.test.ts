/**
 * getDiagnosticData: a diagnostic sample in FTDC's shape, taken when asked.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import { expectError } from '../../helpers/expect-error';

describe('getDiagnosticData', () => {
  it("answers {data: {start, serverStatus, end}} with the engine's serverStatus, timed on its clock", () => {
    const clock = new VirtualClock(Date.parse('2030-01-01T00:00:00Z'));
    const engine = new Engine({ clock });
    engine.runCommand('test', { insert: 'c', documents: [{ a: 1 }] });
    const data = engine.runCommand('admin', { getDiagnosticData: 1 }).data as Document;
    assert.deepEqual(Object.keys(data), ['start', 'serverStatus', 'end']);
    assert.equal((data.start as Date).toISOString(), '2030-01-01T00:00:00.000Z');
    const status = data.serverStatus as Document;
    assert.equal((status.start as Date).getTime(), clock.now());
    assert.equal((status.end as Date).getTime(), clock.now());
    assert.equal(status.ok, undefined);
    assert.equal(String((status.opcounters as Document).insert), '1');
  });

  it('may only run against admin: 13 Unauthorized', () => {
    expectError(() => new Engine().runCommand('test', { getDiagnosticData: 1 }), 13);
  });
});
