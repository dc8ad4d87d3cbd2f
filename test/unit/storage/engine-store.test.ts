/**
 * An engine on a data folder (durable storage issue): everything persists — documents with exact
 * BSON types, collection options of every kind, index specs with expireAfterSeconds (legacy NaN
 * too), parameters, TTL metrics, the virtual clock — through the journal alone, through a
 * snapshot, and through a snapshot plus later writes. TTL deletions are journaled like any delete.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Binary, BSON, Decimal128, EJSON, Int32, Long, ObjectId, Timestamp } from 'bson';
import { encodeFrame } from '../../../src/storage/frames';
import { Engine, loadLegacyIndexSpec, VirtualClock, type Document } from '../../../src/engine';
import {
  clearDataFolder,
  closeStoredEngine,
  compact,
  openStoredEngine,
  type OpenedEngine,
} from '../../../src/storage/engine-store';
import { prng } from '../helpers/prng';
import { exportDatabaseText, importDatabaseText } from '../../../src/engine/storage/export';
import { dump } from './engine-state';

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-engine-store-'));

function open(
  dir: string,
  startMs = T0,
  flavor: 'mongodb' | 'cosmos' = 'mongodb',
): OpenedEngine & { clock: VirtualClock } {
  const clock = new VirtualClock(startMs);
  const opened = openStoredEngine(dir, { engine: { clock, flavor } });
  return { ...opened, clock };
}

function close(o: OpenedEngine): void {
  closeStoredEngine(o);
}

/** A workload touching every kind of stored state. */
function workload(engine: Engine, clock: VirtualClock): void {
  const app = engine.db('app');
  engine.runCommand('app', {
    createIndexes: 'events',
    indexes: [
      { key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 },
      { key: { kind: 1 }, name: 'kind_1', partialFilterExpression: { kind: 'x' } },
    ],
  });
  app.collection('events').insertMany([
    {
      _id: 1,
      t: new Date(T0 - 2 * HOUR),
      n: 20,
      i: new Int32(20),
      l: Long.fromString('9007199254740993'),
      dec: Decimal128.fromString('1.50'),
      ts: new Timestamp({ t: 1, i: 2 }),
      neg0: -0,
    },
    { _id: 2, t: new Date(T0 + HOUR), kind: 'x', nested: { a: [1, new Int32(2), { b: new Date(0) }] } },
    { _id: 'three', t: 'not a date' },
    { _id: new ObjectId('65a1b2c3d4e5f60718293a4b'), t: [new Date(T0 + 5 * HOUR), new Date(T0 - 10 * HOUR)] },
  ]);
  engine.runCommand('app', {
    update: 'events',
    updates: [{ q: { _id: 2 }, u: { $set: { n: 1.5 }, $inc: { c: new Int32(1) } } }],
  });
  engine.runCommand('app', { delete: 'events', deletes: [{ q: { _id: 'three' }, limit: 1 }] });
  engine.runCommand('app', { collMod: 'events', index: { name: 't_1', expireAfterSeconds: 1800 } });
  engine.runCommand('app', { collMod: 'events', index: { name: 'kind_1', hidden: true } });
  engine.runCommand('app', { create: 'log', capped: true, size: 4096, max: 3 });
  for (let i = 0; i < 5; i++) app.collection('log').insertOne({ i });
  engine.runCommand('app', {
    create: 'sessions',
    clusteredIndex: { key: { _id: 1 }, unique: true },
    expireAfterSeconds: 600,
  });
  app.collection('sessions').insertMany([{ _id: new Date(T0 - HOUR) }, { _id: new Date(T0 + HOUR) }]);
  engine.runCommand('app', {
    create: 'metrics',
    timeseries: { timeField: 'at', metaField: 'm', granularity: 'minutes' },
    expireAfterSeconds: 86400,
  });
  engine.runCommand('app', {
    createIndexes: 'metrics',
    indexes: [{ key: { at: 1 }, name: 'dbg', expireAfterSeconds: 60, partialFilterExpression: { m: 'debug' } }],
  });
  app.collection('metrics').insertMany([
    { at: new Date(T0), m: 'debug', v: 1 },
    { at: new Date(T0), m: 'info', v: new Int32(2) },
  ]);
  loadLegacyIndexSpec(engine, 'app', 'legacy', { key: { purgeAt: 1 }, name: 'purgeAt_1', expireAfterSeconds: NaN });
  engine.runCommand('app', { insert: 'old', documents: [{ _id: 1 }] });
  engine.runCommand('admin', { renameCollection: 'app.old', to: 'other.renamed' });
  // A conversion is one command, so one journal frame: a temporary collection, a drop and a rename.
  engine.runCommand('app', { insert: 'toCap', documents: [{ _id: 1 }, { _id: 2 }] });
  engine.runCommand('app', { convertToCapped: 'toCap', size: 4096 });
  engine.runCommand('app', { cloneCollectionAsCapped: 'toCap', toCollection: 'capCopy', size: 8192 });
  engine.runCommand('app', { insert: 'gone', documents: [{ _id: 1 }] });
  engine.runCommand('app', { drop: 'gone' });
  engine.runCommand('admin', { setParameter: 1, ttlMonitorSleepSecs: 30 });
  engine.runCommand('admin', { setParameter: 1, ttlIndexDeleteTargetDocs: 1234 });
  // TTL passes delete through the journal too: _id 1 (t two hours ago) and the old session.
  clock.advance(31_000);
}

