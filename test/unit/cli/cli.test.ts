/**
 * The bundled CLI (dist/cli.js, built by `npm test` before the tests run) on real files: exit codes,
 * JSON lines, and every example playground under examples/ running clean with the results the
 * TTL rules predict.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { MongoClient, MongoServerError } from 'mongodb';
import { runFile } from '../../../src/cli/run-file';

const root = path.resolve(__dirname, '../../../..');
const cli = path.join(root, 'dist', 'cli.js');
const examples = path.join(root, 'examples');

function run(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

interface Line {
  ok: boolean;
  file: string;
  line: number;
  result?: unknown;
  output: string[];
  error?: { code: number | null; codeName: string | null; message: string };
}

function jsonLines(stdout: string): Line[] {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

const tempDirs: string[] = [];
after(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function tempFile(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-cli-'));
  tempDirs.push(dir);
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('ttl-workbench CLI', () => {
  test('--help documents the command and exits 0', () => {
    const r = run(['--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /ttl-workbench run \[options\] FILE/);
    assert.match(r.stdout, /--clock virtual\|system/);
  });

  test('bad usage exits 2 with a message', () => {
    const r = run(['run', '--clock', 'sundial', 'x.js']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--clock must be 'virtual' or 'system'/);
  });

  test('--json prints one line per statement with results as relaxed EJSON', () => {
    const file = tempFile('a.js', 'db.c.insertOne({_id: 1, n: NumberInt(5)})\nprint("hi")\ndb.c.findOne()\n');
    const r = run(['run', '--json', file]);
    assert.equal(r.code, 0, r.stderr);
    const lines = jsonLines(r.stdout);
    assert.equal(lines.length, 3);
    assert.deepEqual(
      lines.map((l) => l.ok),
      [true, true, true],
    );
    assert.deepEqual(lines[1].output, ['hi']);
    assert.deepEqual(lines[2].result, { _id: 1, n: 5 });
    assert.equal(lines[2].line, 3);
  });

  test('an uncaught error exits 1 and names the file and line, with code and codeName', () => {
    const file = tempFile('b.js', 'db.c.insertOne({_id: 1})\n\ndb.c.insertOne({_id: 1})\nprint("never")\n');
    const r = run(['run', file]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /b\.js:3/);
    assert.match(r.stderr, /code 11000, DuplicateKey/);
    assert.doesNotMatch(r.stdout, /never/);
    const j = run(['run', '--json', file]);
    const last = jsonLines(j.stdout).at(-1)!;
    assert.equal(last.ok, false);
    assert.equal(last.error?.code, 11000);
    assert.equal(last.error?.codeName, 'DuplicateKey');
  });

  test('a syntax error exits 1 with line and column', () => {
    const file = tempFile('c.js', 'print(1)\nlet x = ;\n');
    const r = run(['run', file]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /c\.js:2:\d+/);
  });

  test('a missing file exits 1 with a clear message', () => {
    const r = run(['run', path.join(os.tmpdir(), 'no-such-playground.js')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cannot read the file \(ENOENT\)/);
  });

  test('the virtual clock starts at --now and sleep() runs TTL passes', () => {
    const file = tempFile(
      'd.js',
      [
        'db.log_events.createIndex({ "expireAt": 1 }, { expireAfterSeconds: 0 })',
        'db.log_events.insertOne({ "expireAt": new Date("2025-12-31T23:59:00Z"), "logEvent": 2, "logMessage": "Success!" })',
        'new Date().toISOString()',
        'sleep(61000)',
        'db.log_events.countDocuments()',
      ].join('\n'),
    );
    const lines = jsonLines(run(['run', '--json', '--now', '2026-01-01T00:00:00Z', file]).stdout);
    assert.equal(lines[2].result, '2026-01-01T00:00:00.000Z');
    assert.equal(lines.at(-1)!.result, 0);
  });
});

/** What each example must show: checks on its JSON lines (statement results in order). */
const EXPECTATIONS: Record<string, (lines: Line[]) => void> = {
  '01-expire-after-seconds.ttlbook': (lines) => {
    const counts = lines.filter((l) => typeof l.result === 'number').map((l) => l.result);
    assert.deepEqual(counts.at(-1), 1, 'only the document without a date is left');
    const afterHalfHour = lines.find((l) => Array.isArray(l.result)) as Line;
    assert.deepEqual(
      (afterHalfHour.result as Array<{ event: string }>).map((d) => d.event),
      ['login', 'no date'],
    );
  },
  '02-expire-at-clock-time.ttlbook': (lines) => {
    assert.ok(
      lines.some((l) => l.result === 2),
      'both documents remain after the first minute',
    );
    assert.deepEqual(lines.at(-1)!.result, [{ logMessage: 'Tomorrow' }]);
  },
  '03-partial-ttl.ttlbook': (lines) => {
    assert.ok(
      lines.some((l) => JSON.stringify(l.result) === JSON.stringify([{ user: 'm1' }])),
      'only the member session is left',
    );
    assert.ok(
      lines.some((l) => l.output.some((o) => /^67 CannotCreateIndex/.test(o))),
      'the $ne filter is refused with 67',
    );
  },
  '04-convert-with-collmod.ttlbook': (lines) => {
    assert.ok(lines.some((l) => l.output.includes('IndexOptionsConflict')));
    const counts = lines.filter((l) => typeof l.result === 'number').map((l) => l.result);
    assert.deepEqual(counts, [1, 0], 'kept under 3 h, deleted once the period is 100 s');
  },
  '05-time-series-retention.ttlbook': (lines) => {
    const counts = lines.filter((l) => typeof l.result === 'number').map((l) => l.result);
    assert.deepEqual(counts, [6, 6, 0, 1], 'whole bucket at once, counted as one deleted bucket');
  },
  '07-find-nan-indexes.ttlbook': (lines) => {
    assert.ok(
      lines.some((l) => l.output.includes('67 CannotCreateIndex')),
      'createIndex refuses NaN',
    );
    const nan = lines.find((l) => Array.isArray(l.result) && (l.result as unknown[]).length === 1)!;
    assert.equal((nan.result as Array<{ index: string }>)[0].index, 'createdAt_1');
    const counts = lines.filter((l) => typeof l.result === 'number').map((l) => l.result);
    assert.deepEqual(counts, [1, 2147483647], 'the monitor skips it; listIndexes shows 2147483647');
  },
  '06-cosmos-per-document-ttl.ttlbook': (lines) => {
    const lists = lines
      .filter((l) => Array.isArray(l.result))
      .map((l) => (l.result as Array<{ cart: string }>).map((d) => d.cart));
    assert.deepEqual(lists[0], ['default', 'forever', 'invalid ttl is ignored']);
    assert.deepEqual(lists[1], ['forever']);
  },
};

