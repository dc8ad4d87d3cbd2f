/** The filter box of Create TTL Index: mongosh syntax as well as JSON (issue 18.4). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Long } from 'bson';
import { parseFilterText } from '../../../src/extension/logic/filter-text';

describe('parseFilterText', () => {
  it('reads mongosh syntax, JSON and extended JSON', () => {
    assert.deepEqual(parseFilterText('{status: "done"}'), { ok: true, filter: { status: 'done' } });
    assert.deepEqual(parseFilterText(`{kind: {$in: ['a', 'b']}}`), { ok: true, filter: { kind: { $in: ['a', 'b'] } } });
    assert.deepEqual(parseFilterText('{"status": "done"}'), { ok: true, filter: { status: 'done' } });
    const d = parseFilterText('{at: {$lt: ISODate("2026-01-01T00:00:00Z")}}');
    assert.ok(d.ok);
    assert.deepEqual(d.filter, { at: { $lt: new Date('2026-01-01T00:00:00Z') } });
    const ej = parseFilterText('{"at": {"$date": "2026-01-01T00:00:00Z"}}');
    assert.ok(ej.ok);
    assert.deepEqual(ej.filter, { at: new Date('2026-01-01T00:00:00Z') });
    const n = parseFilterText('{n: NumberLong(5)}');
    assert.ok(n.ok && Long.isLong((n.filter as { n: unknown }).n));
    assert.deepEqual(parseFilterText('  '), { ok: true, filter: undefined });
  });

  it('keeps __proto__ as a field name', () => {
    const r = parseFilterText('{"__proto__": 1}');
    assert.ok(r.ok);
    assert.deepEqual(Object.keys(r.filter!), ['__proto__']);
    assert.equal(Object.getPrototypeOf(r.filter), Object.prototype);
  });

  it('refuses what is not a document, and values only known at run time, saying what to type', () => {
    const dur = parseFilterText('1h');
    assert.ok(!dur.ok);
    assert.match(dur.error, /a document in braces/);
    const bad = parseFilterText('{status: }');
    assert.ok(!bad.ok);
    assert.match(bad.error, /Cannot read the filter/);
    const now = parseFilterText('{at: {$lt: new Date()}}');
    assert.ok(!now.ok);
    assert.match(now.error, /at\.\$lt is only known when code runs/);
    const v = parseFilterText('{status: someVariable}');
    assert.ok(!v.ok);
    assert.match(v.error, /status is only known/);
  });
});
