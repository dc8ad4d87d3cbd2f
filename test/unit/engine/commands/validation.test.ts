/**
 * Collection validators through the command path: create/collMod with validator,
 * validationLevel and validationAction; DocumentValidationFailure (121) with mongod's errInfo on
 * every write path; bypassDocumentValidation; the options in listCollections and across a reopen.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Int32 } from 'bson';
import { Engine, EngineError, VirtualClock, type Document } from '../../../../src/engine';
import { closeStoredEngine, openStoredEngine } from '../../../../src/storage/engine-store';
import { expectError } from '../../helpers/expect-error';

const T0 = Date.UTC(2026, 0, 1);

function firstBatch(reply: Document): Document[] {
  return (reply.cursor as Document).firstBatch as Document[];
}

function all(engine: Engine, coll: string): Document[] {
  return firstBatch(engine.runCommand('db', { find: coll, sort: { _id: 1 } }));
}

function info(engine: Engine, name: string, db = 'db'): Document {
  return firstBatch(engine.runCommand(db, { listCollections: 1, filter: { name } }))[0];
}

function withValidator(validator: Document, extra: Document = {}): Engine {
  const engine = new Engine({ clock: new VirtualClock(T0) });
  engine.runCommand('db', { create: 'c', validator, ...extra });
  return engine;
}

describe('validators: what a failing write returns', () => {
  it('insert: writeError 121 DocumentValidationFailure with failingDocumentId and $or details (manual: contacts)', () => {
    const engine = withValidator({
      $or: [
        { phone: { $type: 'string' } },
        { email: { $regex: /@mongodb\.com$/ } },
        { status: { $in: ['Unknown', 'Incomplete'] } },
      ],
    });
    const r = engine.runCommand('db', { insert: 'c', documents: [{ _id: 7, email: 'info@mongodb.co' }] });
    assert.equal(r.n, 0);
    const [e] = r.writeErrors as Document[];
    assert.equal(e.index, 0);
    assert.equal(e.code, 121);
    assert.equal(e.codeName, 'DocumentValidationFailure');
    assert.equal(e.errmsg, 'Document failed validation');
    assert.deepEqual(e.errInfo, {
      failingDocumentId: 7,
      details: {
        operatorName: '$or',
        clausesNotSatisfied: [
          {
            index: new Int32(0),
            details: {
              operatorName: '$type',
              specifiedAs: { phone: { $type: 'string' } },
              reason: 'field was missing',
            },
          },
          {
            index: new Int32(1),
            details: {
              operatorName: '$regex',
              specifiedAs: { email: { $regex: /@mongodb\.com$/ } },
              reason: 'regular expression did not match',
              consideredValue: 'info@mongodb.co',
            },
          },
          {
            index: new Int32(2),
            details: {
              operatorName: '$in',
              specifiedAs: { status: { $in: ['Unknown', 'Incomplete'] } },
              reason: 'field was missing',
            },
          },
        ],
      },
    });
    assert.equal(all(engine, 'c').length, 0, 'nothing was stored');
    engine.close();
  });

  it('a generated _id is the failingDocumentId; several conditions are an $and listing the failing ones', () => {
    const engine = withValidator({ a: { $gt: 5 }, b: { $exists: true } });
    const r = engine.runCommand('db', { insert: 'c', documents: [{ a: 3, b: 1 }] });
    const e = (r.writeErrors as Document[])[0];
    const info = e.errInfo as Document;
    assert.equal((info.failingDocumentId as { _bsontype?: string })._bsontype, 'ObjectId');
    assert.deepEqual(info.details, {
      operatorName: '$and',
      clausesNotSatisfied: [
        {
          index: new Int32(0),
          details: {
            operatorName: '$gt',
            specifiedAs: { a: { $gt: 5 } },
            reason: 'comparison failed',
            consideredValue: 3,
          },
        },
      ],
    });
    engine.close();
  });

  it('$expr validator: expression did not match, with the expression result', () => {
    const engine = withValidator({ $expr: { $lte: ['$reserved', '$qty'] } });
    const r = engine.runCommand('db', { insert: 'c', documents: [{ _id: 1, qty: 1, reserved: 2 }] });
    assert.deepEqual((r.writeErrors as Document[])[0].errInfo, {
      failingDocumentId: 1,
      details: {
        operatorName: '$expr',
        specifiedAs: { $expr: { $lte: ['$reserved', '$qty'] } },
        reason: 'expression did not match',
        expressionResult: false,
      },
    });
    engine.runCommand('db', { insert: 'c', documents: [{ _id: 2, qty: 2, reserved: 2 }] });
    assert.deepEqual(
      all(engine, 'c').map((d) => d._id),
      [2],
    );
    engine.close();
  });

  it('$ne, $nin and $not report the inverted reason', () => {
    const engine = withValidator({ a: { $ne: 1 }, b: { $nin: [2] }, c: { $not: { $gt: 5 } } });
    const r = engine.runCommand('db', { insert: 'c', documents: [{ _id: 1, a: 1, b: 2, c: 9 }] });
    const details = ((r.writeErrors as Document[])[0].errInfo as Document).details as Document;
    assert.deepEqual(details.clausesNotSatisfied, [
      {
        index: new Int32(0),
        details: {
          operatorName: '$ne',
          specifiedAs: { a: { $ne: 1 } },
          reason: 'comparison succeeded',
          consideredValue: 1,
        },
      },
      {
        index: new Int32(1),
        details: {
          operatorName: '$nin',
          specifiedAs: { b: { $nin: [2] } },
          reason: 'matching value found in array',
          consideredValue: 2,
        },
      },
      {
        index: new Int32(2),
        details: {
          operatorName: '$not',
          details: {
            operatorName: '$gt',
            specifiedAs: { c: { $gt: 5 } },
            reason: 'comparison succeeded',
            consideredValue: 9,
          },
        },
      },
    ]);
    engine.close();
  });

  it('update, upsert, findAndModify and bulkWrite are validated too; delete is not', () => {
    const engine = withValidator({ $jsonSchema: { required: ['name'], properties: { qty: { minimum: 0 } } } });
    engine.runCommand('db', { insert: 'c', documents: [{ _id: 1, name: 'a', qty: 1 }] });
    const u = engine.runCommand('db', { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { qty: -1 } } }] });
    assert.equal((u.writeErrors as Document[])[0].code, 121);
    const up = engine.runCommand('db', {
      update: 'c',
      updates: [{ q: { _id: 2 }, u: { $set: { qty: 1 } }, upsert: true }],
    });
    assert.equal((up.writeErrors as Document[])[0].code, 121, 'the upserted document has no name');
    const e = expectError(
      () => engine.runCommand('db', { findAndModify: 'c', query: { _id: 1 }, update: { $unset: { name: 1 } } }),
      121,
      'Document failed validation',
      'DocumentValidationFailure',
    );
    assert.deepEqual((e.info?.errInfo as Document).failingDocumentId, 1);
    const bw = engine.runCommand('admin', {
      bulkWrite: 1,
      ops: [{ insert: 0, document: { _id: 3 } }],
      nsInfo: [{ ns: 'db.c' }],
    });
    assert.equal(bw.nErrors, 1);
    assert.equal(((bw.cursor as Document).firstBatch as Document[])[0].code, 121);
    assert.deepEqual(all(engine, 'c'), [{ _id: 1, name: 'a', qty: 1 }]);
    engine.runCommand('db', { delete: 'c', deletes: [{ q: {}, limit: 0 }] });
    assert.equal(all(engine, 'c').length, 0);
    engine.close();
  });

  it('$out and $merge into a validated collection are validated', () => {
    const engine = withValidator({ ok: true });
    engine.runCommand('db', { insert: 'src', documents: [{ _id: 1, ok: false }] });
    expectError(
      () => engine.runCommand('db', { aggregate: 'src', pipeline: [{ $merge: { into: 'c' } }], cursor: {} }),
      121,
    );
    expectError(() => engine.runCommand('db', { aggregate: 'src', pipeline: [{ $out: 'c' }], cursor: {} }), 121);
    assert.equal(all(engine, 'c').length, 0);
    engine.close();
  });
});

describe('validators: bypassDocumentValidation', () => {
  it('insert, update, findAndModify, bulkWrite and aggregate with $out/$merge skip the validator when asked', () => {
    const engine = withValidator({ ok: true });
    engine.runCommand('db', { insert: 'c', documents: [{ _id: 1 }], bypassDocumentValidation: true });
    engine.runCommand('db', {
      update: 'c',
      updates: [{ q: { _id: 1 }, u: { $set: { x: 1 } } }],
      bypassDocumentValidation: true,
    });
    engine.runCommand('db', {
      findAndModify: 'c',
      query: { _id: 1 },
      update: { $set: { y: 1 } },
      bypassDocumentValidation: true,
    });
    const bw = engine.runCommand('admin', {
      bulkWrite: 1,
      ops: [{ insert: 0, document: { _id: 2 } }],
      nsInfo: [{ ns: 'db.c' }],
      bypassDocumentValidation: true,
    });
    assert.equal(bw.nErrors, 0);
    engine.runCommand('db', { insert: 'src', documents: [{ _id: 3 }] });
    engine.runCommand('db', {
      aggregate: 'src',
      pipeline: [{ $merge: { into: 'c' } }],
      cursor: {},
      bypassDocumentValidation: true,
    });
    assert.deepEqual(
      all(engine, 'c').map((d) => d._id),
      [1, 2, 3],
    );
    engine.runCommand('db', {
      aggregate: 'src',
      pipeline: [{ $out: 'c' }],
      cursor: {},
      bypassDocumentValidation: true,
    });
    assert.deepEqual(all(engine, 'c'), [{ _id: 3 }]);
    // Only for that command: the next write is validated again.
    const r = engine.runCommand('db', { insert: 'c', documents: [{ _id: 4 }] });
    assert.equal((r.writeErrors as Document[])[0].code, 121);
    engine.close();
  });

  it('bypassDocumentValidation must be a boolean', () => {
    const engine = withValidator({ ok: true });
    expectError(
      () => engine.runCommand('db', { insert: 'c', documents: [{ _id: 1 }], bypassDocumentValidation: 'yes' }),
      14,
    );
    engine.close();
  });
});

describe('validators: validationLevel and validationAction', () => {
  it('moderate: an update of a document that already fails is not checked; of one that passes, it is', () => {
    const engine = new Engine({ clock: new VirtualClock(T0) });
    engine.runCommand('db', {
      insert: 'c',
      documents: [
        { _id: 1, n: -5 },
        { _id: 2, n: 5 },
      ],
    });
    engine.runCommand('db', { collMod: 'c', validator: { n: { $gte: 0 } }, validationLevel: 'moderate' });
    const r1 = engine.runCommand('db', { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { n: -6 } } }] });
    assert.equal(r1.nModified, 1, 'the document failed before: moderate lets the update through');
    const r2 = engine.runCommand('db', { update: 'c', updates: [{ q: { _id: 2 }, u: { $set: { n: -1 } } }] });
    assert.equal((r2.writeErrors as Document[])[0].code, 121);
    const r3 = engine.runCommand('db', { insert: 'c', documents: [{ _id: 3, n: -1 }] });
    assert.equal((r3.writeErrors as Document[])[0].code, 121, 'inserts are always checked');
    engine.runCommand('db', { collMod: 'c', validationLevel: 'strict' });
    const r4 = engine.runCommand('db', { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { n: -7 } } }] });
    assert.equal((r4.writeErrors as Document[])[0].code, 121, 'strict checks every update');
    engine.close();
  });

  it('off: nothing is checked', () => {
    const engine = withValidator({ n: { $gte: 0 } }, { validationLevel: 'off' });
    engine.runCommand('db', { insert: 'c', documents: [{ _id: 1, n: -1 }] });
    assert.equal(all(engine, 'c').length, 1);
    engine.close();
  });

  it('warn: the write goes through and the engine logs 20294 "Document would fail validation" with the details', () => {
    const engine = withValidator({ n: { $gte: 0 } }, { validationAction: 'warn' });
    const r = engine.runCommand('db', { insert: 'c', documents: [{ _id: 1, n: -1 }] });
    assert.equal(r.n, 1);
    const line = engine.logLines.find((l) => l.id === 20294);
    assert.ok(line);
    assert.equal(line.msg, 'Document would fail validation');
    assert.equal(line.attr?.namespace, 'db.c');
    assert.deepEqual((line.attr?.errInfo as Document).failingDocumentId, 1);
    engine.close();
  });

  it('bad levels and actions are refused: BadValue for unknown values (errorAndLog is 8.1), TypeMismatch for non-strings', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand('db', { create: 'c', validationLevel: 'loose' }), 2, /validationLevel/);
    expectError(() => engine.runCommand('db', { create: 'c', validationAction: 'errorAndLog' }), 2, /8\.1/);
    expectError(() => engine.runCommand('db', { create: 'c', validationAction: 1 }), 14);
    engine.runCommand('db', { create: 'c' });
    expectError(() => engine.runCommand('db', { collMod: 'c', validationLevel: 'x' }), 2);
    engine.close();
  });
});

describe('validators: refused at create and collMod time', () => {
  const bad: Array<[string, Document, number]> = [
    ['a validator that is not a document', { validator: 7 }, 14],
    ['$where', { validator: { $where: 'this.a == this.b' } }, 224],
    ['$text', { validator: { $text: { $search: 'bob' } } }, 224],
    ['$near', { validator: { loc: { $near: [0, 0] } } }, 224],
    ['$nearSphere inside $or', { validator: { $or: [{ loc: { $nearSphere: [0, 0] } }] } }, 224],
    ['an unknown $jsonSchema keyword', { validator: { $jsonSchema: { invalid: 1 } } }, 9],
    ['$function in $expr', { validator: { $expr: { $function: { body: 'f', args: [], lang: 'js' } } } }, 4660800],
    ['an unknown query operator', { validator: { a: { $bogus: 1 } } }, 2],
  ];
  for (const [what, options, code] of bad) {
    it(`create refuses ${what} (code ${code}) and creates nothing`, () => {
      const engine = new Engine();
      expectError(() => engine.runCommand('db', { create: 'c', ...options }), code);
      assert.equal(engine.getCollection('db', 'c'), undefined);
      engine.runCommand('db', { create: 'c' });
      expectError(() => engine.runCommand('db', { collMod: 'c', ...options }), code);
      assert.equal(engine.getCollection('db', 'c')?.options.validator, undefined);
      engine.close();
    });
  }

  it('validators are refused in the admin, local and config databases (InvalidOptions)', () => {
    const engine = new Engine();
    for (const db of ['admin', 'local', 'config']) {
      expectError(() => engine.runCommand(db, { create: 'c', validator: { a: { $exists: true } } }), 72);
    }
    engine.close();
  });
});

describe('validators: listCollections, collMod and storage', () => {
  it('listCollections shows the validator with the level and action it runs with', () => {
    const engine = withValidator({ a: { $exists: true } });
    assert.deepEqual(info(engine, 'c').options, {
      validator: { a: { $exists: true } },
      validationLevel: 'strict',
      validationAction: 'error',
    });
    engine.runCommand('db', { collMod: 'c', validationAction: 'warn' });
    assert.equal((info(engine, 'c').options as Document).validationAction, 'warn');
    // An empty validator removes the rule.
    engine.runCommand('db', { collMod: 'c', validator: {} });
    assert.equal((info(engine, 'c').options as Document).validator, undefined);
    engine.runCommand('db', { insert: 'c', documents: [{ _id: 1 }] });
    assert.equal(all(engine, 'c').length, 1);
    engine.close();
  });

  it('create with the same validator again is a no-op; with another one NamespaceExists', () => {
    const engine = withValidator({ a: 1 });
    assert.equal(engine.runCommand('db', { create: 'c', validator: { a: 1 } }).ok, 1);
    expectError(() => engine.runCommand('db', { create: 'c', validator: { a: 2 } }), 48);
    engine.close();
  });

  it('validators, levels and actions survive a restart of a stored engine', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-validators-'));
    const open = () => openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) } });
    let o = open();
    o.engine.runCommand('db', {
      create: 'c',
      validator: { $jsonSchema: { required: ['name'] } },
      validationAction: 'error',
    });
    o.engine.runCommand('db', { create: 'm' });
    o.engine.runCommand('db', { collMod: 'm', validator: { n: { $gte: 0 }, s: /^a/i }, validationLevel: 'moderate' });
    closeStoredEngine(o);
    o = open();
    assert.deepEqual(info(o.engine, 'c').options, {
      validator: { $jsonSchema: { required: ['name'] } },
      validationLevel: 'strict',
      validationAction: 'error',
    });
    assert.equal((info(o.engine, 'm').options as Document).validationLevel, 'moderate');
    const m = o.engine.runCommand('db', {
      insert: 'm',
      documents: [
        { _id: 1, n: 1, s: 'b' },
        { _id: 2, n: 1, s: 'A' },
      ],
      ordered: false,
    });
    assert.equal((m.writeErrors as Document[])[0].index, 0, 'a regex in a validator is stored as a regex');
    assert.equal(m.n, 1);
    const r = o.engine.runCommand('db', { insert: 'c', documents: [{ _id: 1 }] });
    assert.equal((r.writeErrors as Document[])[0].code, 121, 'the restored validator still applies');
    closeStoredEngine(o);
  });

  it('the error reaches a caller as an EngineError carrying errInfo (findAndModify fails the command)', () => {
    const engine = withValidator({ a: 1 });
    engine.runCommand('db', { insert: 'c', documents: [{ _id: 1, a: 1 }] });
    try {
      engine.runCommand('db', { findAndModify: 'c', query: {}, update: { $set: { a: 2 } } });
      assert.fail('expected a validation failure');
    } catch (err) {
      assert.ok(err instanceof EngineError);
      assert.deepEqual(err.toReply().errInfo, {
        failingDocumentId: 1,
        details: { operatorName: '$eq', specifiedAs: { a: 1 }, reason: 'comparison failed', consideredValue: 2 },
      });
    }
    engine.close();
  });
});
