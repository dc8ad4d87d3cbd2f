/**
 * Which server a connection reaches, from its hello/buildInfo replies and host names: who takes
 * writes, where TTL deletes happen, and how Cosmos DB is told apart. Replies of shapes the wire
 * endpoint cannot present come from fixtures (fixtures/hello-replies.ts names their source); the
 * standalone case is also checked against the endpoint in driver-backend.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MongoNetworkError, MongoServerError } from 'mongodb';
import type { Document } from '../../../src/engine';
import { detectFlavor, readHello, serverRoleOf } from '../../../src/extension/backend/server-role';
import {
  BUILD_INFO_8_0,
  COSMOS_BUILD_INFO,
  COSMOS_HOSTS,
  COSMOS_ISMASTER,
  MONGOS,
  RS_ARBITER,
  RS_PRIMARY,
  RS_SECONDARY_DIRECT,
  STANDALONE,
} from './fixtures/hello-replies';

describe('server roles from hello', () => {
  test('a replica set primary takes writes, and TTL deletes run there only (recorded isMaster of a primary)', () => {
    const r = serverRoleOf(RS_PRIMARY, BUILD_INFO_8_0, ['localhost:27017']);
    assert.equal(r.kind, 'primary');
    assert.equal(r.member, 'localhost:27017');
    assert.equal(r.setName, 'replset');
    assert.equal(r.members.length, 3, 'the three data members; the arbiter is listed apart');
    assert.equal(r.canWrite, true);
    assert.equal(r.writesDisabledBecause, undefined);
    assert.match(r.ttlDeletes, /on the primary \(localhost:27017\) only/);
    assert.equal(r.summary, 'replica set replset · primary localhost:27017');
  });

  test('a secondary-only connection refuses writes, naming the member and what to do (recorded reply names no primary)', () => {
    const r = serverRoleOf(RS_SECONDARY_DIRECT, BUILD_INFO_8_0, ['localhost:27018']);
    assert.equal(r.kind, 'secondary');
    assert.equal(r.member, 'localhost:27017', "hello's own `me`, not the host it was given");
    assert.equal(r.primary, undefined);
    assert.equal(r.canWrite, false);
    assert.match(r.writesDisabledBecause ?? '', /localhost:27017, a secondary of replica set replset/);
    assert.match(r.writesDisabledBecause ?? '', /writes go to the primary\. /);
    assert.match(r.writesDisabledBecause ?? '', /directConnection/);
    assert.match(r.ttlDeletes, /replication lag/);
    assert.match(r.summary, /secondary .*read-only/);
  });

  test('an arbiter holds no data: no writes, no TTL deletes (recorded reply)', () => {
    const r = serverRoleOf(RS_ARBITER, BUILD_INFO_8_0, ['localhost:27020']);
    assert.equal(r.kind, 'arbiter');
    assert.equal(r.primary, 'localhost:27017');
    assert.equal(r.canWrite, false);
    assert.match(r.writesDisabledBecause ?? '', /arbiter/);
  });

  test('a mongos takes writes; TTL deletes run on the shards (recorded rs.isMaster() of mongos 4.4.26)', () => {
    const r = serverRoleOf(MONGOS, BUILD_INFO_8_0, ['router:27017']);
    assert.equal(r.kind, 'mongos');
    assert.equal(r.canWrite, true);
    assert.equal(r.member, 'router:27017', 'the host it was given when hello names none');
    assert.match(r.ttlDeletes, /each shard's primary/);
  });

  test('a standalone takes writes and deletes itself', () => {
    const r = serverRoleOf(STANDALONE, BUILD_INFO_8_0, ['localhost:27017']);
    assert.equal(r.kind, 'standalone');
    assert.equal(r.canWrite, true);
    assert.equal(r.version, '8.0.4');
  });
});

describe('Cosmos DB detection', () => {
  test('by its host name under .mongo.cosmos.azure.com', () => {
    const f = detectFlavor(STANDALONE, { version: '6.0.0', ok: 1 }, COSMOS_HOSTS);
    assert.equal(f.flavor, 'cosmos');
    assert.match(f.because ?? '', /myaccount\.mongo\.cosmos\.azure\.com/);
  });

  test("by a 3.2 account's host name under .documents.azure.com (the recorded isMaster's own member)", () => {
    const f = detectFlavor(STANDALONE, BUILD_INFO_8_0, [COSMOS_ISMASTER.me]);
    assert.equal(f.flavor, 'cosmos');
    assert.match(f.because ?? '', /southindia\.documents\.azure\.com:10255/);
  });

  test('by the _t type tag of the recorded buildInfo, whatever the host', () => {
    const f = detectFlavor(COSMOS_ISMASTER, COSMOS_BUILD_INFO, ['10.0.0.4:10255']);
    assert.equal(f.flavor, 'cosmos');
    assert.match(f.because ?? '', /buildInfo reply carries the type tag _t: "BuildInfoResponse"/);
  });

  test('by the _t type tag of the recorded isMaster alone (a buildInfo without one, an address without a name)', () => {
    const f = detectFlavor(COSMOS_ISMASTER, BUILD_INFO_8_0, ['10.0.0.4:10255']);
    assert.equal(f.flavor, 'cosmos');
    assert.match(f.because ?? '', /hello reply carries the type tag _t: "IsMasterResponse"/);
  });

  test('not by the replica-set name globaldb alone, and not for the vCore service', () => {
    const { _t, ...untagged } = COSMOS_ISMASTER;
    assert.equal(_t, 'IsMasterResponse');
    assert.equal(untagged.setName, 'globaldb');
    assert.equal(detectFlavor(untagged, BUILD_INFO_8_0, ['db0.example.net:27017']).flavor, 'mongodb');
    assert.equal(
      detectFlavor(STANDALONE, BUILD_INFO_8_0, ['c.mongocluster.cosmos.azure.com']).flavor,
      'mongodb',
      'vCore runs MongoDB TTL rules',
    );
  });

  test('rule 10.5: on the recorded Cosmos replies the role is its write region, writable, and the monitor node says the service chooses when to delete', () => {
    const r = serverRoleOf(COSMOS_ISMASTER, COSMOS_BUILD_INFO, COSMOS_HOSTS);
    assert.equal(r.flavor, 'cosmos');
    assert.equal(r.kind, 'primary', 'it answers as the primary of replica set globaldb');
    assert.equal(r.setName, 'globaldb');
    assert.equal(r.member, 'vishi-api-for-mongodb-southindia.documents.azure.com:10255');
    assert.equal(r.members.length, 3, 'one member per region');
    assert.equal(r.version, '3.2.0');
    assert.equal(r.canWrite, true);
    assert.match(r.ttlDeletes, /rule 10\.5/);
    assert.equal(r.summary, 'Azure Cosmos DB for MongoDB · vishi-api-for-mongodb-southindia.documents.azure.com:10255');
  });
});

describe('reading hello from a server that has only isMaster', () => {
  /** A server's answers by command name, and the commands it was sent. */
  const server = (answers: Record<string, () => Document>) => {
    const sent: string[] = [];
    // async: an answer that throws is a rejected command, as the driver gives it.
    const run = async (command: Document) => {
      const name = Object.keys(command)[0];
      sent.push(name);
      return answers[name]();
    };
    return { sent, run };
  };
  // Cosmos DB's own error code for the refusal is not published; any refusal with a code counts.
  const refused = () => {
    throw new MongoServerError({ ok: 0, code: 59, codeName: 'CommandNotFound', errmsg: "no such command: 'hello'" });
  };

  test('Cosmos DB (RU) refuses hello: its isMaster reply (recorded) gives the role, the write region', async () => {
    const s = server({ hello: refused, isMaster: () => COSMOS_ISMASTER });
    const hello = await readHello(s.run);
    assert.deepEqual(s.sent, ['hello', 'isMaster']);
    const r = serverRoleOf(hello, COSMOS_BUILD_INFO, ['10.0.0.4:10255']);
    assert.equal(r.flavor, 'cosmos');
    assert.equal(r.kind, 'primary');
    assert.equal(r.canWrite, true);
  });

  test('a server with hello is asked once', async () => {
    const s = server({ hello: () => RS_PRIMARY, isMaster: () => assert.fail('isMaster is not needed') });
    assert.equal(await readHello(s.run), RS_PRIMARY);
    assert.deepEqual(s.sent, ['hello']);
  });

  test('a lost connection is not a refusal: it fails as it is, without a second try', async () => {
    const lost = () => {
      throw new MongoNetworkError('connection 1 to 10.0.0.4:10255 closed');
    };
    const s = server({ hello: lost, isMaster: () => COSMOS_ISMASTER });
    await assert.rejects(readHello(s.run), /closed/);
    assert.deepEqual(s.sent, ['hello']);
  });
});
