/**
 * Runs killed with SIGKILL mid-way (durable storage issue, item 1: "Check the same for
 * `Import EJSON…`/`--data` runs interrupted mid-way").
 *
 * 1. Import EJSON: a child opens a data folder and imports an export of three collections (a TTL
 *    and a unique index, 10,400 documents: two batches; a clustered collection with
 *    expireAfterSeconds; a capped one), and is killed at a random moment of a random phase (the
 *    parse, one of the import's commands, the close). The folder then holds exactly the state
 *    after some prefix of the import's commands (create, createIndexes, inserts of 10,000
 *    documents), at least the acknowledged ones and at most the one in flight: each collection
 *    absent, or present with the exported options, its indexes as exported (or only the ones
 *    `create` makes, before createIndexes ran) and a prefix of its documents in whole batches;
 *    indexes agree with the documents; the second and third open give the same dump. A retry of
 *    the import is refused before it changes anything (NamespaceExists), naming every collection
 *    the import left, and completes when nothing was stored.
 * 2. `ttl-workbench run --data DIR`: the bundled CLI (built before the tests, see
 *    scripts/test-unit.js) runs a script of a few thousand statements that print an
 *    acknowledgement after each insert, and is killed at a random moment, round after round on the
 *    same folder: the folder holds the earlier state plus the script's first inserts, each whole,
 *    every acknowledged one among them; indexes agree; reopens give the same dump. (The
 *    acknowledgements read are a lower bound: see verifyRun.) A few rounds first damage the
 *    journal (4 bytes overwritten in its middle): the run reports the damage and how many
 *    documents it recovered, is killed mid-way, and the next open holds the recovered documents
 *    plus the acknowledged ones.
 * Kill timing is random; the assertions hold for every timing. Rounds: IMPORT_KILL_ROUNDS (50),
 * RUN_KILL_ROUNDS (50), RUN_DAMAGED_ROUNDS (5).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EJSON } from 'bson';
import { Engine, VirtualClock, type Document } from '../../../src/engine';
import { exportDatabaseText, importDatabaseText } from '../../../src/engine/storage/export';
import { documentFromStorage, storableDocument } from '../../../src/engine/storage/values';
import { closeStoredEngine, openStoredEngine, type OpenedEngine } from '../../../src/storage/engine-store';
import { prng } from '../helpers/prng';
import { assertIndexesAgree, dump } from './engine-state';

const T0 = Date.UTC(2026, 0, 1);
const IMPORT_ROUNDS = Number(process.env.IMPORT_KILL_ROUNDS ?? 50);
const RUN_ROUNDS = Number(process.env.RUN_KILL_ROUNDS ?? 50);
const DAMAGED_ROUNDS = Number(process.env.RUN_DAMAGED_ROUNDS ?? 5);
const IMPORT_CHILD = path.join(__dirname, 'import-child.js');
const CLI = path.resolve(__dirname, '..', '..', '..', '..', 'dist', 'cli.js');
const BATCH = 10_000;

const tmpDir = (tag: string) => fs.mkdtempSync(path.join(os.tmpdir(), `ttl-interrupted-${tag}-`));
const open = (dir: string, options: { durability?: 'batched' } = {}): OpenedEngine =>
  openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) }, autoCompact: false, ...options });
/** Back to the event loop: the other kind of run's timers and pipes get their turn between opens. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Opens 2 and 3 of a folder after the first: nothing left to report, the same state each time.
 * `atLast` runs on the third open's engine (what a user does next).
 */
async function reopenTwice(
  dir: string,
  state: string,
  where: string,
  atLast?: (again: OpenedEngine) => void,
): Promise<void> {
  for (const reopen of [2, 3]) {
    await turn();
    const again = open(dir);
    try {
      assert.deepEqual(again.recovery.problems, [], `${where}, open ${reopen}: no problem left to report`);
      assert.equal(dump(again.engine), state, `${where}, open ${reopen}: the same state as the first open`);
      if (reopen === 3) atLast?.(again);
    } finally {
      closeStoredEngine(again);
    }
  }
}
const ejson = (value: Document) => EJSON.stringify(storableDocument(value), { relaxed: false });