describe('examples/ run clean under the CLI', () => {
  const files = fs.existsSync(examples)
    ? fs.readdirSync(examples).filter((f) => f.endsWith('.ttlbook') || f.endsWith('.js'))
    : [];
  test('there are example playgrounds', () => {
    assert.ok(files.length >= 6);
  });
  for (const file of files) {
    test(`${file} runs clean and shows what the TTL rules predict`, () => {
      const r = run(['run', '--json', path.join(examples, file)]);
      assert.equal(r.code, 0, `${file} failed:\n${r.stderr}`);
      const lines = jsonLines(r.stdout);
      assert.ok(lines.every((l) => l.ok));
      const check = EXPECTATIONS[file];
      assert.ok(check, `add expectations for ${file}`);
      check(lines);
    });
  }
});

describe('run --data DIR: the engine kept in a folder across runs', () => {
  test('a second run sees what the first left: data, TTL index, virtual clock; TTL keeps working across runs', () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-cli-data-'));
    tempDirs.push(data);
    const first = tempFile(
      'first.js',
      [
        'db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 })',
        'db.sessions.insertMany([{ _id: 1, lastSeen: new Date() }, { _id: 2, lastSeen: new Date(Date.now() + 2 * 3600 * 1000) }])',
        'clock.advance("30m")',
      ].join('\n'),
    );
    const a = run(['run', '--json', '--now', '2026-01-01T00:00:00Z', '--data', data, first]);
    assert.equal(a.code, 0, a.stderr);
    const second = tempFile(
      'second.js',
      [
        'db.sessions.getIndexes().map((i) => [i.name, i.expireAfterSeconds ?? null])',
        'new Date().toISOString()',
        'clock.advance("31m")',
        'db.sessions.find().toArray().map((d) => d._id)',
      ].join('\n'),
    );
    const b = jsonLines(run(['run', '--json', '--data', data, second]).stdout);
    assert.deepEqual(b[0].result, [
      ['_id_', null],
      ['lastSeen_1', 3600],
    ]);
    assert.equal(
      b[1].result,
      '2026-01-01T00:30:00.000Z',
      'the virtual clock continued where the first run left it (not now)',
    );
    assert.deepEqual(b[3].result, [2], 'document 1 expired after 1 h 1 min of virtual time, across two runs');
  });

  test('a new folder without --now starts at the current time (quickly: no pass for every minute since 1970)', () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-cli-new-'));
    tempDirs.push(data);
    const started = Date.now();
    const r = run(['run', '--json', '--data', data, tempFile('now.js', 'new Date().getTime()')]);
    assert.equal(r.code, 0, r.stderr);
    const t = jsonLines(r.stdout)[0].result as number;
    assert.ok(t >= started - 1000 && t <= Date.now() + 1000, `clock at ${t}, wall ${started}`);
  });

  test('a folder in use by another writer is reported, and the run fails instead of writing', () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-cli-locked-'));
    tempDirs.push(data);
    fs.writeFileSync(
      path.join(data, 'LOCK'),
      JSON.stringify({ pid: process.pid, since: '2026-01-01T00:00:00Z', by: 'a test' }),
    );
    const r = run(['run', '--data', data, tempFile('w.js', 'db.c.insertOne({ a: 1 })')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /is in use by process \d+ \(a test\)/);
  });
});