describe('engine on a data folder', () => {
  it('everything persists through the journal alone: documents with their types, every collection kind, specs (NaN too), parameters, metrics, clock', () => {
    const dir = tmpDir();
    const a = open(dir);
    workload(a.engine, a.clock);
    assert.ok(a.engine.ttlMetrics.deletedDocuments >= 2, 'the TTL pass deleted');
    const before = dump(a.engine);
    const at = a.clock.now();
    close(a);
    const b = open(dir);
    assert.equal(dump(b.engine), before);
    assert.ok(b.clock.now() >= at, 'time never runs backwards across a reopen');
    assert.deepEqual(b.notes, []);
    assert.ok(b.recovery.journalRecords > 10);
    // The NaN index loads as the spec says: listed as 2147483647, still NaN in the catalog.
    const legacy = b.engine.getCollection('app', 'legacy')!.indexes.get('purgeAt_1')!;
    assert.ok(Number.isNaN(legacy.spec.expireAfterSeconds));
    close(b);
  });

  it('the same state through a compaction (snapshot + the journal after it), and more writes after the snapshot', async () => {
    const dir = tmpDir();
    const a = open(dir);
    workload(a.engine, a.clock);
    const result = await compact(a.engine, a.store);
    assert.ok(result.bytes > 0 && result.documents > 0);
    a.engine
      .db('app')
      .collection('events')
      .insertOne({ _id: 'after', t: new Date(T0) });
    a.engine.runCommand('app', { collMod: 'events', index: { name: 't_1', expireAfterSeconds: 7200 } });
    const before = dump(a.engine);
    close(a);
    assert.deepEqual(
      fs
        .readdirSync(dir)
        .filter((f) => !f.startsWith('LOCK'))
        .sort(),
      ['journal-1.ttlj', 'snapshot-1.ttls', 'ttl-store.manifest', 'ttl-workbench.json'],
    );
    const b = open(dir);
    assert.equal(b.recovery.snapshot, 1);
    assert.equal(dump(b.engine), before);
    close(b);
  });

  it('TTL keeps working after a reopen: documents expire by their stored dates and the stored expireAfterSeconds', () => {
    const dir = tmpDir();
    const a = open(dir);
    a.engine.runCommand('app', {
      createIndexes: 'c',
      indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 }],
    });
    a.engine
      .db('app')
      .collection('c')
      .insertMany([
        { _id: 1, t: new Date(T0) },
        { _id: 2, t: new Date(T0 + 2 * HOUR) },
      ]);
    close(a);
    const b = open(dir);
    b.clock.advance(HOUR + 60_000);
    assert.deepEqual(
      b.engine
        .db('app')
        .collection('c')
        .find({})
        .map((d) => d._id),
      [2],
    );
    close(b);
    const c = open(dir);
    assert.deepEqual(
      c.engine
        .db('app')
        .collection('c')
        .find({})
        .map((d) => d._id),
      [2],
      'the TTL delete was journaled',
    );
    assert.ok(c.clock.now() >= T0 + HOUR, 'at least the time of the stored TTL delete');
    close(c);
  });

  it('a clock move without writes is kept: persisted by persistClock, and by a clean close', () => {
    const dir = tmpDir();
    const a = open(dir);
    a.engine.db('app').collection('c').insertOne({ _id: 1 });
    a.clock.advance(10 * HOUR);
    a.engine.persistClock();
    // A kill -9 here keeps 10 h; the clean close below keeps 12 h.
    a.clock.advance(2 * HOUR);
    closeStoredEngine(a);
    const b = open(dir);
    assert.equal(b.clock.now(), T0 + 12 * HOUR);
    close(b);
  });

  it('Cosmos flavor: each document keeps its _ts, so per-document ttl expires from the original write', () => {
    const dir = tmpDir();
    const a = open(dir, T0, 'cosmos');
    a.engine.runCommand('app', {
      createIndexes: 'items',
      indexes: [{ key: { _ts: 1 }, name: '_ts_1', expireAfterSeconds: 3600 }],
    });
    a.engine
      .db('app')
      .collection('items')
      .insertOne({ _id: 1, ttl: new Int32(600) });
    a.clock.advance(300_000); // written at T0; 5 min later the document has 5 min left
    a.engine.persistClock();
    close(a);
    const b = open(dir, T0, 'cosmos');
    assert.equal(b.meta.flavor, 'cosmos');
    b.clock.advance(240_000); // T0 + 9 min: alive
    assert.equal(b.engine.db('app').collection('items').countDocuments({}), 1);
    b.clock.advance(120_000); // T0 + 11 min: a pass after T0 + 10 min deleted it
    assert.equal(b.engine.db('app').collection('items').countDocuments({}), 0);
    close(b);
  });

  it('a folder keeps its flavor: opening it as another flavor says so and opens it as stored', () => {
    const dir = tmpDir();
    close(open(dir, T0, 'cosmos'));
    const b = open(dir, T0, 'mongodb');
    assert.equal(b.engine.flavor, 'cosmos');
    assert.match(b.notes[0], /holds a cosmos 8\.0 engine; it opens as such/);
    close(b);
  });
});

