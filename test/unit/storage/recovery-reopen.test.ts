/**
 * What is recovered stays recovered (reliability issue, item 1). A data folder is damaged at a
 * seeded random place (flipped bytes, a zeroed range, a truncation, garbage appended, a damaged
 * snapshot beside a good journal), opened, and then closed and reopened five times, with and
 * without writes in between: every reopen shows exactly the first recovery plus the writes
 * acknowledged since, with every index agreeing with its documents, and reports no new damage.
 * Before the fix the first recovery's documents vanished at the second open (the damaged journal
 * was set aside and nothing else held them).
 */
import type { spawn as childProcessSpawn } from 'node:child_process';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { VirtualClock, type Engine } from '../../../src/engine';
import {
  acknowledgeDamage,
  closeStoredEngine,
  compact,
  openStoredEngine,
  type OpenedEngine,
} from '../../../src/storage/engine-store';
import { prng } from '../helpers/prng';
import { assertIndexesAgree, dump } from './engine-state';

const T0 = Date.UTC(2026, 0, 1);
const tmpDir = (tag: string) => fs.mkdtempSync(path.join(os.tmpdir(), `ttl-reopen-${tag}-`));

function open(dir: string): OpenedEngine {
  return openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) }, autoCompact: false });
}

/** A few hundred commands over a collection with a TTL index, a unique index, a compound one and a partial one, and a clustered collection. */
function workload(engine: Engine, rand: () => number, from: number, commands: number): void {
  const int = (n: number) => Math.floor(rand() * n);
  for (let i = 0; i < commands; i++) {
    const id = from + i;
    const pick = int(10);
    if (pick < 6) {
      const docs = Array.from({ length: 1 + int(4) }, (_, k) => ({
        _id: id * 10 + k,
        u: `u${id * 10 + k}`,
        v: int(50),
        t: new Date(T0 + (int(48) - 24) * 3_600_000),
        tags: [int(5), int(5)],
        s: 'x'.repeat(int(40)),
      }));
      engine.runCommand('app', { insert: 'c', documents: docs });
    } else if (pick < 8) {
      engine.runCommand('app', {
        update: 'c',
        updates: [{ q: { v: int(50) }, u: { $set: { v: int(50), w: { n: int(9) } } }, multi: true }],
      });
    } else if (pick < 9) {
      engine.runCommand('app', { delete: 'c', deletes: [{ q: { v: int(50) }, limit: 1 }] });
    } else {
      engine.runCommand('app', { insert: 's', documents: [{ _id: new Date(T0 + id * 1000), who: id }] });
    }
  }
}

/** A folder holding a journal (and, with `compacted`, a snapshot followed by a second journal). */
async function buildFolder(compacted: boolean): Promise<string> {
  const dir = tmpDir('template');
  const o = open(dir);
  const rand = prng(compacted ? 7 : 3);
  o.engine.runCommand('app', {
    createIndexes: 'c',
    indexes: [
      { key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 },
      { key: { u: 1 }, name: 'u_1', unique: true },
      { key: { v: 1, tags: -1 }, name: 'v_1_tags_-1' },
      { key: { s: 1 }, name: 's_1', partialFilterExpression: { v: { $gt: 25 } } },
    ],
  });
  o.engine.runCommand('app', {
    create: 's',
    clusteredIndex: { key: { _id: 1 }, unique: true },
    expireAfterSeconds: 7200,
  });
  workload(o.engine, rand, 0, 150);
  if (compacted) {
    await compact(o.engine, o.store);
    workload(o.engine, rand, 1000, 150);
  }
  o.engine.close();
  o.store.close();
  return dir;
}

type Kind = 'flip' | 'zero' | 'truncate' | 'garbage' | 'snapshot-flip' | 'snapshot-zero' | 'snapshot-truncate';
const KINDS: Kind[] = ['flip', 'zero', 'truncate', 'garbage', 'snapshot-flip', 'snapshot-zero', 'snapshot-truncate'];

function newest(dir: string, re: RegExp): string {
  const files = fs
    .readdirSync(dir)
    .filter((f) => re.test(f))
    .sort((a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]));
  return path.join(dir, files[files.length - 1]);
}