describe('run --data DIR --clock system: durable data on the system clock', () => {
  test('the folder keeps the system clock across runs; a folder whose virtual clock is ahead refuses the switch', () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-cli-system-'));
    tempDirs.push(data);
    const started = Date.now();
    const a = run([
      'run',
      '--json',
      '--clock',
      'system',
      '--data',
      data,
      tempFile('w.js', 'db.c.insertOne({ a: 1 })\nnew Date().getTime()'),
    ]);
    assert.equal(a.code, 0, a.stderr);
    // Without --clock, the folder's stored mode: the system clock (time passes by itself, no advance).
    const b = run([
      'run',
      '--json',
      '--data',
      data,
      tempFile('r.js', 'db.c.countDocuments()\nnew Date().getTime()\nclock.advance("1h")'),
    ]);
    const lines = jsonLines(b.stdout);
    assert.equal(lines[0].result, 1);
    const t = lines[1].result as number;
    assert.ok(t >= started && t <= Date.now() + 1000, 'the engine reads the system time');
    assert.equal(lines[2].ok, false, 'the system clock cannot be advanced');

    const ahead = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-cli-ahead-'));
    tempDirs.push(ahead);
    assert.equal(
      run(['run', '--data', ahead, tempFile('a.js', 'db.c.insertOne({ a: 1 })\nclock.advance("2d")')]).code,
      0,
    );
    const refused = run(['run', '--clock', 'system', '--data', ahead, tempFile('c.js', 'db.c.countDocuments()')]);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /keeps a virtual clock at .*, 1 day ahead of the system clock: switching it to the system clock would move time backwards/,
    );
  });
});