describe('engine on a damaged data folder', () => {
  /** A folder whose journal holds commands 0..n-1, each inserting {_id: i}. */
  function folderWith(n: number): { dir: string; journal: string } {
    const dir = tmpDir();
    const a = open(dir);
    for (let i = 0; i < n; i++)
      a.engine
        .db('app')
        .collection('c')
        .insertOne({ _id: i, pad: 'x'.repeat(i % 13) });
    a.engine.close();
    a.store.close(); // no clean-close frame: the journal ends with the last insert
    return { dir, journal: path.join(dir, 'journal-0.ttlj') };
  }

  const idsIn = (o: OpenedEngine) =>
    o.engine
      .db('app')
      .collection('c')
      .find({})
      .map((d) => d._id as number);

  it('a journal truncated at random byte offsets always opens, with the whole commands before the cut', () => {
    const { dir, journal } = folderWith(40);
    const original = fs.readFileSync(journal);
    const manifest = fs.readFileSync(path.join(dir, 'ttl-store.manifest'));
    let previous = -1;
    for (const cut of [
      0,
      1,
      7,
      8,
      9,
      ...Array.from({ length: 40 }, (_, i) => Math.floor(((i + 1) * original.length) / 41)),
      original.length - 1,
    ]) {
      // Each cut starts from the folder as closed (a recovery saves a snapshot of what it found).
      for (const f of fs.readdirSync(dir)) if (/^(journal|snapshot)-/.test(f)) fs.rmSync(path.join(dir, f));
      fs.writeFileSync(path.join(dir, 'ttl-store.manifest'), manifest);
      fs.writeFileSync(journal, original.subarray(0, cut));
      const o = open(dir);
      const ids = idsIn(o);
      // A prefix: ids 0..k-1 in order (the collection's creation is in the first frame).
      assert.deepEqual(
        ids,
        Array.from({ length: ids.length }, (_, i) => i),
        `cut at ${cut}`,
      );
      assert.ok(ids.length >= previous || cut === 0, 'a longer file never recovers less');
      previous = ids.length;
      if (cut < original.length && cut > 0)
        assert.match(o.notes.join('\n'), /torn last record|damaged at byte offset/, `cut at ${cut} is reported`);
      // The clean close's manifest knows how many records there were: any cut is a loss, said as such.
      if (cut < original.length)
        assert.match(
          o.notes.join('\n'),
          /were committed, but the files hold only \d+: journal-0\.ttlj was cut short/,
          `cut at ${cut} is a reported loss`,
        );
      o.engine.close();
      o.store.close();
    }
  });

  it('random flipped bytes: recovery stops at the damaged commit, reports its offset, and never crashes', () => {
    const rand = prng(42);
    const { dir, journal } = folderWith(40);
    const original = fs.readFileSync(journal);
    for (let round = 0; round < 25; round++) {
      const damaged = Buffer.from(original);
      const at = Math.floor(rand() * original.length);
      damaged[at] ^= 1 + Math.floor(rand() * 255);
      // Each round starts from the damaged journal alone (a round's recovery saves a snapshot).
      for (const f of fs.readdirSync(dir))
        if (f.startsWith('journal-') || f.startsWith('snapshot-') || f === 'ttl-store.manifest')
          fs.rmSync(path.join(dir, f));
      fs.writeFileSync(journal, damaged);
      const o = open(dir);
      const ids = idsIn(o);
      assert.deepEqual(
        ids,
        Array.from({ length: ids.length }, (_, i) => i),
        `flip at ${at}`,
      );
      assert.ok(ids.length < 40, `flip at ${at}: the damaged commit and those after it are not applied`);
      assert.match(o.notes.join('\n'), /damaged at byte offset \d+|torn last record/, `flip at ${at} is reported`);
      o.engine.close();
      o.store.close();
    }
  });
});

