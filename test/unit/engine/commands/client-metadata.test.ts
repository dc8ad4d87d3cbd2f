/**
 * Client metadata is a connection's, set by its first hello: a later hello with `client` is
 * refused with ClientMetadataCannotBeMutated (186), in the shell (whose connection sent its own
 * when it opened) and over the wire (per socket).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { carriesClientMetadata } from '../../../../src/engine/commands/client-metadata';
import { CursorOwners } from '../../../../src/wire/cursor-owners';
import { runWireCommand, type ConnectionState } from '../../../../src/wire/commands';
import { harness } from '../../shell/helpers';

describe('client metadata', () => {
  it('only a hello (or isMaster) with a client field carries it', () => {
    assert.equal(carriesClientMetadata({ isMaster: 1, client: { application: { name: 'a' } } }), true);
    assert.equal(carriesClientMetadata({ hello: 1, client: {} }), true);
    assert.equal(carriesClientMetadata({ hello: 1 }), false);
    assert.equal(carriesClientMetadata({ ping: 1, client: {} }), false);
  });

  it('over the wire: the first hello of a connection may set it, a second one is 186', () => {
    const engine = new Engine();
    const connection: ConnectionState = { id: 1, remote: '127.0.0.1:50000', owners: new CursorOwners(() => engine) };
    const hello = { isMaster: 1, client: { application: { name: 'foobar' } }, $db: 'admin' };
    assert.equal(runWireCommand(engine, connection, hello).ok, 1);
    const again: Document = runWireCommand(engine, connection, hello);
    assert.equal(again.ok, 0);
    assert.equal(again.code, 186);
    assert.equal(again.codeName, 'ClientMetadataCannotBeMutated');
    // A hello without it is fine, and another connection has its own first hello.
    assert.equal(runWireCommand(engine, connection, { isMaster: 1, $db: 'admin' }).ok, 1);
    const other: ConnectionState = { id: 2, remote: '127.0.0.1:50001', owners: new CursorOwners(() => engine) };
    assert.equal(runWireCommand(engine, other, hello).ok, 1);
  });

  it("in the shell: the shell's connection already sent it, so db.runCommand({isMaster: 1, client}) is 186", () => {
    const failed = harness().failure('db.runCommand({isMaster: 1, client: {application: "foobar"}})');
    assert.match(`${failed.error?.message}`, /client metadata document may only be sent in the first hello/);
  });
});
