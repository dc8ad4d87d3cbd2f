/**
 * A playground notebook's `"connection"` metadata (issue 21): a saved connection's name runs its
 * cells there; anything else, or a connection beside an embedded-engine request, is refused with
 * what to write instead. The toolbar's Run On… writes the same key.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { connectionRequestOf, headerWithConnection } from '../../../src/extension/logic/notebook-connection';

describe('notebook connection metadata', () => {
  test('no connection key: the embedded engine', () => {
    assert.deepEqual(connectionRequestOf({ title: 'x' }), {});
  });

  test('a name: the notebook runs on that saved connection', () => {
    assert.deepEqual(connectionRequestOf({ connection: 'staging' }), { connection: 'staging' });
  });

  test('a value that is not a name is refused, quoting it', () => {
    for (const bad of [42, '', '  ', { name: 'x' }]) {
      const r = connectionRequestOf({ connection: bad });
      assert.ok('error' in r, JSON.stringify(bad));
      assert.match(r.error, /must be the name of a saved connection/);
    }
  });

  test('a connection beside an engine request is refused: a notebook runs on one of them', () => {
    const r = connectionRequestOf({ connection: 'staging', engine: { isolated: true } });
    assert.ok('error' in r);
    assert.match(r.error, /Remove "engine" to run on the connection/);
  });

  test('Run On… sets the connection and drops an engine request; the embedded engine removes the key', () => {
    const header = { title: 'T', engine: { isolated: true } };
    const on = headerWithConnection(header, 'staging');
    assert.deepEqual(on, { title: 'T', connection: 'staging' });
    assert.deepEqual(connectionRequestOf(on), { connection: 'staging' });
    assert.deepEqual(headerWithConnection(on, undefined), { title: 'T' });
    assert.deepEqual(header, { title: 'T', engine: { isolated: true } }, 'the header given is not changed');
  });
});