describe('run --read-only: a folder another process writes to', () => {
  test('reads what the holder wrote; writes fail with IllegalOperation (20); the holder keeps its lock', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-cli-readonly-'));
    tempDirs.push(data);
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data', data], { cwd: root });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const uri = await new Promise<string>((resolve, reject) => {
        let stdout = '';
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          if (stdout.includes('\n')) resolve(stdout.split('\n')[0]);
        });
        child.once('exit', () => reject(new Error(`serve exited: ${stderr}`)));
      });
      const client = new MongoClient(uri);
      try {
        await client
          .db('test')
          .collection('events')
          .insertMany([{ _id: 1 as never }, { _id: 2 as never }]);
      } finally {
        await client.close();
      }
      const lockBefore = fs.readFileSync(path.join(data, 'LOCK'), 'utf8');
      const plain = run(['run', '--data', data, tempFile('w.js', 'db.events.countDocuments()')]);
      assert.equal(plain.code, 1);
      assert.match(plain.stderr, /is in use by process \d+ .*Open it read-only/);

      const r = run([
        'run',
        '--json',
        '--read-only',
        '--data',
        data,
        tempFile('ro.js', 'db.events.countDocuments()\ndb.events.insertOne({ _id: 3 })'),
      ]);
      assert.equal(r.code, 1);
      const lines = jsonLines(r.stdout);
      assert.equal(lines[0].result, 2, r.stdout + r.stderr);
      assert.equal(lines[1].error?.code, 20);
      assert.equal(lines[1].error?.codeName, 'IllegalOperation');
      assert.match(lines[1].error?.message ?? '', /Cannot run insert: the engine is read-only/);
      assert.match(r.stderr, /opened with --read-only: nothing is written/);
      assert.equal(fs.readFileSync(path.join(data, 'LOCK'), 'utf8'), lockBefore, 'the holder still holds the folder');
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
  });
});

describe('run: printed lines as they are printed', () => {
  test('a line printed at the start of a long statement is written before the statement ends', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-cli-print-'));
    const file = path.join(dir, 'progress.js');
    fs.writeFileSync(
      file,
      '{ print("started"); for (let i = 0; i < 20000; i++) db.c.insertOne({ i }); print("done") }\ndb.c.countDocuments({})\n',
    );
    const writes: Array<{ text: string; at: number }> = [];
    const outcome = runFile(
      file,
      { files: [file], clock: 'virtual', json: false, timeoutMs: 60_000 },
      (text) => writes.push({ text, at: performance.now() }),
      () => undefined,
    );
    assert.equal(outcome.ok, true);
    assert.equal(writes.map((w) => w.text).join(''), 'started\ndone\n');
    const started = writes.find((w) => w.text === 'started\n')!;
    const done = writes.find((w) => w.text === 'done\n')!;
    assert.ok(
      done.at - started.at > 50,
      `"started" was written ${(done.at - started.at).toFixed(0)} ms before "done", while the statement ran`,
    );
  });
});

describe('serve --auth', () => {
  test('the connection string has no password; with the credentials the driver works, without them find is refused (13)', async () => {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--auth', 'app:s3cret:x'], { cwd: root });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const uri = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          if (stdout.includes('\n')) resolve(stdout.split('\n')[0]);
        });
        child.once('exit', () => reject(new Error(`serve exited: ${stderr}`)));
      });
      assert.match(uri, /^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
      // stderr's note follows the first line on another pipe: wait for it.
      for (let i = 0; i < 100 && !stderr.includes('\n'); i++) await new Promise((r) => setTimeout(r, 20));
      assert.doesNotMatch(stdout + stderr, /s3cret/, 'the password is printed nowhere');
      assert.match(
        stderr,
        /authentication required \(SCRAM-SHA-256, user app in admin\): connect with mongodb:\/\/app:<password>@127/,
      );
      const withCredentials = new MongoClient(uri.replace('mongodb://', 'mongodb://app:s3cret%3Ax@'));
      const without = new MongoClient(uri, { serverSelectionTimeoutMS: 2000 });
      try {
        await withCredentials.db('app').collection('c').insertOne({ a: 1 });
        assert.equal(await withCredentials.db('app').collection('c').countDocuments(), 1);
        await assert.rejects(
          without.db('app').collection('c').findOne({}),
          (e: unknown) => e instanceof MongoServerError && e.code === 13,
        );
      } finally {
        await withCredentials.close();
        await without.close();
      }
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
  });
});

