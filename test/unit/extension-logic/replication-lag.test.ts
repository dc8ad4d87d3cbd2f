/**
 * Secondaries' lag in the monitor node (issue 21): from replSetGetStatus (each secondary's
 * optimeDate against the primary's), else from the connected member's hello (lastWrite), in words;
 * live against the endpoint as a one-member replica set, which has no secondaries and says so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DriverBackend } from '../../../src/extension/backend/driver-backend';
import { lagFromHello, lagFromStatus, lagText, lagWords } from '../../../src/extension/backend/replication-lag';
import { startServer, type RunningServer } from '../../../src/wire';
import { RS_PRIMARY, RS_SECONDARY_LAST_WRITE, RS_STATUS_WITH_LAG } from './fixtures/hello-replies';

describe('replication lag in words', () => {
  test("replSetGetStatus: each secondary's optimeDate against the primary's; the arbiter is not listed", () => {
    assert.deepEqual(lagWords(lagFromStatus(RS_STATUS_WITH_LAG)), [
      'secondary db1.example.net:27017 is 4 s behind',
      'secondary db2.example.net:27017 is 2 min 30 s behind',
    ]);
  });

  test('a secondary at the primary optime is up to date; a status without a primary says no lag can be measured', () => {
    const inStep = {
      ...RS_STATUS_WITH_LAG,
      members: RS_STATUS_WITH_LAG.members.map((m) =>
        m.stateStr === 'SECONDARY' ? { ...m, optimeDate: RS_STATUS_WITH_LAG.members[0].optimeDate } : m,
      ),
    };
    assert.deepEqual(lagWords(lagFromStatus(inStep)), [
      'secondary db1.example.net:27017 is up to date',
      'secondary db2.example.net:27017 is up to date',
    ]);
    const leaderless = { ...RS_STATUS_WITH_LAG, members: RS_STATUS_WITH_LAG.members.slice(1) };
    assert.match(lagWords(lagFromStatus(leaderless))[0], /shows no primary in replica set rs0/);
  });

  test("hello's lastWrite (recorded secondary reply) when replSetGetStatus is refused: how long ago it applied a write", () => {
    const last = RS_SECONDARY_LAST_WRITE.lastWrite.lastWriteDate.getTime();
    const words = lagWords(lagFromHello(RS_SECONDARY_LAST_WRITE, last + 4_000));
    assert.equal(words.length, 1);
    assert.match(words[0], /^secondary localhost:27017 applied its last write 4 s ago/);
    assert.match(lagWords(lagFromHello(RS_PRIMARY, last))[0], /carries no lastWrite/);
  });

  test('durations: seconds, minutes, hours', () => {
    assert.equal(lagText(4_200), '4 s');
    assert.equal(lagText(125_000), '2 min 5 s');
    assert.equal(lagText(120_000), '2 min');
    assert.equal(lagText(2 * 3600_000 + 10 * 60_000), '2 h 10 min');
  });
});

describe('the monitor node on the endpoint as a one-member replica set', () => {
  let server: RunningServer;
  let backend: DriverBackend;

  before(async () => {
    server = await startServer({ replSet: 'rs0' });
    backend = new DriverBackend({
      uri: server.uri,
      label: 'rs',
      redact: (s) => s,
      monitorRefreshMs: 0,
      clientOptions: { serverSelectionTimeoutMS: 3000 },
    });
    await backend.connect();
  });

  after(async () => {
    backend.dispose();
    await server.stop();
  });

  test('replSetGetStatus lists no secondaries: the monitor node says the set has none', async () => {
    const monitor = await backend.monitorStatus();
    assert.equal(monitor.replication?.length, 1);
    assert.match(
      monitor.replication[0],
      /^replica set rs0 has no secondaries: TTL deletes on \S+ have nothing to replicate to\.$/,
    );
  });
});
