/**
 * Files MongoDB's own tools read (issue 18.10): canonical EJSON per document, one per line or as a
 * --jsonArray, that read back to the same BSON types; and the mongosh script of collections and
 * indexes, run here through the shell on the engine, which recreates what was exported.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal128, Int32, Long, ObjectId } from 'bson';
import { Engine, VirtualClock } from '../../../src/engine';
import {
  canonicalLine,
  collectionFileName,
  createIndexesScript,
  parseDocumentsFile,
  retargetScript,
  scriptCollections,
  scriptDatabase,
} from '../../../src/formats/mongo-tools';
import { ShellSession } from '../../../src/shell/session';

const NOW = Date.UTC(2030, 0, 1);

describe('mongoimport files', () => {
  it('writes canonical EJSON that keeps every type: a double stays a double (not $numberInt), Int32, Long, Decimal128, dates', () => {
    const doc = {
      _id: new ObjectId('65a1b2c3d4e5f60718293a4b'),
      d: 5,
      f: 1.5,
      i: new Int32(5),
      l: Long.fromNumber(7),
      m: Decimal128.fromString('1.10'),
      at: new Date(0),
      nested: [{ x: 2 }],
    };
    const line = canonicalLine(doc);
    assert.equal(
      line,
      '{"_id":{"$oid":"65a1b2c3d4e5f60718293a4b"},"d":{"$numberDouble":"5.0"},"f":{"$numberDouble":"1.5"},"i":{"$numberInt":"5"},"l":{"$numberLong":"7"},"m":{"$numberDecimal":"1.10"},"at":{"$date":{"$numberLong":"0"}},"nested":[{"x":{"$numberDouble":"2.0"}}]}',
    );
    const [back] = parseDocumentsFile(`${line}\n`);
    assert.equal((back.d as { _bsontype: string })._bsontype, 'Double');
    assert.equal((back.i as { _bsontype: string })._bsontype, 'Int32');
    assert.equal((back.l as { _bsontype: string })._bsontype, 'Long');
  });

  it('keeps a field named __proto__ as a field', () => {
    const doc = JSON.parse('{"__proto__": {"a": 1}}') as Record<string, unknown>;
    assert.equal(canonicalLine(doc), '{"__proto__":{"a":{"$numberDouble":"1.0"}}}');
  });

  it('reads line-delimited and --jsonArray files, canonical or relaxed, and names the line that is not a document', () => {
    assert.deepEqual(parseDocumentsFile('{"a":1}\n\n{"a":{"$numberInt":"2"}}\n').length, 2);
    assert.equal(parseDocumentsFile('[{"a":1},{"b":2}]').length, 2);
    assert.deepEqual(parseDocumentsFile('  '), []);
    assert.throws(() => parseDocumentsFile('{"a":1}\n[1]\n'), /Line 2 is not a document/);
    assert.throws(() => parseDocumentsFile('{"a":1}\n{oops\n'), /Line 2 is not Extended JSON/);
    assert.throws(() => parseDocumentsFile('[1]'), /Element 0 is not a document/);
  });

  it('file names are the collection names, with characters no file system takes replaced', () => {
    assert.equal(collectionFileName('events'), 'events.json');
    assert.equal(collectionFileName('a/b:c'), 'a_b_c.json');
  });

  it('the script says how to import, and mongosh-runs (here: the shell on the engine) into the same collections, options and indexes, TTL included', () => {
    const source = new Engine({ clock: new VirtualClock(NOW) });
    source.runCommand('app', {
      create: 'logs',
      clusteredIndex: { key: { _id: 1 }, unique: true },
      expireAfterSeconds: 3600,
    });
    source.runCommand('app', {
      create: 'weather',
      timeseries: { timeField: 'ts', metaField: 'm', granularity: 'hours' },
    });
    source.runCommand('app', {
      createIndexes: 'events',
      indexes: [
        { key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60, partialFilterExpression: { at: { $gt: new Date(0) } } },
        { key: { user: 1, at: -1 }, name: 'user_1_at_-1', unique: true },
      ],
    });
    const layouts = ['events', 'logs', 'weather'].map((name) => {
      const info = (
        source.runCommand('app', { listCollections: 1, filter: { name } }).cursor as {
          firstBatch: Array<{ options: Record<string, unknown> }>;
        }
      ).firstBatch[0];
      const indexes = (
        source.runCommand('app', { listIndexes: name }).cursor as { firstBatch: Array<Record<string, unknown>> }
      ).firstBatch;
      return { name, options: info.options, indexes };
    });
    const script = createIndexesScript('app', layouts, ['events.json', 'logs.json', 'weather.json']);
    assert.match(script, /^\/\/ app: collections and indexes, for mongosh/);
    assert.match(
      script,
      /mongoimport --uri "mongodb:\/\/localhost:27017" --db "app" --collection "events" --file "events\.json"/,
    );
    assert.equal(scriptDatabase(script), 'app');
    assert.deepEqual(scriptCollections(script), ['events', 'logs', 'weather']);

    const target = new Engine({ clock: new VirtualClock(NOW) });
    const session = new ShellSession({ engine: target });
    const run = session.evaluate(retargetScript(script, 'copy'));
    assert.ok(
      run.statements.every((s) => s.ok),
      JSON.stringify(run.statements.find((s) => !s.ok)?.error),
    );
    const indexes = (
      target.runCommand('copy', { listIndexes: 'events' }).cursor as { firstBatch: Array<Record<string, unknown>> }
    ).firstBatch;
    const ttl = indexes.find((i) => i.name === 'at_1')!;
    assert.equal(Number(ttl.expireAfterSeconds), 60);
    assert.deepEqual(ttl.partialFilterExpression, { at: { $gt: new Date(0) } });
    assert.equal(indexes.find((i) => i.name === 'user_1_at_-1')!.unique, true);
    const logs = (
      target.runCommand('copy', { listCollections: 1, filter: { name: 'logs' } }).cursor as {
        firstBatch: Array<{ options: Record<string, unknown> }>;
      }
    ).firstBatch[0];
    assert.equal(Number(String(logs.options.expireAfterSeconds)), 3600);
    assert.ok(logs.options.clusteredIndex);
    const weather = (
      target.runCommand('copy', { listCollections: 1, filter: { name: 'weather' } }).cursor as {
        firstBatch: Array<{ options: { timeseries: Record<string, unknown> } }>;
      }
    ).firstBatch[0];
    assert.equal(weather.options.timeseries.granularity, 'hours');
    assert.throws(() => retargetScript('print(1)', 'x'), /target database line is missing/);
  });
});
