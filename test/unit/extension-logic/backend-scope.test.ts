/**
 * The routed backend: commands read one `services.backend`, and each call reaches the backend of
 * the command in progress (a connection's, or the embedded engine outside any choice), across
 * awaits and with two commands interleaved.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EmbeddedBackend } from '../../../src/extension/backend/embedded-backend';
import { currentConnection, routedBackend, withBackend } from '../../../src/extension/backend/backend-scope';

describe('backend choice per command', () => {
  test('calls reach the chosen backend across awaits; outside a choice, the embedded one', async () => {
    const embedded = new EmbeddedBackend({}, { latencyMs: 1 });
    const other = new EmbeddedBackend({}, { latencyMs: 1 });
    await other.runCommand('remote', { insert: 'c', documents: [{ _id: 1 }] });
    const routed = routedBackend(embedded);
    const names = async () => (await routed.listDatabases()).map((d) => d.name);
    const [a, b] = await Promise.all([
      withBackend({ connection: 'prod', backend: other }, async () => {
        await new Promise((r) => setTimeout(r, 5));
        return { dbs: await names(), conn: currentConnection() };
      }),
      names(),
    ]);
    assert.deepEqual(a, { dbs: ['remote'], conn: 'prod' });
    assert.deepEqual(b, [], 'the embedded engine is empty');
    assert.equal(currentConnection(), undefined);
    embedded.dispose();
    other.dispose();
  });
});
