/**
 * ShellSession.evaluate: statement by statement results, persistence of declarations across calls,
 * syntax errors with line and column, the time limit, line offsets.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, SystemClock, VirtualClock } from '../../../src/engine';
import { MORE_HINT, ShellSession } from '../../../src/shell/session';
import { harness, plain, START } from './helpers';

describe('ShellSession construction', () => {
  it('needs an engine and a positive whole timeout', () => {
    assert.throws(() => new ShellSession({} as never), /needs an engine/);
    const engine = new Engine({ clock: new VirtualClock(START) });
    assert.throws(() => new ShellSession({ engine, timeoutMs: 0 }), RangeError);
    assert.throws(() => new ShellSession({ engine, timeoutMs: 1.5 }), RangeError);
    assert.equal(new ShellSession({ engine }).dbName, 'test');
    assert.equal(new ShellSession({ engine, dbName: 'app' }).dbName, 'app');
  });

  it("hostGlobals adds the host's functions to the script's world and replaces a shell global of that name", () => {
    const engine = new Engine({ clock: new VirtualClock(START) });
    const read: string[] = [];
    const session = new ShellSession({
      engine,
      hostGlobals: { load: (file: string) => (read.push(file), true), harnessName: 'jstests' },
    });
    const result = session.evaluate('load("libs/a.js") && harnessName + ":" + typeof db.getName');
    assert.equal(result.ok, true, JSON.stringify(result.statements[0].error));
    assert.equal(result.statements[0].value, 'jstests:function');
    assert.deepEqual(read, ['libs/a.js']);
    // Without it the shell's own refusal stays.
    const plainSession = new ShellSession({ engine });
    assert.equal(plainSession.evaluate('load("x.js")').ok, false);
  });
});

describe('evaluate', () => {
  it('reports each top-level statement: position, source, value, text, EJSON, output and time', () => {
    const h = harness();
    const result = h.run('const n = 1 + 1\nprint("n is", n); n * 10\n\n"done"');
    assert.equal(result.ok, true);
    assert.equal(result.statements.length, 4);
    const [decl, print, times, done] = result.statements;
    assert.deepEqual(
      [decl.line, decl.column, decl.endLine, decl.source, decl.value, decl.rendered, decl.ejson],
      [1, 1, 1, 'const n = 1 + 1', undefined, undefined, undefined],
    );
    assert.deepEqual([print.line, print.column, print.output], [2, 1, ['n is 2']]);
    assert.deepEqual([times.line, times.column, times.value, times.rendered, times.ejson], [2, 19, 20, '20', 20]);
    assert.deepEqual([done.line, done.value, done.rendered, done.ejson], [4, 'done', 'done', 'done']);
    for (const s of result.statements) {
      assert.equal(s.ok, true);
      assert.equal(typeof s.millis, 'number');
      assert.ok(s.millis >= 0);
    }
    assert.deepEqual(result.output, ['n is 2']);
  });

  it('empty and comment-only source evaluates to no statements', () => {
    const h = harness();
    assert.deepEqual(h.run(''), { ok: true, statements: [], output: [] });
    assert.deepEqual(h.run('// just a comment'), { ok: true, statements: [], output: [] });
  });

  it('stops at the first statement that throws, like a script', () => {
    const h = harness();
    const result = h.run('db.c.insertOne({ _id: 1 })\nnope()\ndb.c.insertOne({ _id: 2 })');
    assert.equal(result.ok, false);
    assert.equal(result.statements.length, 2);
    assert.equal(result.statements[1].line, 2);
    assert.equal(result.statements[1].error?.name, 'ReferenceError');
    assert.equal(result.statements[1].rendered, 'ReferenceError: nope is not defined');
    assert.equal(h.value('db.c.countDocuments()'), 1);
  });

  it('a syntax error runs nothing and names its line and column', () => {
    const h = harness();
    const result = h.run('print("never")\nconst x = {\n  a: 1,,\n}');
    assert.equal(result.ok, false);
    assert.deepEqual(result.output, []);
    assert.equal(result.statements.length, 1);
    const s = result.statements[0];
    assert.equal(s.ok, false);
    assert.deepEqual(s.error, {
      name: 'SyntaxError',
      message: 'Unexpected token (line 3, column 8)',
      line: 3,
      column: 8,
    });
    assert.equal(s.line, 3);
    assert.equal(s.source, '  a: 1,,');
    assert.equal(s.rendered, 'SyntaxError: Unexpected token (line 3, column 8)');
  });

  it('let/const/class/function declarations persist across statements and evaluate() calls', () => {
    const h = harness();
    h.run(
      'let counter = 1\nconst base = 10\nclass Point { constructor(x) { this.x = x } }\nfunction twice(v) { return 2 * v }\nvar legacy = 5',
    );
    h.run('counter += 1');
    assert.equal(h.value('counter + base + new Point(3).x + twice(2) + legacy'), 2 + 10 + 3 + 4 + 5);
  });

  it('redeclaring a let in a later evaluation is the JavaScript error, on the right line', () => {
    const h = harness();
    h.run('let x = 1');
    const failed = h.failure('\nlet x = 2');
    assert.equal(failed.error?.name, 'SyntaxError');
    assert.match(failed.error?.message ?? '', /Identifier 'x' has already been declared/);
    assert.equal(failed.error?.line, 2);
  });

  it('function declarations are hoisted, as in a script', () => {
    const h = harness();
    const result = h.run('const r = f()\nfunction f() { return "hoisted" }\nr');
    assert.equal(result.ok, true);
    assert.deepEqual(
      result.statements.map((s) => s.source.split('\n')[0]),
      ['const r = f()', 'function f() { return "hoisted" }', 'r'],
    );
    assert.equal(result.statements[2].value, 'hoisted');
  });

  it('an infinite loop is stopped by the time limit with a clear message; the session goes on', () => {
    const h = harness({ timeoutMs: 150 });
    const started = Date.now();
    const result = h.run('let spins = 0\nwhile (true) { spins++ }');
    assert.ok(Date.now() - started < 5000);
    assert.equal(result.ok, false);
    const failed = result.statements[1];
    assert.equal(failed.line, 2);
    assert.equal(failed.error?.name, 'TimeoutError');
    assert.deepEqual([failed.error?.code, failed.error?.codeName], [50, 'MaxTimeMSExpired']);
    assert.match(failed.error?.message ?? '', /stopped after 150 ms.*time limit/);
    assert.equal(h.value('spins > 0'), true);
    assert.equal(h.value('db.c.insertOne({}).acknowledged'), true);
  });

  it('a time limit reached inside an engine operation stops it at a safe point: MaxTimeMSExpired, engine consistent and usable', () => {
    const h = harness({ timeoutMs: 100 });
    h.engine.runCommand('admin', { setParameter: 1, ttlMonitorSleepSecs: 1 });
    // Millions of one-second TTL passes: the limit is reached inside the clock advance, which
    // stops between two timers (the clock keeps the time of the last pass run).
    const before = h.engine.clock.now();
    const failed = h.failure('sleep(1e10)');
    assert.equal(failed.error?.name, 'TimeoutError');
    assert.deepEqual([failed.error?.code, failed.error?.codeName], [50, 'MaxTimeMSExpired']);
    assert.match(failed.error?.message ?? '', /stopped after 100 ms.*safe point/);
    assert.doesNotMatch(failed.error?.message ?? '', /fresh engine/);
    const moved = h.engine.clock.now() - before;
    assert.ok(moved > 0 && moved < 1e10, `the clock moved part of the way (${moved} ms)`);
    // The clock and the monitor accept work at once, with no recovery step.
    assert.equal(h.value('clock.advance(1000).ttlPasses'), 1);
    assert.equal(h.value('db.c.insertOne({}).acknowledged'), true);
    const loop = h.failure('for (;;) {}');
    assert.doesNotMatch(loop.error?.message ?? '', /engine operation/);
  });

  it('cursor.maxTimeMS and the maxTimeMS option reach the engine, which validates them and stops at a safe point', () => {
    const h = harness();
    h.run('db.c.insertMany(Array.from({ length: 3000 }, (_, i) => ({ _id: i, n: i % 10 })))');
    assert.equal(h.value('db.c.find({ n: 1 }).maxTimeMS(100000).toArray().length'), 300);
    const bad = h.failure('db.c.find().maxTimeMS(-1).toArray()');
    assert.deepEqual([bad.error?.code, bad.error?.codeName], [2, 'BadValue']);
    assert.match(bad.error?.message ?? '', /out of range/);
    for (const code of [
      'db.c.countDocuments({}, { maxTimeMS: 1.5 })',
      'db.c.distinct("n", {}, { maxTimeMS: "x" })',
      'db.c.updateMany({}, { $set: { a: 1 } }, { maxTimeMS: -3 })',
      'db.c.deleteMany({ n: 1 }, { maxTimeMS: -3 })',
      'db.c.aggregate([], { maxTimeMS: -3 }).toArray()',
      'db.c.findOneAndUpdate({}, { $set: { a: 1 } }, { maxTimeMS: -3 })',
      'db.c.find({}, {}, { maxTimeMS: -3 }).toArray()',
    ]) {
      assert.equal(h.failure(code).error?.code, 2, code);
    }
    assert.equal(h.value('db.c.countDocuments({ a: 1 })'), 0, 'the rejected writes changed nothing');
  });

  it('interrupt(): the next engine safe point of the running statement fails with Interrupted (11601); the next evaluation starts afresh', () => {
    const h = harness();
    h.run('db.c.insertMany(Array.from({ length: 500 }, (_, i) => ({ _id: i })))');
    // A host that gets a turn inside the statement (here: the engine's change listener, called
    // when the first insert ends) asks for the stop; the updateMany that follows stops at once.
    const off = h.engine.onDidChange(() => h.session.interrupt());
    const failed = h.failure('(db.c.insertOne({ _id: "x" }), db.c.updateMany({}, { $set: { seen: true } }))');
    off();
    assert.deepEqual([failed.error?.code, failed.error?.codeName], [11601, 'Interrupted']);
    assert.equal(h.value('db.c.countDocuments({ seen: true })'), 0);
    assert.equal(h.value('db.c.countDocuments({})'), 501);
  });

  it('the time limit applies per statement, not per evaluation', () => {
    const h = harness({ clock: new SystemClock(), timeoutMs: 400 });
    try {
      // Three statements of ~150 ms each: 450 ms in all, each well under the limit.
      const spin = (k: number) => `const until${k} = Date.now() + 150; while (Date.now() < until${k}) {}`;
      const result = h.run([spin(1), spin(2), spin(3)].join('\n'));
      assert.equal(result.ok, true, result.statements.find((st) => !st.ok)?.error?.message);
    } finally {
      h.engine.close();
      h.engine.clock.dispose();
    }
  });

  it('lineOffset and filename place statements and errors in the surrounding file', () => {
    const h = harness();
    const result = h.run('db.c.insertOne({ a: 1 })\n\nfunction boom() {\n  throw new Error("inside")\n}\nboom()', {
      filename: 'notebook.ttlbook',
      lineOffset: 20,
    });
    assert.deepEqual(
      result.statements.map((s) => s.line),
      [21, 23, 26],
    );
    const failed = result.statements[2];
    assert.equal(failed.error?.line, 24);
    assert.equal(failed.error?.column, 9);
    const syntax = h.run('\n\n  let = ;', { lineOffset: 5 });
    assert.equal(syntax.statements[0].error?.line, 8);
    assert.equal(syntax.statements[0].line, 8);
  });

  it('a cursor result carries hasMore and leaves the hint text out of rendered', () => {
    const h = harness();
    h.run('db.c.insertMany(Array.from({ length: 21 }, (_, i) => ({ _id: i })))');
    const r = h.last('db.c.find()');
    assert.equal(r.hasMore, true);
    assert.equal(MORE_HINT, 'Type "it" for more');
    assert.ok(!(r.rendered ?? '').includes(MORE_HINT));
    assert.equal(h.last('db.c.findOne()').hasMore, undefined);
  });

  it('ejson is computed on first read and kept; JSON of a result includes it', () => {
    const h = harness();
    const r = h.last('({ when: ISODate("2026-01-01T00:00:00Z") })');
    assert.equal(typeof Object.getOwnPropertyDescriptor(r, 'ejson')?.get, 'function');
    assert.equal(r.ejson, r.ejson);
    assert.deepEqual(JSON.parse(JSON.stringify(r)).ejson, { when: { $date: '2026-01-01T00:00:00Z' } });
    assert.equal('ejson' in h.last('let nothing'), false);
  });

  it('a value holding a cursor serializes without reaching into the engine', () => {
    const h = harness();
    h.run('db.c.insertOne({})');
    assert.deepEqual(h.last('({ cur: db.c.find() })').ejson, { cur: {} });
    assert.equal(h.value('JSON.stringify(db.c.find())'), '{}');
  });

  it('sessions on one engine share data but not variables', () => {
    const engine = new Engine({ clock: new VirtualClock(START) });
    const a = new ShellSession({ engine });
    const b = new ShellSession({ engine });
    a.evaluate('let mine = 1; db.shared.insertOne({ from: "a" })');
    const r = b.evaluate('[typeof mine, db.shared.countDocuments()]');
    assert.deepEqual(plain(r.statements[0].value), ['undefined', 1]);
    engine.close();
  });

  it('the current database persists across evaluate() calls', () => {
    const h = harness();
    h.run('use("app")');
    assert.equal(h.value('db.getName()'), 'app');
    assert.equal(h.session.dbName, 'app');
  });
});