interface Killed {
  /** Complete stdout lines. */
  lines: string[];
  stderr: string;
  /** false: the child finished before the kill. */
  killed: boolean;
  /** ms from the start line to the child's exit (a finished child only). */
  ms: number;
  /** ms from the start line to the arrival of each line after it (the first time it came). */
  arrival: Map<string, number>;
}

/**
 * Spawn `args`; once a stdout line `startLine` (or `startLine` followed by a space and more)
 * arrives, or at spawn when `startLine` is undefined, kill it with SIGKILL after `killAfterMs`
 * (never, when undefined).
 */
function runKilled(args: string[], startLine: string | undefined, killAfterMs: number | undefined): Promise<Killed> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let rest = '';
    let stderr = '';
    let started = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arrival = new Map<string, number>();
    const start = () => {
      started = performance.now();
      if (killAfterMs !== undefined) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    };
    if (startLine === undefined) start();
    child.stdout.on('data', (chunk: Buffer) => {
      const parts = (rest + chunk.toString('utf8')).split('\n');
      rest = parts.pop()!;
      for (const line of parts) {
        lines.push(line);
        if (started && !arrival.has(line)) arrival.set(line, performance.now() - started);
        if (!started && (line === startLine || line.startsWith(`${startLine} `))) start();
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    // 'close', not 'exit': every line the child wrote has been read by then.
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal === 'SIGKILL') return resolve({ lines, stderr, killed: true, ms: 0, arrival });
      if (code !== 0) return reject(new Error(`${path.basename(args[0])} exited with ${code ?? signal}: ${stderr}`));
      resolve({ lines, stderr, killed: false, ms: performance.now() - started, arrival });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// 1. Import EJSON interrupted

/** The export: events (TTL + unique index, 10,400 documents: two batches), logs (clustered, TTL), recent (capped). */
function exportText(): string {
  const engine = new Engine({ clock: new VirtualClock(T0) });
  const rand = prng(20261126);
  const int = (n: number) => Math.floor(rand() * n);
  engine.runCommand('app', {
    createIndexes: 'events',
    indexes: [
      { key: { at: 1 }, name: 'at_1', expireAfterSeconds: 3600 },
      { key: { u: 1 }, name: 'u_1', unique: true },
    ],
  });
  engine.runCommand('app', {
    create: 'logs',
    clusteredIndex: { key: { _id: 1 }, unique: true },
    expireAfterSeconds: 7200,
  });
  engine.runCommand('app', { create: 'recent', capped: true, size: 4 << 20, max: 5000 });
  const events = Array.from({ length: 10_400 }, (_, i) => ({
    _id: i,
    u: 7 * i + int(7),
    at: new Date(T0 + (int(96) - 24) * 3_600_000),
  }));
  engine.runCommand('app', { insert: 'events', documents: events });
  engine.runCommand('app', {
    insert: 'logs',
    documents: Array.from({ length: 600 }, (_, i) => ({
      _id: new Date(T0 + i * 1000),
      level: ['info', 'warn', 'error'][int(3)],
      n: i,
    })),
  });
  engine.runCommand('app', {
    insert: 'recent',
    documents: Array.from({ length: 400 }, (_, i) => ({ n: i, meta: { k: int(9) } })),
  });
  const text = exportDatabaseText(engine, 'app');
  engine.close();
  return text;
}

/** The dump after each command of the import (index 0: before any), replayed on an in-memory engine, with a label each. */
function importPrefixes(text: string): { dumps: string[]; labels: string[] } {
  const engine = new Engine({ clock: new VirtualClock(T0) });
  const dumps = [dump(engine)];
  const labels = ['nothing'];
  const counts = new Map<string, number>();
  const run = engine.runCommand.bind(engine);
  let dumping = false;
  engine.runCommand = (db: string, command: Document): Document => {
    const reply = run(db, command);
    if (!dumping) {
      dumping = true;
      try {
        dumps.push(dump(engine));
      } finally {
        dumping = false;
      }
      const name = String(command.create ?? command.createIndexes ?? command.insert);
      if (command.create !== undefined) labels.push(`${name} created`);
      else if (command.createIndexes !== undefined) labels.push(`${name} indexed`);
      else {
        counts.set(name, (counts.get(name) ?? 0) + (command.documents as Document[]).length);
        labels.push(`${name} ${counts.get(name)} docs`);
      }
    }
    return reply;
  };
  importDatabaseText(engine, text);
  engine.close();
  return { dumps, labels };
}

interface ExportedCollection {
  name: string;
  options: string;
  indexes: string[];
  docs: string[];
}

/**
 * The folder's state is a prefix of the import, collection by collection; throws a precise
 * message otherwise. Returns the partly imported collection, if any. The documents themselves are
 * compared only on request (the dump comparison covers them; this names the first difference).
 */
function assertImportPrefix(
  engine: Engine,
  exported: ExportedCollection[],
  context: string,
  compareDocuments = false,
): string | undefined {
  let cut: string | undefined; // the first collection not complete: every later one must be absent
  let partial: string | undefined;
  for (const c of exported) {
    const coll = engine.getCollection('app', c.name);
    if (!coll) {
      cut ??= c.name;
      continue;
    }
    assert.equal(
      cut,
      undefined,
      `${context}: app.${c.name} is there but app.${cut}, imported before it, is not complete`,
    );
    assert.equal(ejson(coll.options as Document), c.options, `${context}: app.${c.name} options`);
    const specs = [...coll.indexes.values()].map((i) => ejson(i.spec));
    const indexed = specs.length === c.indexes.length;
    assert.deepEqual(
      specs,
      c.indexes.slice(0, specs.length),
      `${context}: app.${c.name} indexes are not a prefix of the exported ones (the ones create makes, then all)`,
    );
    const count = coll.records.size;
    assert.ok(indexed || count === 0, `${context}: app.${c.name} has ${count} documents before its indexes`);
    assert.ok(
      count === c.docs.length || count % BATCH === 0,
      `${context}: app.${c.name} holds ${count} of ${c.docs.length} documents: not whole batches of ${BATCH}`,
    );
    if (compareDocuments) {
      let i = 0;
      for (const r of coll.records.values()) {
        const doc = ejson(r.doc);
        if (doc !== c.docs[i])
          assert.fail(`${context}: app.${c.name} document ${i} is ${doc}, exported as ${c.docs[i]}`);
        i++;
      }
    }
    if (!indexed || count < c.docs.length) {
      cut = c.name;
      partial = `${c.name} ${indexed ? `${count}/${c.docs.length} docs` : 'without its indexes'}`;
    }
  }
  return partial;
}

// ---------------------------------------------------------------------------------------------
// 2. `run --data DIR` interrupted

/** The shell's default database, where the scripts write. */
const RUN_DB = 'test';

/** A document of collection k, as the script writes it and as it is compared. */
type Row = { id: number; u: string; t: number; v: number };
const rowText = (r: Row) => `${r.u}|${r.t}|${r.v}`;

/**
 * A script: the indexes (no-ops once they exist), `print("R")`, then `statements` inserts of 1–3
 * documents, each followed by `print("A <j>")`. Returns the file and each insert's documents.
 */
function writeScript(file: string, rand: () => number, firstId: number, statements: number): Row[][] {
  const int = (n: number) => Math.floor(rand() * n);
  const lines = [
    'db.k.createIndex({t: 1}, {expireAfterSeconds: 3600});',
    'db.k.createIndex({u: 1}, {unique: true});',
    'print("R");',
  ];
  const inserts: Row[][] = [];
  let id = firstId;
  for (let j = 0; j < statements; j++) {
    const rows = Array.from({ length: 1 + int(3) }, (): Row => {
      const n = id++;
      return { id: n, u: `u${n}`, t: T0 + int(86_400) * 1000, v: int(100) };
    });
    inserts.push(rows);
    lines.push(
      `db.k.insertMany([${rows.map((r) => `{_id: ${r.id}, u: "${r.u}", t: new Date(${r.t}), v: ${r.v}}`).join(', ')}]);`,
      `print("A ${j}");`,
    );
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return inserts;
}

/** Collection test.k as rows by _id, and its index names in order. */
function rowsOf(engine: Engine): { rows: Map<number, string>; indexes: string[] } {
  const coll = engine.getCollection(RUN_DB, 'k');
  const rows = new Map<number, string>();
  if (!coll) return { rows, indexes: [] };
  for (const r of coll.records.values())
    rows.set(
      Number(r.doc._id),
      rowText({ id: Number(r.doc._id), u: String(r.doc.u), t: (r.doc.t as Date).getTime(), v: Number(r.doc.v) }),
    );
  const t = coll.indexes.get('t_1')?.spec;
  const u = coll.indexes.get('u_1')?.spec;
  if (t) assert.equal(Number(t.expireAfterSeconds), 3600, 't_1 keeps its expireAfterSeconds');
  if (u) assert.equal(u.unique, true, 'u_1 stays unique');
  return { rows, indexes: [...coll.indexes.keys()] };
}

const sameRows = (a: Map<number, string>, b: Map<number, string>) =>
  a.size === b.size && [...a].every(([id, text]) => b.get(id) === text);

interface RunTally {
  /** Rounds where an insert beyond the last acknowledgement read was stored. */
  inFlightStored: number;
  /** Of those, rounds where more than one was (acknowledgements lost with the killed process's unwritten output). */
  beyondLastAck: number;
  torn: number;
}

/**
 * After a killed run: the folder holds `model` plus the script's first inserts, each whole, at
 * least the acknowledged ones; indexes agree; the second and third open give the same dump.
 * Returns the new model.
 *
 * The acknowledgements read are a lower bound only: the CLI writes each statement's output as it
 * finishes, but once the pipe is full the rest waits inside the process (a run never returns to
 * its event loop) and dies with it. So what lies beyond the last acknowledgement read is checked
 * as "a prefix of the script's inserts, each whole" and counted, not bounded by it.
 */
async function verifyRun(
  dir: string,
  model: Map<number, string>,
  inserts: Row[][],
  result: Killed,
  context: string,
  tally: RunTally,
): Promise<Map<number, string>> {
  const acked = result.lines.filter((l) => /^A \d+$/.test(l)).reduce((n, l) => Math.max(n, Number(l.slice(2)) + 1), 0);
  const where = `${context} (${result.killed ? `killed, ${acked} inserts acknowledged` : 'finished'})`;
  let state: string;
  const next = new Map(model);
  const first = open(dir);
  try {
    assert.equal(
      first.recovery.stoppedAt,
      undefined,
      `${where}: corruption reported after a plain kill: ${first.recovery.problems.join('; ')}`,
    );
    tally.torn += first.recovery.problems.filter((p) => /torn/.test(p)).length;
    assertIndexesAgree(first.engine, `${where}: `);
    const { rows, indexes } = rowsOf(first.engine);
    assert.ok(
      ['', '_id_', '_id_ t_1', '_id_ t_1 u_1'].includes(indexes.join(' ')),
      `${where}: indexes ${indexes.join(' ')}`,
    );
    const missing = [...model.keys(), ...inserts.slice(0, acked).flatMap((rs) => rs.map((r) => r.id))].filter(
      (id) => !rows.has(id),
    );
    assert.deepEqual(
      missing.slice(0, 10),
      [],
      `${where}: ${missing.length} acknowledged (or earlier) documents are missing`,
    );
    let stored = 0;
    while (stored < inserts.length && inserts[stored].every((r) => rows.has(r.id))) stored++;
    for (const rs of inserts.slice(0, stored)) for (const r of rs) next.set(r.id, rowText(r));
    if (!sameRows(rows, next)) {
      const extra = [...rows.keys()].filter((id) => !next.has(id));
      const changed = [...next.keys()].filter((id) => rows.has(id) && rows.get(id) !== next.get(id));
      assert.fail(
        `${where}: the documents are not the earlier ones plus the script's first ${stored} inserts, each whole: ${extra.length} more (${extra.slice(0, 5).join(', ')}), ${changed.length} changed (${changed.slice(0, 5).join(', ')})`,
      );
    }
    if (stored > acked) tally.inFlightStored++;
    if (stored > acked + 1) tally.beyondLastAck++;
    state = dump(first.engine);
  } finally {
    closeStoredEngine(first);
  }
  await reopenTwice(dir, state, where);
  return next;
}

const cliArgs = (dir: string, script: string) => [CLI, 'run', '--now', '2026-01-01T00:00:00Z', '--data', dir, script];

// The two kinds of runs go side by side (two cores: one child each). Each child is killed by its own
// timer; the checks return to the event loop between opens, so a timer or a pipe waits at most
// one open (a late timer only moves a kill, and a kill may come at any moment anyway).
describe('runs killed mid-way with SIGKILL', { concurrency: true }, () => {
  describe('Import EJSON killed mid-way', () => {
    it(`leaves a prefix of the import: whole commands, whole batches, indexes agreeing, the same state at every reopen; a retry is refused untouched (${IMPORT_ROUNDS} rounds)`, async () => {
      const text = exportText();
      const exportFile = path.join(tmpDir('export'), 'app.json');
      fs.writeFileSync(exportFile, text);
      const parsed = documentFromStorage(EJSON.parse(text, { relaxed: false }) as Document);
      const exported: ExportedCollection[] = (parsed.collections as Document[]).map((c) => ({
        name: String(c.name),
        options: ejson(c.options as Document),
        indexes: (c.indexes as Document[]).map((s) => ejson(s)),
        docs: (c.documents as Document[]).map((d) => ejson(d)),
      }));
      const { dumps, labels } = importPrefixes(text);
      const full = dumps[dumps.length - 1];

      // An import run to the end: when each of its commands starts and returns, to spread the kills over all of them.
      const calibration = tmpDir('import-full');
      const done = await runKilled([IMPORT_CHILD, calibration, exportFile], 'S', undefined);
      const commands = dumps.length - 1;
      assert.equal(
        done.lines.filter((l) => l.startsWith('A ')).length,
        commands,
        'the child counts the same commands as the replay',
      );
      const at = (line: string) =>
        [...done.arrival].find(([l]) => l === line || (line === 'D' && l.startsWith('D ')))![1];
      {
        const o = open(calibration);
        assert.equal(dump(o.engine), full, 'a whole import gives the exported state');
        closeStoredEngine(o);
      }
      fs.rmSync(calibration, { recursive: true, force: true });
      /**
       * A moment in a random phase: the parse (0), command k (1..commands), the close after the
       * import returned (commands + 1); timed from the line that starts the phase, so the kill
       * lands near its phase however fast this machine is today.
       */
      const killMoment = (rand: () => number): { from: string; after: number } => {
        const k = Math.floor(rand() * (commands + 2));
        const from = k === 0 ? 'S' : k <= commands ? `B ${k}` : 'D';
        const length = k === 0 ? at('B 1') : k <= commands ? at(`A ${k}`) - at(`B ${k}`) : done.ms - at('D');
        return { from, after: rand() * length };
      };

      const rand = prng(20261127);
      const seen = new Map<string, number>();
      const retryMessages = new Set<string>();
      let killedDuringImport = 0;
      let inFlightStored = 0;
      let partialSeen = 0;
      let torn = 0;
      let retriedFromNothing = 0;
      for (let round = 0; round < IMPORT_ROUNDS; round++) {
        const dir = tmpDir('import');
        const kill = killMoment(rand);
        const result = await runKilled([IMPORT_CHILD, dir, exportFile], kill.from, kill.after);
        const finished = !result.killed || result.lines.some((l) => l.startsWith('D '));
        if (!finished) killedDuringImport++;
        const last = (tag: string) =>
          result.lines.filter((l) => l.startsWith(tag)).reduce((n, l) => Math.max(n, Number(l.slice(2))), 0);
        const acknowledged = last('A ');
        const begun = last('B ');
        const context = `round ${round} (killed ${kill.after.toFixed(0)} ms after ${kill.from}, ${finished ? 'after the import returned' : `${acknowledged} commands acknowledged, ${begun} begun`})`;
        let expected: string;
        const first = open(dir);
        try {
          assert.equal(
            first.recovery.stoppedAt,
            undefined,
            `${context}: corruption reported after a plain kill: ${first.recovery.problems.join('; ')}`,
          );
          torn += first.recovery.problems.filter((p) => /torn/.test(p)).length;
          assertIndexesAgree(first.engine, `${context}: `);
          if (assertImportPrefix(first.engine, exported, context)) partialSeen++;
          expected = dump(first.engine);
          const step = dumps.indexOf(expected);
          if (step < 0) {
            assertImportPrefix(first.engine, exported, context, true);
            assert.fail(`${context}: the state is not the one after any prefix of the import's commands`);
          }
          assert.ok(
            step >= acknowledged,
            `${context}: an acknowledged command is missing (the state is the one after ${step} commands: ${labels[step]})`,
          );
          assert.ok(step <= begun, `${context}: the state is the one after ${step} commands, beyond the one in flight`);
          if (step > acknowledged) inFlightStored++;
          if (finished)
            assert.equal(
              step,
              dumps.length - 1,
              `${context}: the import returned, yet the folder does not hold all of it`,
            );
          seen.set(labels[step], (seen.get(labels[step]) ?? 0) + 1);
        } finally {
          closeStoredEngine(first);
        }
        await reopenTwice(dir, expected, context, (again) => {
          // What a user who runs the import again sees.
          if (expected !== dumps[0]) {
            assert.throws(
              () => importDatabaseText(again.engine, text),
              (err: Error & { code?: number }) => {
                assert.equal(err.code, 48, `${context}: a retry is refused with NamespaceExists: ${err.message}`);
                const present = exported
                  .filter((c) => again.engine.getCollection('app', c.name))
                  .map((c) => `app.${c.name}`);
                assert.ok(
                  err.message.startsWith(`${present.join(', ')} already exist`),
                  `${context}: the refusal names every collection the import left (${present.join(', ')}): ${err.message}`,
                );
                retryMessages.add(err.message);
                return true;
              },
            );
            assert.equal(dump(again.engine), expected, `${context}: a refused retry changes nothing`);
          } else if (retriedFromNothing < 2) {
            importDatabaseText(again.engine, text);
            assert.equal(
              dump(again.engine),
              full,
              `${context}: a retry after a kill that stored nothing imports everything`,
            );
            retriedFromNothing++;
          }
        });
        fs.rmSync(dir, { recursive: true, force: true });
      }
      fs.rmSync(path.dirname(exportFile), { recursive: true, force: true });
      console.log(
        `import kill rounds: ${IMPORT_ROUNDS}; import of ${exported.reduce((n, c) => n + c.docs.length, 0)} documents ~${done.ms.toFixed(0)} ms (parse ~${at('B 1').toFixed(0)} ms); ` +
          `killed during the import: ${killedDuringImport} (command in flight stored: ${inFlightStored}); partial collections seen: ${partialSeen}; torn tails cut: ${torn}; ` +
          `states: ${labels
            .filter((l) => seen.has(l))
            .map((l) => `${l} ${seen.get(l)}`)
            .join(', ')}; retries from nothing completed: ${retriedFromNothing}`,
      );
      console.log(`import retry messages: ${[...retryMessages].join(' | ')}`);
    });
  });

  describe('ttl-workbench run --data killed mid-way', { concurrency: false }, () => {
    it(`keeps every acknowledged insert and at most the one in flight, whole; indexes agree; reopens agree (${RUN_ROUNDS} rounds)`, async () => {
      assert.ok(fs.existsSync(CLI), `${CLI} is missing: bundle with node esbuild.js (npm run test:unit does)`);
      const dir = tmpDir('run');
      const scripts = tmpDir('scripts');
      const rand = prng(20261128);
      let model = new Map<number, string>();
      const tally: RunTally = { inFlightStored: 0, beyondLastAck: 0, torn: 0 };
      let beforeReady = 0;
      let finished = 0;
      let acknowledged = 0;
      for (let round = 0; round < RUN_ROUNDS; round++) {
        const script = path.join(scripts, `round-${round}.js`);
        const inserts = writeScript(script, rand, round * 100_000, 1_000);
        // One round in five is killed from the spawn on (while the CLI loads and opens the folder), the others once the script runs.
        const fromSpawn = round % 5 === 4;
        const result = await runKilled(
          cliArgs(dir, script),
          fromSpawn ? undefined : 'R',
          fromSpawn ? rand() * 600 : rand() * 400,
        );
        if (!result.killed) finished++;
        else if (!result.lines.includes('R')) beforeReady++;
        acknowledged += result.lines.filter((l) => /^A \d+$/.test(l)).length;
        model = await verifyRun(dir, model, inserts, result, `round ${round}`, tally);
      }
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(scripts, { recursive: true, force: true });
      console.log(
        `run --data kill rounds: ${RUN_ROUNDS}; killed before the script started: ${beforeReady}; finished before the kill: ${finished}; inserts acknowledged: ${acknowledged}; documents at the end: ${model.size}; rounds with inserts stored beyond the last acknowledgement read: ${tally.inFlightStored} (more than one: ${tally.beyondLastAck}); torn tails cut: ${tally.torn}`,
      );
    });

    it(`after journal damage: the run reports it and the documents it recovered; killed mid-way, the next open holds those plus the acknowledged ones (${DAMAGED_ROUNDS} rounds)`, async () => {
      assert.ok(fs.existsSync(CLI), `${CLI} is missing: bundle with node esbuild.js (npm run test:unit does)`);
      const template = tmpDir('damaged-template');
      {
        const o = open(template, { durability: 'batched' });
        o.engine.runCommand(RUN_DB, {
          createIndexes: 'k',
          indexes: [
            { key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 },
            { key: { u: 1 }, name: 'u_1', unique: true },
          ],
        });
        for (let i = 0; i < 400; i++)
          o.engine.runCommand(RUN_DB, {
            insert: 'k',
            documents: [{ _id: 5_000_000 + i, u: `u${5_000_000 + i}`, t: new Date(T0 + i * 1000), v: i % 100 }],
          });
        closeStoredEngine(o);
      }
      const scripts = tmpDir('damaged-scripts');
      const rand = prng(20261129);
      const tally: RunTally = { inFlightStored: 0, beyondLastAck: 0, torn: 0 };
      const recovered: number[] = [];
      let acknowledged = 0;
      for (let round = 0; round < DAMAGED_ROUNDS; round++) {
        const dir = tmpDir('damaged');
        fs.cpSync(template, dir, { recursive: true });
        // The issue's reproduction: 4 bytes overwritten in the middle of the journal.
        const journal = path.join(dir, 'journal-0.ttlj');
        const bytes = fs.readFileSync(journal);
        const at = Math.floor(bytes.length / 2 + (rand() - 0.5) * (bytes.length / 4));
        bytes.writeUInt32LE(0xdeadbeef, at);
        fs.writeFileSync(journal, bytes);
        // What an open of the damaged folder recovers (on a copy).
        const reference = tmpDir('damaged-reference');
        fs.cpSync(dir, reference, { recursive: true });
        let model: Map<number, string>;
        {
          const o = open(reference);
          model = rowsOf(o.engine).rows;
          closeStoredEngine(o);
        }
        fs.rmSync(reference, { recursive: true, force: true });
        assert.ok(
          model.size > 0 && model.size < 400,
          `round ${round}: damage at ${at} of ${bytes.length} recovers part of the journal (${model.size})`,
        );
        recovered.push(model.size);
        const script = path.join(scripts, `round-${round}.js`);
        const inserts = writeScript(script, rand, 6_000_000 + round * 100_000, 1_000);
        const result = await runKilled(cliArgs(dir, script), 'R', rand() * 400);
        const context = `round ${round} (4 bytes overwritten at ${at} of ${bytes.length})`;
        assert.match(
          result.stderr,
          /journal-0\.ttlj: damaged at byte offset \d+/,
          `${context}: the run reports the damage`,
        );
        assert.ok(
          result.stderr.includes(`the recovered state (${model.size} documents: `),
          `${context}: the run says how many documents it recovered (${model.size}): ${result.stderr}`,
        );
        acknowledged += result.lines.filter((l) => /^A \d+$/.test(l)).length;
        await verifyRun(dir, model, inserts, result, context, tally);
        fs.rmSync(dir, { recursive: true, force: true });
      }
      fs.rmSync(template, { recursive: true, force: true });
      fs.rmSync(scripts, { recursive: true, force: true });
      console.log(
        `run --data after damage: ${DAMAGED_ROUNDS} rounds; documents recovered of 400: ${recovered.join(', ')}; inserts acknowledged after the damage: ${acknowledged}; rounds with inserts stored beyond the last acknowledgement read: ${tally.inFlightStored} (more than one: ${tally.beyondLastAck}); torn tails cut: ${tally.torn}`,
      );
    });
  });
});