/** Damage one file of `dir` in place; returns what was done, for messages. */
function damage(dir: string, kind: Kind, rand: () => number): string {
  const file = kind.startsWith('snapshot') ? newest(dir, /^snapshot-\d+\.ttls$/) : newest(dir, /^journal-\d+\.ttlj$/);
  const bytes = fs.readFileSync(file);
  const at = Math.floor(rand() * bytes.length);
  const name = path.basename(file);
  switch (kind) {
    case 'flip':
    case 'snapshot-flip': {
      const n = 1 + Math.floor(rand() * 4);
      for (let i = 0; i < n && at + i < bytes.length; i++) bytes[at + i] ^= 1 + Math.floor(rand() * 255);
      fs.writeFileSync(file, bytes);
      return `${name}: ${n} byte(s) flipped at ${at}`;
    }
    case 'zero':
    case 'snapshot-zero': {
      const n = 1 + Math.floor(rand() * 600);
      bytes.fill(0, at, Math.min(bytes.length, at + n));
      fs.writeFileSync(file, bytes);
      return `${name}: ${n} bytes zeroed at ${at}`;
    }
    case 'truncate':
    case 'snapshot-truncate':
      fs.writeFileSync(file, bytes.subarray(0, at));
      return `${name}: cut at ${at} of ${bytes.length}`;
    case 'garbage': {
      const junk = Buffer.alloc(1 + Math.floor(rand() * 3000));
      for (let i = 0; i < junk.length; i++) junk[i] = Math.floor(rand() * 256);
      fs.appendFileSync(file, junk);
      return `${name}: ${junk.length} bytes of garbage appended`;
    }
  }
}

