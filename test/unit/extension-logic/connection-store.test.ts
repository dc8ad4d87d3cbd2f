/**
 * Saved connections: the settings never hold a password (it lives in SecretStorage under the
 * connection's key), edits and renames keep or move it, removal forgets it, and the driver gets the
 * whole string back only through `target()`. Settings and secrets are plain in-memory stand-ins
 * for VS Code's configuration and SecretStorage (the store's two seams).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ConnectionStore,
  secretKey,
  type ConnectionEntry,
  type SecretAccess,
  type SettingsAccess,
} from '../../../src/extension/connections/connection-store';
import * as connectionStrings from '../../../src/extension/connections/connection-string';

const PASSWORD = 'Tr0ub4dor&3';

function stores() {
  let saved = '[]';
  const settings: SettingsAccess = {
    read: () => JSON.parse(saved) as ConnectionEntry[],
    write: async (e) => {
      saved = JSON.stringify(e);
    },
  };
  const map = new Map<string, string>();
  const secrets: SecretAccess = {
    get: async (k) => map.get(k),
    store: async (k, v) => void map.set(k, v),
    delete: async (k) => void map.delete(k),
  };
  return {
    store: new ConnectionStore(settings, secrets, () => connectionStrings),
    settingsText: () => saved,
    secrets: map,
  };
}

describe('saved connections', () => {
  test('a password typed in the string goes to SecretStorage, never to settings', async () => {
    const s = stores();
    const entry = await s.store.save({
      name: 'prod',
      connectionString: `mongodb://app:${encodeURIComponent(PASSWORD)}@db0:27017/?authSource=admin`,
      production: true,
    });
    assert.equal(entry.uri, 'mongodb://app@db0:27017/?authSource=admin');
    assert.ok(!s.settingsText().includes(encodeURIComponent(PASSWORD)));
    assert.ok(!s.settingsText().includes(PASSWORD));
    assert.equal(s.secrets.get(secretKey('prod')), PASSWORD);
    assert.equal(s.store.get('prod')?.production, true);
    const t = await s.store.target('prod');
    assert.equal(t.uri, `mongodb://app:${encodeURIComponent(PASSWORD)}@db0:27017/?authSource=admin`);
    assert.equal(t.redact(`failed: ${t.uri} (${PASSWORD})`).includes(PASSWORD), false);
  });

  test('editing without a new password keeps the stored one; renaming moves it', async () => {
    const s = stores();
    await s.store.save({ name: 'a', connectionString: 'mongodb://app@db0/', password: PASSWORD });
    await s.store.save({ name: 'a', connectionString: 'mongodb://app@db1/' }, 'a');
    assert.equal(s.secrets.get(secretKey('a')), PASSWORD);
    await s.store.save({ name: 'b', connectionString: 'mongodb://app@db1/' }, 'a');
    assert.equal(s.secrets.get(secretKey('a')), undefined);
    assert.equal(s.secrets.get(secretKey('b')), PASSWORD);
    assert.deepEqual(
      s.store.list().map((e) => e.name),
      ['b'],
    );
  });

  test('removing a connection forgets its password', async () => {
    const s = stores();
    await s.store.save({ name: 'a', connectionString: `mongodb://app:${PASSWORD.replace('&', '%26')}@db0/` });
    assert.equal(await s.store.remove('a'), true);
    assert.equal(s.secrets.size, 0);
    assert.equal(s.settingsText(), '[]');
    assert.equal(await s.store.remove('a'), false);
  });

  test('refused with BadValue and what to do: a bad string, a taken name, a password without a user', async () => {
    const s = stores();
    await assert.rejects(s.store.save({ name: 'x', connectionString: 'localhost:27017' }), /starts with mongodb:\/\//);
    await s.store.save({ name: 'x', connectionString: 'mongodb://db0/' });
    await assert.rejects(s.store.save({ name: 'x', connectionString: 'mongodb://db1/' }), /exists already/);
    await assert.rejects(
      s.store.save({ name: 'y', connectionString: 'mongodb://db1/', password: PASSWORD }),
      (e: { code: number; message: string }) => e.code === 2 && /needs a user name/.test(e.message),
    );
    assert.ok(!s.settingsText().includes(PASSWORD));
  });

  test('TLS options become the driver options', async () => {
    const s = stores();
    await s.store.save({
      name: 't',
      connectionString: 'mongodb://db0/',
      tls: { caFile: '/etc/ca.pem', allowInvalidCertificates: true },
    });
    const t = await s.store.target('t');
    assert.deepEqual(t.clientOptions, { tls: true, tlsCAFile: '/etc/ca.pem', tlsAllowInvalidCertificates: true });
  });
});
