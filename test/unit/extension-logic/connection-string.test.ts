/**
 * Connection strings: validated by the driver's own parser, the password split out for
 * SecretStorage (settings keep the string without it), put back only for the driver, and removed
 * from any text that is shown or logged.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  parseConnectionString,
  redactText,
  redactUri,
  withPassword,
} from '../../../src/extension/connections/connection-string';

describe('connection strings', () => {
  test('mongodb:// with a password: settings get the string without it, the password goes apart', () => {
    const r = parseConnectionString('mongodb://app:p%40ss%3Aw0rd@db0:27017,db1:27017/?replicaSet=rs0&authSource=admin');
    assert.ok(r.ok);
    if (!r.ok) return;
    assert.equal(r.value.password, 'p@ss:w0rd', 'percent-decoded');
    assert.equal(r.value.username, 'app');
    assert.ok(!r.value.withoutPassword.includes('w0rd'));
    assert.equal(r.value.withoutPassword, 'mongodb://app@db0:27017,db1:27017/?replicaSet=rs0&authSource=admin');
    assert.deepEqual(r.value.hosts, ['db0:27017', 'db1:27017']);
    assert.equal(r.value.srv, false);
    assert.equal(r.value.tls, false);
  });

  test('mongodb+srv:// implies TLS unless tls=false says otherwise', () => {
    const srv = parseConnectionString('mongodb+srv://app@cluster0.example.mongodb.net/');
    assert.ok(srv.ok && srv.value.srv && srv.value.tls);
    const off = parseConnectionString('mongodb+srv://cluster0.example.mongodb.net/?tls=false');
    assert.ok(off.ok && !off.value.tls);
    const on = parseConnectionString('mongodb://h/?ssl=true');
    assert.ok(on.ok && on.value.tls);
  });

  test('refused: other schemes, an srv string with a port, a TLS key password in the string', () => {
    const http = parseConnectionString('http://localhost:27017');
    assert.ok(!http.ok && /starts with mongodb:\/\/ or mongodb\+srv:\/\//.test(http.message));
    const port = parseConnectionString('mongodb+srv://app:hunter22@cluster0.example.net:27017/');
    assert.ok(!port.ok);
    if (!port.ok) {
      assert.match(port.message, /^Not a valid connection string: /);
      assert.ok(!port.message.includes('hunter22'), port.message);
    }
    const raw = parseConnectionString('mongodb://app:pa:ss@db0/');
    assert.ok(!raw.ok && /unescaped characters/.test(raw.message) && !raw.message.includes('pa:ss'));
    const key = parseConnectionString('mongodb://h/?tls=true&tlsCertificateKeyFilePassword=x');
    assert.ok(!key.ok && /secrets are never stored in settings/.test(key.message));
  });

  test('withPassword puts the password back for the driver, encoded', () => {
    const uri = withPassword('mongodb://app@db0:27017/?authSource=admin', 'p@ss:w0rd');
    assert.equal(uri, 'mongodb://app:p%40ss%3Aw0rd@db0:27017/?authSource=admin');
    const back = parseConnectionString(uri);
    assert.ok(back.ok && back.value.password === 'p@ss:w0rd');
    assert.equal(withPassword('mongodb://db0/', undefined), 'mongodb://db0/');
  });

  test('redaction: the password never survives in a shown or logged text', () => {
    const uri = 'mongodb://app:hunter22@db0:27017/';
    assert.equal(redactUri(uri), 'mongodb://<credentials>@db0:27017/');
    const msg = `connect failed for ${uri}; server said: bad password hunter22`;
    const out = redactText(msg, uri);
    assert.ok(!out.includes('hunter22'), out);
    assert.match(out, /connect failed for mongodb:\/\/<credentials>@db0:27017\//);
    assert.equal(redactText('the secret is s3cret', 'mongodb://db0/', 's3cret'), 'the secret is ****');
  });
});