describe('recovered data survives every later reopen', () => {
  it('damage at random offsets of journals and snapshots: five reopens, with and without writes between, give the first recovery plus the acknowledged writes, indexes agreeing', async () => {
    const templates = { plain: await buildFolder(false), compacted: await buildFolder(true) };
    const rand = prng(20261125);
    const CASES = 56;
    const outcomes = new Map<string, number>();
    for (let n = 0; n < CASES; n++) {
      const kind = KINDS[n % KINDS.length];
      const template = kind.startsWith('snapshot') || n % 2 === 1 ? templates.compacted : templates.plain;
      const dir = tmpDir(kind);
      fs.cpSync(template, dir, { recursive: true });
      const what = damage(dir, kind, rand);
      const first = open(dir);
      const label = `case ${n} (${what})`;
      let expected: string;
      try {
        assertIndexesAgree(first.engine, `${label}, first open: `);
        const outcome =
          first.recovery.stoppedAt || first.recovery.needsBaseSnapshot
            ? 'recovered from damage'
            : first.recovery.problems.length
              ? 'torn tail cut'
              : 'clean';
        outcomes.set(`${kind}: ${outcome}`, (outcomes.get(`${kind}: ${outcome}`) ?? 0) + 1);
        expected = dump(first.engine);
      } finally {
        closeStoredEngine(first);
      }
      for (let round = 1; round <= 5; round++) {
        const again = open(dir);
        try {
          assert.deepEqual(again.recovery.problems, [], `${label}, reopen ${round}: no new damage`);
          assert.equal(
            dump(again.engine),
            expected,
            `${label}, reopen ${round}: the state is the first recovery plus the acknowledged writes`,
          );
          assertIndexesAgree(again.engine, `${label}, reopen ${round}: `);
          if (round % 2 === 1) {
            workload(again.engine, rand, 10_000 * (n + 1) + round * 100, 5);
            expected = dump(again.engine);
          }
        } finally {
          closeStoredEngine(again);
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
    console.log(
      `reopen loops: ${CASES} damaged folders x 6 opens; outcomes: ${[...outcomes].map(([k, v]) => `${k} ${v}`).join(', ')}`,
    );
  });

  it('a damaged journal is kept aside under a second name, and the state recovered before the damage is saved before any write', async () => {
    const dir = await buildFolder(false);
    const journal = path.join(dir, 'journal-0.ttlj');
    const bytes = fs.readFileSync(journal);
    bytes.writeUInt32LE(0xdeadbeef, Math.floor(bytes.length / 2));
    fs.writeFileSync(journal, bytes);
    const first = open(dir);
    const count = first.engine.getCollection('app', 'c')!.records.size;
    assert.ok(count > 0, 'something was recovered before the damage');
    assert.match(first.notes.join('\n'), /journal-0\.ttlj: damaged at byte offset \d+/);
    assert.match(first.notes.join('\n'), /journal-0\.ttlj was kept as journal-0\.ttlj\.damaged-\d+/);
    assert.match(first.notes.join('\n'), /the recovered state \(\d+ documents: app\.c \d+, app\.s \d+\) was saved/);
    // Kept until acknowledged: the next open still carries it, the acknowledgement removes it.
    assert.equal(first.damage?.recoveries.length, 1);
    assert.deepEqual(Object.keys(first.damage.recoveries[0].documents).sort(), ['app.c', 'app.s']);
    const files = fs.readdirSync(dir).sort();
    assert.ok(files.includes('snapshot-1.ttls') && files.includes('journal-1.ttlj'), files.join(' '));
    const kept = files.find((f) => f.startsWith('journal-0.ttlj.damaged-'))!;
    assert.deepEqual(fs.readFileSync(path.join(dir, kept)), bytes, 'the damaged bytes are kept as they were');
    closeStoredEngine(first);
    const second = open(dir);
    assert.equal(
      second.engine.getCollection('app', 'c')!.records.size,
      count,
      'the recovered documents are still there at the next open',
    );
    assert.match(
      second.damage?.recoveries[0].notes.join('\n') ?? '',
      /journal-0\.ttlj: damaged at byte offset/,
      'the damage is still shown at the next open',
    );
    acknowledgeDamage(dir);
    closeStoredEngine(second);
    const third = open(dir);
    assert.equal(third.damage, undefined, 'acknowledged');
    assert.ok(
      fs.readdirSync(dir).some((f) => f.startsWith('journal-0.ttlj.damaged-')),
      'the kept copy stays after the acknowledgement',
    );
    closeStoredEngine(third);
  });
});

/** A document count and the dump, for comparing with what a killed child left. */
function stateOf(dir: string): { dump: string; notes: string[] } {
  const o = open(dir);
  try {
    assertIndexesAgree(o.engine);
    return { dump: dump(o.engine), notes: o.notes };
  } finally {
    closeStoredEngine(o);
  }
}

const CHILD = path.join(__dirname, 'recovery-child.js');

describe('kill -9 while the recovered state is being saved', () => {
  const ROUNDS = Number(process.env.RECOVERY_KILL_ROUNDS ?? 100);
  it(`the next open recovers the same state, whenever the kill comes (${ROUNDS} rounds)`, async () => {
    const { spawn } = await import('node:child_process');
    const template = await buildFolder(true);
    // Bigger than the workload folder, so saving takes long enough to be hit.
    {
      const o = open(template);
      for (let i = 0; i < 12; i++)
        o.engine.runCommand('app', {
          insert: 'bulk',
          documents: Array.from({ length: 500 }, (_, k) => ({ _id: i * 500 + k, p: 'y'.repeat(60), t: new Date(T0) })),
        });
      closeStoredEngine(o);
    }
    const journal = newest(template, /^journal-\d+\.ttlj$/);
    const bytes = fs.readFileSync(journal);
    bytes.writeUInt32LE(0xfeedface, Math.floor(bytes.length * 0.8));
    fs.writeFileSync(journal, bytes);
    const reference = tmpDir('reference');
    fs.cpSync(template, reference, { recursive: true });
    const expected = stateOf(reference).dump;
    // How long an open with the save takes, to spread the kills over it.
    const timing = tmpDir('timing');
    fs.cpSync(template, timing, { recursive: true });
    const openMs = (await runChild(spawn, timing, undefined)).ms;
    const rand = prng(99);
    let killedBeforeDone = 0;
    let lingering = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const dir = tmpDir('kill');
      fs.cpSync(template, dir, { recursive: true });
      // One or two kills in a row, then a clean open.
      const kills = 1 + Math.floor(rand() * 2);
      for (let k = 0; k < kills; k++)
        if (!(await runChild(spawn, dir, rand() * openMs * 1.2)).finished) killedBeforeDone++;
      const after = stateOf(dir);
      assert.equal(
        after.dump,
        expected,
        `round ${round}: the state after ${kills} kill(s) differs from the first recovery`,
      );
      assert.ok(
        fs.readdirSync(dir).some((f) => /\.damaged-\d+$/.test(f)),
        `round ${round}: the damaged journal is kept`,
      );
      if (fs.readdirSync(dir).filter((f) => /\.damaged-\d+$/.test(f)).length > 1) lingering++;
      fs.rmSync(dir, { recursive: true, force: true });
    }
    console.log(
      `recovery kill rounds: ${ROUNDS}; open with save ~${openMs.toFixed(0)} ms; children killed before they finished: ${killedBeforeDone}; folders with more than one kept name: ${lingering}`,
    );
  });
});

/**
 * Open `dir` in a child (which exits by itself once open), and kill it `killAfterMs` after it
 * says it starts opening. Resolves whether it finished first, and how long its open took.
 */
function runChild(
  spawn: typeof childProcessSpawn,
  dir: string,
  killAfterMs: number | undefined,
): Promise<{ finished: boolean; ms: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let started = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    child.stdout.on('data', () => {
      if (started) return;
      started = performance.now();
      if (killAfterMs !== undefined) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal === 'SIGKILL') return resolve({ finished: false, ms: 0 });
      if (code !== 0) return reject(new Error(`the child failed (${code}): ${stderr}`));
      resolve({ finished: true, ms: performance.now() - started });
    });
  });
}