describe('run: print streams to stdout', () => {
  test('a loop printing every 100 inserts shows each line on stdout while the script still runs (a child process read as it writes)', async () => {
    const file = tempFile(
      'loop.js',
      'for (let i = 1; i <= 3000; i++) { db.c.insertOne({ i }); if (i % 100 === 0) print(`inserted ${i}`); }\n',
    );
    const child = spawn(process.execPath, [cli, 'run', file], { cwd: root });
    // When each chunk arrives: with streaming, the first line comes long before the last.
    const arrivals: Array<{ text: string; at: number }> = [];
    child.stdout.setEncoding('utf8').on('data', (d: string) => arrivals.push({ text: d, at: performance.now() }));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0);
    const text = arrivals.map((a) => a.text).join('');
    assert.equal(text, Array.from({ length: 30 }, (_, k) => `inserted ${(k + 1) * 100}\n`).join(''));
    assert.ok(arrivals.length > 1, 'stdout arrived in one piece at the end: print did not stream');
    const first = arrivals.find((a) => a.text.includes('inserted 100\n'))!;
    const last = arrivals.find((a) => a.text.includes('inserted 3000\n'))!;
    assert.ok(
      last.at - first.at > 20,
      `the first line came only ${(last.at - first.at).toFixed(0)} ms before the last`,
    );
  });
});

describe('run: a .js file prints what mongosh FILE.js prints', () => {
  const source = 'db.c.insertOne({ _id: 1 })\nprint("hi")\ndb.c.countDocuments()\n';

  test('without --echo only printed lines are written, as mongosh shows no statement values for a file', () => {
    const r = run(['run', tempFile('quiet.js', source)]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'hi\n');
  });

  test('--echo also writes each statement value, as a notebook shows them', () => {
    const r = run(['run', '--echo', tempFile('echo.js', source)]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{ acknowledged: true, insertedId: 1 }\nhi\n1\n');
  });

  test('a notebook whose engine metadata names a replSet runs on a replica-set engine: its transactions commit', () => {
    const book = [
      '// ---',
      '// engine: {"replSet": "rs0"}',
      '// ---',
      '// %%',
      'const s = db.getMongo().startSession()',
      's.startTransaction()',
      's.getDatabase("test").c.insertOne({ _id: 1 })',
      's.commitTransaction()',
      'db.c.countDocuments()',
    ].join('\n');
    const r = run(['run', tempFile('txn.ttlbook', book)]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\n1\n$/);
    // The same notebook without the metadata: the standalone refuses, naming the way out.
    const standalone = run(['run', tempFile('txn2.ttlbook', book.replace('{"replSet": "rs0"}', '{}'))]);
    assert.notEqual(standalone.code, 0);
    assert.match(standalone.stdout + standalone.stderr, /\(code 20, IllegalOperation\)/);
    assert.match(standalone.stdout + standalone.stderr, /engine metadata to \{"replSet": "rs0"\}/);
  });

  test('a .ttlbook notebook shows each statement value without --echo', () => {
    const r = run(['run', tempFile('book.ttlbook', '// %%\n' + source)]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{ acknowledged: true, insertedId: 1 }\nhi\n1\n');
  });
});