describe('clearing a folder on close', () => {
  it('runs while the lock is still held (a reset: no other window opens the folder half cleared), and leaves nothing of the stored state', () => {
    const dir = tmpDir();
    const a = open(dir);
    a.engine
      .db('app')
      .collection('c')
      .insertMany([{ _id: 1 }, { _id: 2 }]);
    let lockHeld = false;
    closeStoredEngine(a, () => {
      lockHeld = fs.existsSync(path.join(dir, 'LOCK'));
      clearDataFolder(dir);
    });
    assert.equal(lockHeld, true);
    assert.deepEqual(fs.readdirSync(dir), []);
    const b = open(dir);
    assert.deepEqual([b.documents, b.notes], [0, []]);
    close(b);
  });
});

describe("files larger than the reader's window", () => {
  it('binary values come back byte for byte (a decoded Binary must not stay a view of the reused read window)', () => {
    const dir = tmpDir();
    const a = open(dir);
    const bytesOf = (i: number) => Buffer.alloc(50_000, i % 251);
    for (let i = 0; i < 120; i++)
      a.engine.runCommand('app', {
        insert: 'b',
        documents: [{ _id: i, bin: new Binary(bytesOf(i)), uuid: new Binary(Buffer.alloc(16, i), 4) }],
      });
    close(a);
    assert.ok(
      fs.statSync(path.join(dir, 'journal-0.ttlj')).size > 4 * 1024 * 1024,
      'the journal spans several windows',
    );
    const b = open(dir);
    const wrong = b.engine
      .db('app')
      .collection('b')
      .find({})
      .filter(
        (d) =>
          !Buffer.from((d.bin as Binary).buffer).equals(bytesOf(d._id as number)) ||
          !Buffer.from((d.uuid as Binary).buffer).equals(Buffer.alloc(16, d._id as number)),
      );
    assert.deepEqual(
      wrong.map((d) => d._id),
      [],
    );
    close(b);
  });

  it('a snapshot over the window is checked in one pass and applied in a second: every document back exactly, binaries included', async () => {
    const dir = tmpDir();
    const a = open(dir);
    const bytesOf = (i: number) => Buffer.alloc(40_000, (i * 7) % 251);
    for (let i = 0; i < 150; i++)
      a.engine.runCommand('app', {
        insert: 'b',
        documents: [{ _id: new ObjectId(), i, bin: new Binary(bytesOf(i)), n: new Int32(i) }],
      });
    const before = dump(a.engine);
    await compact(a.engine, a.store);
    close(a);
    assert.ok(
      fs.statSync(path.join(dir, 'snapshot-1.ttls')).size > 4 * 1024 * 1024,
      'the snapshot spans several windows',
    );
    const b = open(dir);
    assert.equal(b.recovery.snapshot, 1);
    assert.equal(dump(b.engine), before);
    close(b);
  });
});

