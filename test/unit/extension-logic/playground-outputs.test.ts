/**
 * Playground cell outputs: the structured outputs of the shell (shared with the CLI) and the
 * notebook output specs made from them — stdout for print, the documents renderer's mime (mongosh
 * text by default, a table one click away) plus mongosh text for documents, text otherwise, errors
 * with the MongoDB code and codeName, wrapped. And the promise of the issue: every example notebook run through
 * the notebook path (Backend.openPlayground) shows the same text as the CLI prints for it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Engine, VirtualClock } from '../../../src/engine';
import { runFile } from '../../../src/cli/run-file';
import { EmbeddedBackend } from '../../../src/extension/backend/embedded-backend';
import {
  buildChartModel,
  toFigures,
  type ForecastLike,
  type MonitorFacts,
} from '../../../src/extension/logic/forecast-chart';
import {
  DOCUMENTS_MIME,
  ERROR_WIDTH,
  FORECAST_MIME,
  interruptedSpec,
  JSON_MIME,
  maskObjectIds,
  outputSpecOf,
  plainTextOf,
  TEXT_MIME,
  type OutputSpec,
  wrapText,
} from '../../../src/extension/logic/playground-outputs';
import { statementOutputs, type CellOutput } from '../../../src/shell/cell-outputs';
import { ShellSession } from '../../../src/shell/session';
import { codeCells, engineRequestOf, parseTtlbook } from '../../../src/formats/ttlbook';

const root = path.resolve(__dirname, '..', '..', '..', '..');

function outputsOf(source: string): CellOutput[] {
  const session = new ShellSession({ engine: new Engine({ clock: new VirtualClock(Date.UTC(2026, 0, 1)) }) });
  return session.evaluate(source).statements.flatMap(statementOutputs);
}

function specsOf(source: string): OutputSpec[] {
  return outputsOf(source).map(outputSpecOf);
}

describe('playground outputs', () => {
  it('print is a stdout stream, each statement one block ending in a newline', () => {
    assert.deepEqual(specsOf('print("a"); print("b", 2)'), [
      { kind: 'stdout', text: 'a\n' },
      { kind: 'stdout', text: 'b 2\n' },
    ]);
  });

  it('a list of documents shows as the documents mime first (its JSON, and mongosh text the renderer draws by default), then mongosh text; no application/json, which VS Code would show as tab-indented JSON', () => {
    const specs = specsOf(
      'db.c.insertMany([{ _id: 1, at: new Date(0) }, { _id: 2, n: NumberLong("5") }]); db.c.find()',
    );
    const table = specs[1];
    assert.equal(table.kind, 'items');
    if (table.kind !== 'items') return;
    assert.deepEqual(
      table.items.map((i) => i.mime),
      [DOCUMENTS_MIME, TEXT_MIME],
    );
    assert.ok(!table.items.some((i) => i.mime === JSON_MIME));
    const text = "[\n  { _id: 1, at: ISODate('1970-01-01T00:00:00.000Z') },\n  { _id: 2, n: Long('5') }\n]";
    assert.deepEqual(table.items[0], {
      mime: DOCUMENTS_MIME,
      json: {
        documents: [
          { _id: 1, at: { $date: '1970-01-01T00:00:00Z' } },
          { _id: 2, n: 5 },
        ],
        hasMore: false,
        text,
        shape: 'documents',
      },
    });
    assert.equal((table.items[1] as { text: string }).text, text);
  });

  it('a cursor with more than 20 documents says "Type "it" for more" in the text and hasMore in the table', () => {
    const specs = specsOf('for (let i = 0; i < 25; i++) db.c.insertOne({ i }); db.c.find({}, { _id: 0 })');
    const last = specs.at(-1)!;
    assert.equal(last.kind, 'items');
    if (last.kind !== 'items') return;
    assert.equal((last.items[0] as { json: { hasMore: boolean; documents: unknown[] } }).json.hasMore, true);
    assert.equal((last.items[0] as { json: { documents: unknown[] } }).json.documents.length, 20);
    assert.match((last.items[1] as { text: string }).text, /\nType "it" for more$/);
  });

  it('one document (the result of insertOne, findOne) is mongosh text, in the documents mime and as text/plain; numbers, strings and empty results are text or nothing', () => {
    const [inserted, one, count, str, empty] = specsOf(
      'db.c.insertOne({ _id: 1 }); db.c.findOne(); db.c.countDocuments(); "hello"; db.c.find({ _id: 2 })',
    );
    assert.deepEqual(inserted, {
      kind: 'items',
      items: [
        {
          mime: DOCUMENTS_MIME,
          json: {
            documents: [{ acknowledged: true, insertedId: 1 }],
            hasMore: false,
            text: '{ acknowledged: true, insertedId: 1 }',
            shape: 'document',
          },
        },
        { mime: TEXT_MIME, text: '{ acknowledged: true, insertedId: 1 }' },
      ],
    });
    assert.deepEqual(one, {
      kind: 'items',
      items: [
        {
          mime: DOCUMENTS_MIME,
          json: { documents: [{ _id: 1 }], hasMore: false, text: '{ _id: 1 }', shape: 'document' },
        },
        { mime: TEXT_MIME, text: '{ _id: 1 }' },
      ],
    });
    assert.deepEqual(count, { kind: 'items', items: [{ mime: TEXT_MIME, text: '1' }] });
    assert.deepEqual(str, { kind: 'items', items: [{ mime: TEXT_MIME, text: 'hello' }] });
    assert.equal(empty, undefined, 'mongosh prints nothing for an empty cursor');
    assert.deepEqual(
      specsOf('[1, 2]'),
      [{ kind: 'items', items: [{ mime: TEXT_MIME, text: '[ 1, 2 ]' }] }],
      'an array of non-documents is no table',
    );
  });

  it('ttl.forecast(…) shows as the forecast chart mime first (the figures, the namespace, the monitor), then JSON, then text', () => {
    const source = [
      'db.s.insertMany([{ at: new Date(Date.UTC(2026, 0, 1) - 1800000) }, { at: new Date(Date.UTC(2026, 0, 1) + 5400000) }, { at: "x" }])',
      'db.s.createIndex({ at: 1 }, { expireAfterSeconds: 3600 })',
      'db.adminCommand({ setParameter: 1, ttlIndexDeleteTargetDocs: 1000 })',
      'ttl.forecast("s", { horizon: "6h", buckets: 6 })',
    ].join('\n');
    const outputs = outputsOf(source);
    const value = outputs.at(-1)!;
    assert.equal(value.kind, 'value');
    if (value.kind !== 'value') return;
    assert.equal(value.shape, 'forecast');
    const spec = outputSpecOf(value);
    assert.equal(spec.kind, 'items');
    if (spec.kind !== 'items') return;
    assert.deepEqual(
      spec.items.map((i) => i.mime),
      [FORECAST_MIME, JSON_MIME, TEXT_MIME],
    );
    const chart = spec.items[0] as {
      json: { db: string; collection: string; monitor: MonitorFacts; forecast: ForecastLike };
    };
    assert.equal(chart.json.db, 'test');
    assert.equal(chart.json.collection, 's');
    assert.deepEqual(chart.json.monitor, {
      sleepSecs: 60,
      nextPassAt: Date.UTC(2026, 0, 1) + 60_000,
      enabled: true,
      visitCap: 1000,
    });
    // The renderer's model from the output: the figures of the forecast itself.
    const model = buildChartModel({
      db: chart.json.db,
      collection: chart.json.collection,
      horizon: 'custom',
      primary: toFigures(chart.json.forecast),
      monitor: chart.json.monitor,
    });
    assert.deepEqual(
      model.primary.counts,
      [1, 0, 1, 0, 0, 0],
      'the first document expires at 00:30, in the first hour; the second at 02:30, in the third',
    );
    assert.deepEqual([model.primary.dueNow, model.primary.never, model.primary.total], [0, 1, 3]);
    assert.equal(model.now, Date.UTC(2026, 0, 1));
    assert.match(model.subtitle, /next 6 h/);
    assert.match(model.cadence, /360 passes in this horizon/, 'a pass a minute over 6 hours, said in words');
    assert.match(model.cadence, /at most 1,000 documents/);
    // The text is mongosh's rendering of the forecast, as the CLI prints it.
    assert.match((spec.items[2] as { text: string }).text, /never: 1/);
    // A copy of the figures is a plain document again: only what ttl.forecast returned is drawn.
    const copy = outputsOf(`${source};\n({ ...ttl.forecast("s") })`).at(-1)!;
    assert.equal(copy.kind === 'value' ? copy.shape : copy.kind, 'document');
  });

  it('an error is an error output whose name and message carry the MongoDB codeName and code', () => {
    const specs = specsOf('db.c.insertOne({ _id: 1 })\nprint("before")\ndb.c.insertOne({ _id: 1 })\nprint("never")');
    assert.deepEqual(
      specs.map((s) => s.kind),
      ['items', 'stdout', 'error'],
    );
    const err = specs[2];
    if (err.kind !== 'error') return;
    assert.equal(err.name, 'MongoServerError[DuplicateKey]');
    assert.match(
      err.message,
      /^E11000 duplicate key error collection: test\.c index: _id_ dup key: \{ _id: 1 \} \(code 11000, DuplicateKey\)$/,
    );
    assert.match(err.stack, /^MongoServerError\[DuplicateKey\]: E11000 [^]*\n {4}at line 3, column \d+$/);
    assert.ok(
      err.stack.split('\n').every((line) => line.length <= ERROR_WIDTH),
      `a line of the error is longer than ${ERROR_WIDTH} characters:\n${err.stack}`,
    );
    assert.equal(err.stack.replace(/\n {4}at line.*$/, '').replace(/\n/g, ' '), `${err.name}: ${err.message}`);
  });

  it('wrapText breaks at spaces within the width, keeps a longer word whole and keeps line breaks', () => {
    assert.equal(wrapText('aaa bbb ccc', 7), 'aaa bbb\nccc');
    assert.equal(wrapText('aaa bbb ccc', 6), 'aaa\nbbb\nccc');
    assert.equal(wrapText('a verylongword b', 4), 'a\nverylongword\nb');
    assert.equal(wrapText('one\ntwo three', 8), 'one\ntwo\nthree');
    assert.equal(wrapText('short', 80), 'short');
  });

  it('syntax errors and script errors without a code are errors too', () => {
    const [syntax] = specsOf('let x = ;');
    assert.equal(syntax.kind, 'error');
    assert.equal((syntax as { name: string }).name, 'SyntaxError');
    const [thrown] = specsOf('throw new TypeError("bad")');
    assert.deepEqual(
      [(thrown as { name: string }).name, (thrown as { message: string }).message],
      ['TypeError', 'bad'],
    );
  });

  it('an interrupted cell says how far it got, with code 11601 Interrupted', () => {
    const spec = interruptedSpec(2);
    assert.equal(spec.kind, 'error');
    assert.match((spec as { message: string }).message, /after 2 statements.*\(code 11601, Interrupted\)$/);
  });
});

describe('playground sessions on the backend', () => {
  it('run statement by statement, keep variables across runs, and stop between statements when asked', async () => {
    const backend = new EmbeddedBackend({}, { startMs: Date.UTC(2026, 0, 1) });
    try {
      const session = await backend.openPlayground();
      const seen: string[] = [];
      for await (const e of session.run('const n = 2\nprint(n)')) if (e.kind === 'print') seen.push(e.text);
      let ran = 0;
      const stop = new AbortController();
      const run = session.run('print(n + 1)\nprint(n + 2)\nprint(n + 3)', { signal: stop.signal });
      for (;;) {
        const step = await run.next();
        if (step.done) {
          assert.equal(step.value.complete, false);
          break;
        }
        if (step.value.kind === 'print') seen.push(step.value.text);
        else if (++ran >= 2) stop.abort();
      }
      assert.deepEqual(seen, ['2', '3', '4']);
      const done = session.run('print("x")');
      assert.deepEqual((await done.next()).value, { kind: 'print', text: 'x' });
      assert.equal(((await done.next()).value as { kind: string }).kind, 'statement');
      assert.deepEqual((await done.next()).value, { complete: true });
    } finally {
      backend.dispose();
    }
  });

  it('write to the shared engine (events reach listeners) and report clock moves', async () => {
    const backend = new EmbeddedBackend({}, { startMs: Date.UTC(2026, 0, 1) });
    try {
      const kinds: string[] = [];
      backend.onDidChange((events) => kinds.push(...events.map((e) => e.kind)));
      const session = await backend.openPlayground();
      for await (const e of session.run('db.getSiblingDB("app").c.insertOne({ a: 1 })\nsleep(1000)'))
        assert.ok(e.kind === 'statement' && e.ok);
      assert.ok(kinds.includes('clockChanged'), kinds.join());
      assert.ok(kinds.length >= 2);
      assert.deepEqual(
        (await backend.listCollections('app')).map((c) => [c.name, c.count]),
        [['c', 1]],
      );
      assert.equal((await backend.clock()).now.toISOString(), '2026-01-01T00:00:01.000Z');
    } finally {
      backend.dispose();
    }
  });

  it('start a new session after the backend was reset, and stop a cell the reset cut short', async () => {
    const backend = new EmbeddedBackend({}, { startMs: Date.UTC(2026, 0, 1) });
    try {
      const session = await backend.openPlayground();
      for await (const _ of session.run('var kept = 1')) void _;
      await backend.reset();
      const results = [];
      for await (const e of session.run('typeof kept'))
        if (e.kind === 'statement') results.push(...e.outputs.map((o) => o.text));
      assert.equal(session.restarted, true);
      assert.deepEqual(results, ['undefined']);
      const run = session.run('print(1)\nprint(2)');
      await run.next(); // the print
      await run.next(); // the statement's end
      await backend.reset();
      await assert.rejects(run.next(), /The engine was reset while the cell ran/);
    } finally {
      backend.dispose();
    }
  });
});

describe('the notebook path and the CLI show the same results', () => {
  const files = fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.ttlbook'));
  for (const file of files) {
    it(`${file}: same text through Backend.openPlayground as through the CLI`, async () => {
      const full = path.join(root, 'examples', file);
      let cli = '';
      let cliErr = '';
      const outcome = runFile(
        full,
        { files: [full], clock: 'virtual', json: false, timeoutMs: 10_000 },
        (t) => (cli += t),
        (t) => (cliErr += t),
      );
      assert.equal(outcome.ok, true, cliErr);
      const book = parseTtlbook(fs.readFileSync(full, 'utf8'));
      const request = engineRequestOf(book.metadata);
      assert.ok(!('error' in request));
      const backend = new EmbeddedBackend({ flavor: request.flavor ?? 'mongodb' }, { startMs: request.now!.getTime() });
      try {
        const session = await backend.openPlayground();
        const specs: OutputSpec[] = [];
        for (const cell of codeCells(book))
          for await (const e of session.run(cell.source))
            specs.push(...(e.kind === 'print' ? [e] : e.outputs).map(outputSpecOf));
        assert.ok(specs.every((s) => s.kind !== 'error'));
        // Generated ObjectIds differ in their random bytes only: their timestamps (engine clock) must match.
        assert.equal(maskObjectIds(plainTextOf(specs)), maskObjectIds(cli));
        assert.ok(cli.length > 50);
      } finally {
        backend.dispose();
      }
    });
  }
});
