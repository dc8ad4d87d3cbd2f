/**
 * Nesting limits on durable storage and on EJSON import: a write refused for its depth (code 15,
 * Overflow) reaches neither the journal nor a reopened engine, and an import refuses a document
 * too deep to store, or EJSON text nested 100,000 levels, before it creates anything.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EJSON } from 'bson';
import { Engine, VirtualClock, type Document } from '../../../src/engine';
import { closeStoredEngine, openStoredEngine } from '../../../src/storage/engine-store';
import { exportDatabaseText, importDatabaseText } from '../../../src/engine/storage/export';
import { expectError } from '../helpers/expect-error';

const T0 = Date.UTC(2026, 0, 1);
const DEEP = 100_000;

function nested(levels: number): Document {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v as Document;
}

const pathOf = (n: number): string => 'a' + '.a'.repeat(n - 1);

function snapshot(engine: Engine): string {
  const docs = (engine.runCommand('app', { find: 'c', batchSize: 1000 }).cursor as Document).firstBatch;
  const indexes = (engine.runCommand('app', { listIndexes: 'c' }).cursor as Document).firstBatch;
  return EJSON.stringify({ docs, indexes }, { relaxed: false });
}

describe('refused deep writes on a durable engine', () => {
  it('writes refused for nesting (181 levels, 100,000 levels, a 100,000-component path) leave the journal and a reopened engine unchanged', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-depth-'));
    const a = openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) } });
    a.engine.runCommand('app', {
      insert: 'c',
      documents: [
        { _id: 1, k: 1 },
        { _id: 2, ...nested(180) },
      ],
    });
    a.engine.runCommand('app', { createIndexes: 'c', indexes: [{ key: { a: 1 }, name: 'a_1' }] });
    const before = snapshot(a.engine);
    const journalBytes = () =>
      fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.ttlj'))
        .reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
    const journalBefore = journalBytes();
    const refused = [
      { insert: 'c', documents: [{ _id: 3, ...nested(181) }] },
      { insert: 'c', documents: [{ _id: 4, ...nested(DEEP) }] },
      { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { [pathOf(DEEP)]: 1 } } }] },
      { update: 'c', updates: [{ q: { _id: 5 }, u: { $set: { [pathOf(181)]: 1 } }, upsert: true }] },
    ];
    for (const cmd of refused) {
      const reply = a.engine.runCommand('app', cmd);
      assert.equal((reply.writeErrors as Document[])[0].code, 15);
    }
    expectError(
      () => a.engine.runCommand('app', { findAndModify: 'c', query: { _id: 1 }, update: { x: nested(DEEP) } }),
      15,
      undefined,
      'Overflow',
    );
    assert.equal(snapshot(a.engine), before);
    assert.equal(journalBytes(), journalBefore);
    closeStoredEngine(a);
    const b = openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) } });
    assert.equal(snapshot(b.engine), before);
    closeStoredEngine(b);
  });
});

describe('EJSON import refuses too-deep data before it creates anything', () => {
  function exported(docs: Document[]): string {
    const source = new Engine();
    source.runCommand('app', { insert: 'c', documents: [{ _id: 1 }] });
    const text = exportDatabaseText(source, 'app');
    const parsed = EJSON.parse(text, { relaxed: false }) as Document;
    (parsed.collections as Document[])[0].documents = docs;
    return EJSON.stringify(parsed, { relaxed: false });
  }

  it('an export holding a document 180 levels deep imports; 181 levels is refused with Overflow and creates nothing', () => {
    const ok = new Engine();
    assert.equal(importDatabaseText(ok, exported([{ _id: 1, ...nested(180) }])).documents, 1);
    const fresh = new Engine();
    expectError(
      () => importDatabaseText(fresh, exported([{ _id: 1 }, { _id: 2, ...nested(181) }])),
      15,
      /more than 180 levels/,
      'Overflow',
    );
    assert.deepEqual(fresh.runCommand('admin', { listDatabases: 1, nameOnly: true }).databases, []);
  });

  it('EJSON text nested 100,000 levels is refused with Overflow (no stack overflow) and creates nothing', () => {
    const fresh = new Engine();
    const deepText = exported([]).replace(
      '"documents":[]',
      `"documents":[${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}]`,
    );
    assert.notEqual(deepText, exported([]));
    expectError(() => importDatabaseText(fresh, deepText), 15, /nests more than 202 levels/, 'Overflow');
    assert.deepEqual(fresh.runCommand('admin', { listDatabases: 1, nameOnly: true }).databases, []);
  });
});