describe('records that pass their checksum but are not what an engine writes', () => {
  it('are damage at their offset (reported, kept aside), never an internal error; the commits before them are recovered, none of their ops applied', () => {
    const bad: Array<[string, Document]> = [
      ['an op list that is a number', { t: new Date(T0), ops: 5 }],
      [
        'a put of a number',
        {
          t: new Date(T0),
          ops: [
            { put: 'app.c', d: { _id: 'half', x: 1 } },
            { put: 'app.c', d: 7 },
          ],
        },
      ],
      ['an index list that is a number', { t: new Date(T0), ops: [{ cat: 'app.c', o: {}, ix: 3 }] }],
      ['an op of no known kind', { t: new Date(T0), ops: [{ upsert: 'app.c' }] }],
      ['a time that is a string', { t: 'yesterday', ops: [] }],
    ];
    for (const [what, record] of bad) {
      const dir = tmpDir();
      const a = open(dir);
      a.engine
        .db('app')
        .collection('c')
        .insertMany([{ _id: 1 }, { _id: 2 }]);
      close(a);
      const journal = path.join(dir, 'journal-0.ttlj');
      const goodEnd = fs.statSync(journal).size;
      fs.appendFileSync(journal, encodeFrame(BSON.serialize(record)));
      const b = open(dir);
      assert.deepEqual(
        b.engine
          .db('app')
          .collection('c')
          .find({})
          .map((d) => d._id),
        [1, 2],
        `${what}: the earlier commits, and nothing of the bad one`,
      );
      assert.match(
        b.notes.join('\n'),
        new RegExp(
          `journal-0\\.ttlj: damaged at byte offset ${goodEnd} \\(a record passes its CRC-32 check but cannot be applied`,
        ),
        what,
      );
      assert.ok(
        fs.readdirSync(dir).some((f) => f.startsWith('journal-0.ttlj.damaged-')),
        `${what}: kept aside`,
      );
      close(b);
      const c = open(dir);
      assert.deepEqual(c.notes, [], `${what}: the next open is clean`);
      assert.equal(c.engine.db('app').collection('c').countDocuments({}), 2);
      close(c);
    }
  });
});

describe('background compaction', () => {
  it('starts once the journal passes compactAfterBytes, between commands, and loses nothing', async () => {
    const dir = tmpDir();
    const results: unknown[] = [];
    const clock = new VirtualClock(T0);
    const o = openStoredEngine(dir, {
      compactAfterBytes: 20_000,
      engine: { clock },
      onCompaction: (r) => results.push(r),
    });
    for (let i = 0; i < 400; i++)
      o.engine
        .db('app')
        .collection('c')
        .insertOne({ _id: i, pad: 'x'.repeat(40) });
    assert.equal(results.length, 0, 'nothing ran inside the commands');
    while (results.length === 0) await new Promise((r) => setTimeout(r, 5));
    assert.ok(!(results[0] instanceof Error), String(results[0]));
    for (let i = 400; i < 410; i++) o.engine.db('app').collection('c').insertOne({ _id: i });
    closeStoredEngine(o);
    const files = fs.readdirSync(dir);
    assert.ok(
      files.some((f) => /^snapshot-\d+\.ttls$/.test(f)),
      files.join(', '),
    );
    const b = openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) } });
    assert.equal(b.engine.getCollection('app', 'c')!.count, 410);
    assert.ok(b.recovery.snapshot !== undefined);
    closeStoredEngine(b);
  });
});

describe('export and import', () => {
  it('export → import into a fresh engine gives byte-identical listIndexes and documents (every collection kind, NaN index included)', () => {
    const engine = new Engine({ clock: new VirtualClock(T0) });
    workload(engine, engine.clock as VirtualClock);
    const text = exportDatabaseText(engine, 'app');
    const fresh = new Engine({ clock: new VirtualClock(T0) });
    const summary = importDatabaseText(fresh, text);
    assert.equal(summary.database, 'app');
    const view = (e: Engine) => {
      const out: Document = {};
      for (const c of ((e.runCommand('app', { listCollections: 1 }).cursor as Document).firstBatch as Document[])
        .map((x) => String(x.name))
        .sort()) {
        out[c] = {
          indexes: (e.runCommand('app', { listIndexes: c }).cursor as Document).firstBatch,
          docs: (e.runCommand('app', { find: c, batchSize: 100_000 }).cursor as Document).firstBatch,
          options: (
            (e.runCommand('app', { listCollections: 1, filter: { name: c } }).cursor as Document)
              .firstBatch as Document[]
          )[0].options,
        };
      }
      return EJSON.stringify(out, { relaxed: false });
    };
    assert.equal(view(fresh), view(engine));
    assert.ok(
      Number.isNaN(fresh.getCollection('app', 'legacy')!.indexes.get('purgeAt_1')!.spec.expireAfterSeconds),
      'the legacy NaN stays NaN in the catalog',
    );
    const names = (
      (fresh.runCommand('app', { listCollections: 1, nameOnly: true }).cursor as Document).firstBatch as Document[]
    )
      .map((c) => `app.${String(c.name)}`)
      .sort();
    assert.throws(
      () => importDatabaseText(fresh, text),
      (err: Error & { code?: number }) =>
        err.code === 48 &&
        err.message.startsWith(`${names.join(', ')} already exist: import into another database, or drop them first`),
    );
    assert.equal(importDatabaseText(fresh, text, 'copy').collections, summary.collections);
  });
});
