/**
 * The real mongosh (2.x, a devDependency) against the wire endpoint: its start-up probes, the
 * MongoDB manual's TTL examples run verbatim through `ttl-workbench serve`, the mongosh prelude
 * (clock, ttl, a sleep that moves the virtual clock) on the endpoint and on a server that is not
 * TTL Workbench, and every example notebook under examples/ compared statement by statement with
 * what `ttl-workbench run` (the embedded shell) gives. Each mongosh process costs about a second,
 * so each test starts one.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { runFile } from '../../../src/cli/run-file';
import { Engine } from '../../../src/engine';
import { VirtualClock } from '../../../src/engine/clock';
import type { Document } from '../../../src/engine/values/types';
import { engineRequestOf, parseTtlbook } from '../../../src/formats/ttlbook';
import { startServer, WireServer, type RunningServer } from '../../../src/wire';
import { runWireCommand } from '../../../src/wire/commands';
import {
  cleanUp,
  lines,
  MARKERS,
  mongosh,
  notebookScript,
  PRELUDE,
  readMarked,
  root,
  script,
  withoutObjectIds,
} from './mongosh-harness';

const T0 = '2026-01-01T00:00:00.000Z';

after(() => cleanUp());

describe('mongosh against the wire endpoint', () => {
  test('starts cleanly: every start-up probe answered as mongod answers it, no warning banner', async () => {
    const engine = new Engine({ clock: new VirtualClock(Date.parse(T0)) });
    const seen: Array<{ name: string; ok: unknown; code: unknown }> = [];
    const wire = new WireServer({
      engine,
      intercept: (connection, command) => {
        const reply = runWireCommand(engine, connection, command);
        seen.push({ name: Object.keys(command)[0], ok: reply.ok, code: reply.code });
        return reply;
      },
    });
    const { uri } = await wire.start();
    try {
      // Interactive start (no --quiet): the banner, then the helpers' answers, line by line.
      const input = [
        'show logs',
        'print("port " + db.serverCmdLineOpts().parsed.net.port)',
        'print("hostTime " + db.hostInfo().system.currentTime.toISOString())',
        'rs.status()',
        'print("done")',
        '',
      ].join('\n');
      const run = await mongosh([uri, '--norc'], input);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /Using MongoDB:\s+8\.0\.4/);
      assert.doesNotMatch(run.stdout, /startup warnings|Non-Genuine|emulation of MongoDB/i);
      assert.match(run.stdout, /\[ 'global', 'startupWarnings' \]/, '`show logs` lists the logs');
      assert.match(run.stdout, new RegExp(`port ${wire.address!.port}`));
      assert.match(run.stdout, new RegExp(`hostTime ${T0}`), 'hostInfo reads the engine clock');
      assert.match(run.stdout, /MongoServerError\[NoReplicationEnabled\]: not running with --replSet/);
      assert.match(run.stdout, /done/);

      // What mongosh probes while it connects, and what it got: only mongod's own refusals.
      const names = new Set(seen.map((s) => s.name));
      for (const probe of ['buildInfo', 'atlasVersion', 'getParameter', 'getLog', 'aggregate'])
        assert.ok(names.has(probe), `mongosh sent ${probe}`);
      const refused = seen.filter((s) => s.ok !== 1).map((s) => `${s.name} ${String(s.code)}`);
      assert.deepEqual([...new Set(refused)].sort(), [
        'atlasVersion 59', // not Atlas: CommandNotFound, as on mongod
        'getParameter 72', // {getParameter: "foo"} (a probe for other servers): InvalidOptions
        'replSetGetStatus 76', // rs.status() above
      ]);
    } finally {
      await wire.stop();
      engine.close();
    }
  });

  test("the MongoDB manual's TTL examples, verbatim, through `ttl-workbench serve` and the shipped prelude", async () => {
    const serve = spawn(process.execPath, [path.join(root, 'dist', 'cli.js'), 'serve', '--port', '0', '--now', T0], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => serve.on('exit', (code) => resolve(code)));
    try {
      const uri = await firstLine(serve.stdout);
      assert.match(uri, /^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
      const fixtures = [
        'expire-after-seconds',
        'expire-at-clock-time',
        'partial-ttl',
        'collmod-convert',
        'nan-indexes',
      ];
      const args = [uri, '--quiet', '--norc', '--file', path.join(root, 'dist', 'mongosh-prelude.js')];
      for (const name of fixtures) {
        // Each example in a database of its own (their collection names repeat).
        const use = script(`use-${name}.js`, `db = db.getSiblingDB('${name}'); print('# ${name}');\n`);
        args.push('--file', use, '--file', path.join(root, 'test', 'unit', 'wire', 'fixtures', `docs-${name}.js`));
      }
      const run = await mongosh(args);
      assert.equal(run.stderr, '');
      assert.equal(run.code, 0, run.stdout);
      assert.deepEqual(lines(run.stdout), [
        '# expire-after-seconds',
        'index {"createdAt":1} 3600',
        'after 59 minutes 1',
        'after 61 minutes 0',
        '# expire-at-clock-time',
        'after 1 minute [{"logMessage":"In five minutes"}]',
        'after 6 minutes 0',
        '# partial-ttl',
        'left [{"note":"no canDelete field"},{"note":"stays"}]',
        'index {"canDelete":true} 10',
        '# collmod-convert',
        'plain index true',
        'converted {"expireAfterSeconds_new":100,"ok":1}',
        'two-minute-old ticket after a pass 0',
        'changed {"expireAfterSeconds_old":100,"expireAfterSeconds_new":3600,"ok":1}',
        '# nan-indexes',
        'script []',
        'listed as 2147483647',
        'ttl.nanIndexes ["nan-indexes.sessions lastSeen_1"]',
        'after a pass 1',
        'fixed []',
        'after the fix 0',
      ]);
    } finally {
      serve.kill('SIGTERM');
    }
    assert.equal(await exited, 0, 'serve stops cleanly on SIGTERM');
  });

  test('the prelude: nothing changes on a server without the control command; the system clock keeps real time', async () => {
    // A stand-in for mongod: the control command is unknown there.
    const engine = new Engine({ clock: new VirtualClock(Date.parse(T0)) });
    const mongod = new WireServer({
      engine,
      intercept: (connection, command) =>
        Object.keys(command)[0] === 'ttlWorkbench'
          ? { ok: 0, errmsg: "no such command: 'ttlWorkbench'", code: 59, codeName: 'CommandNotFound' }
          : undefined,
    });
    const plain = await mongod.start();
    const system = await startServer({ clock: 'system' });
    const virtual = await startServer({ now: T0 });
    try {
      const keep = script('keep.js', 'globalThis.mongoshOwn = { Date, ISODate, sleep };\n');
      const report = script(
        'report.js',
        `print([Date === mongoshOwn.Date, ISODate === mongoshOwn.ISODate, sleep === mongoshOwn.sleep, typeof clock, typeof ttl, globalThis.clock?.kind].join(' '));\n`,
      );
      const to = (uri: string, name: string) => script(`to-${name}.js`, `db = connect('${uri}test');\n`);
      const virtualChecks = script(
        'virtual.js',
        [
          'print(new Date().toISOString(), ISODate().toISOString(), Date.now());',
          'sleep(90 * 1000);',
          'print(new Date().toISOString(), clock.now().toISOString());',
          'print(EJSON.stringify(clock.advance("1h")));',
          'try { sleep(-1) } catch (e) { print(e.name, e.message) }',
          // ttl.forecast over the control command: now is 01:01:30; expiries at +10 min, +20 min, +90 min.
          'db.f.insertMany([10, 20, 90].map((m) => ({ at: new Date(Date.now() + m * 60000) })));',
          'db.f.createIndex({ at: 1 }, { expireAfterSeconds: 0 });',
          'const f = ttl.forecast(db.f, { horizon: "1h", buckets: 2 });',
          'print(f.index, f.dueNow, f.buckets.map((b) => b.count).join(","), f.later, f.never, f.total, "ok" in f);',
          'try { ttl.forecast("f", { buckets: 0 }) } catch (e) { print(e.codeName) }',
          '',
        ].join('\n'),
      );
      const run = await mongosh([
        plain.uri,
        '--quiet',
        '--norc',
        ...['--file', keep, '--file', PRELUDE, '--file', report],
        ...['--file', to(system.uri, 'system'), '--file', PRELUDE, '--file', report],
        ...['--file', to(virtual.uri, 'virtual'), '--file', PRELUDE, '--file', report, '--file', virtualChecks],
        // Back on the stand-in: loading the prelude again puts mongosh's own globals back.
        ...['--file', to(plain.uri, 'plain'), '--file', PRELUDE, '--file', report],
      ]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.deepEqual(lines(run.stdout), [
        'true true true undefined undefined ',
        'true true true object object system',
        'false false false object object virtual',
        `${T0} ${T0} ${Date.parse(T0)}`,
        '2026-01-01T00:01:30.000Z 2026-01-01T00:01:30.000Z',
        '{"now":{"$date":"2026-01-01T01:01:30Z"},"ttlPasses":60,"deletedDocuments":0}',
        'TypeError sleep() needs a number of milliseconds >= 0, got -1.',
        'at_1 0 2,0 1 0 3 false',
        'BadValue',
        'true true true undefined undefined ',
      ]);
    } finally {
      await mongod.stop();
      engine.close();
      await system.stop();
      await virtual.stop();
    }
  });

  test('every example notebook gives the same values and output through mongosh as in the embedded shell', async () => {
    const books = fs
      .readdirSync(path.join(root, 'examples'))
      .filter((f) => f.endsWith('.ttlbook'))
      .sort();
    assert.ok(books.length >= 7);
    const servers: RunningServer[] = [];
    const args: string[] = [];
    const expected = new Map<
      string,
      { statements: ReturnType<typeof notebookScript>['statements']; lines: Document[] }
    >();
    try {
      for (const book of books) {
        const file = path.join(root, 'examples', book);
        const meta = engineRequestOf(parseTtlbook(fs.readFileSync(file, 'utf8')).metadata);
        assert.ok(!('error' in meta));
        const server = await startServer({
          ...(meta.now ? { now: meta.now } : {}),
          ...(meta.flavor ? { flavor: meta.flavor } : {}),
          ...(meta.serverVersion ? { serverVersion: meta.serverVersion } : {}),
        });
        servers.push(server);
        const { script: code, statements } = notebookScript(file);
        args.push(
          '--file',
          script(`to-${book}.js`, `db = connect('${server.uri}test'); print('@@book ${book}');\n`),
          '--file',
          PRELUDE,
          '--file',
          script(`${book}.js`, code),
        );
        // The embedded shell, as `ttl-workbench run --json` runs the notebook.
        let json = '';
        const outcome = runFile(
          file,
          { files: [file], clock: 'virtual', json: true, timeoutMs: 10_000 },
          (t) => (json += t),
          () => undefined,
        );
        assert.equal(outcome.ok, true, book);
        expected.set(book, { statements, lines: lines(json).map((l) => JSON.parse(l) as Document) });
      }
      const run = await mongosh([
        servers[0].uri,
        '--quiet',
        '--norc',
        '--file',
        script('markers.js', MARKERS),
        ...args,
      ]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      const perBook = run.stdout.split(/^@@book (.*)$/m).slice(1);
      let values = 0;
      for (let i = 0; i < perBook.length; i += 2) {
        const book = perBook[i];
        const seen = readMarked(perBook[i + 1]);
        const { statements, lines: embedded } = expected.get(book)!;
        assert.deepEqual(
          embedded.map((l) => l.line),
          statements.map((s) => s.line),
          `${book}: the same statements`,
        );
        for (const [k, statement] of statements.entries()) {
          const mine = seen.get(statement.line);
          const theirs = embedded[k];
          assert.ok(mine, `${book}:${statement.line} ran through mongosh`);
          assert.deepEqual(mine.output, theirs.output, `${book}:${statement.line}: printed lines`);
          if (!statement.expression) continue;
          values++;
          assert.deepEqual(
            withoutObjectIds(mine.value),
            withoutObjectIds(theirs.result),
            `${book}:${statement.line}: the value`,
          );
        }
      }
      assert.equal(perBook.length / 2, books.length, 'every notebook ran');
      assert.ok(values >= 30, `${values} values compared`);
    } finally {
      for (const server of servers) await server.stop();
    }
  });
});

/** The first line a process writes (serve's connection string). */
function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no first line in 10 s: ${text}`)), 10_000);
    stream.setEncoding('utf8');
    stream.on('data', (d: string) => {
      text += d;
      const end = text.indexOf('\n');
      if (end >= 0) {
        clearTimeout(timer);
        resolve(text.slice(0, end));
      }
    });
  });
}
