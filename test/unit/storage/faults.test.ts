/**
 * Fault injection (reliability issue, item 5): the disk fails `open`, `write`, `fsync`, `rename`,
 * `link`, `truncate`, `read`, `unlink` or `mkdir` with ENOSPC or EIO at a chosen call (once, or
 * from then on, as a disk that stays full), while the store opens a new, a torn or a damaged
 * folder, commits writes (fsync and batched), compacts, and closes. Every outcome must be one of:
 *   - the write is refused with an error that names the failure (MongoDB's InternalError, code 1),
 *     and no later write is acknowledged through the failed journal;
 *   - the folder opens read-only, with a note that says why;
 *   - the open is refused with an error naming the file;
 *   - the failure is absorbed (a leftover old file), nothing lost.
 * Never an internal JavaScript error, never an unhandled rejection, and after the disk recovers a
 * plain reopen shows every acknowledged write (the one write that failed may or may not be there:
 * it was never acknowledged).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineError, VirtualClock, type Engine } from '../../../src/engine';
import type { Durability } from '../../../src/storage/journal';
import { closeStoredEngine, compact, openStoredEngine, type OpenedEngine } from '../../../src/storage/engine-store';
import { dump, assertIndexesAgree } from './engine-state';
import { FaultyFs, type FsErrno, type FsOp } from './faulty-fs';

const T0 = Date.UTC(2026, 0, 1);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-faults-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let folders = 0;
const newDir = () => path.join(root, `f${folders++}`);

type Phase =
  | 'open a new folder'
  | 'open with a torn tail'
  | 'open a damaged folder'
  | 'writes (fsync)'
  | 'writes (batched)'
  | 'compaction'
  | 'close';
type Outcome =
  | 'not reached'
  | 'write refused'
  | 'opened read-only'
  | 'open refused'
  | 'compaction failed, writes go on'
  | 'compaction failed, writes refused'
  | 'absorbed';

const PHASES: Array<{ phase: Phase; ops: FsOp[] }> = [
  { phase: 'open a new folder', ops: ['mkdir', 'open', 'write', 'fsync', 'read'] },
  { phase: 'open with a torn tail', ops: ['open', 'truncate', 'fsync', 'read'] },
  { phase: 'open a damaged folder', ops: ['open', 'write', 'fsync', 'rename', 'link', 'unlink', 'read'] },
  { phase: 'writes (fsync)', ops: ['write', 'fsync'] },
  { phase: 'writes (batched)', ops: ['write', 'fsync'] },
  { phase: 'compaction', ops: ['open', 'write', 'fsync', 'rename', 'unlink'] },
  { phase: 'close', ops: ['write', 'fsync'] },
];

/** What a folder with nothing in it shows. */
const EMPTY = (() => {
  const o = openStoredEngine(path.join(root, 'empty'), { engine: { clock: new VirtualClock(T0) }, autoCompact: false });
  const state = dump(o.engine);
  closeStoredEngine(o);
  return state;
})();

let seq = 0;
function insert(engine: Engine, n = 3): void {
  const docs = Array.from({ length: n }, () => ({
    _id: seq++,
    t: new Date(T0 + seq * 1000),
    v: seq % 7,
    pad: 'p'.repeat(seq % 50),
  }));
  engine.runCommand('app', { insert: 'c', documents: docs });
}

function openWith(dir: string, io: FaultyFs | undefined, durability: Durability = 'fsync'): OpenedEngine {
  return openStoredEngine(dir, {
    engine: { clock: new VirtualClock(T0) },
    autoCompact: false,
    durability,
    ...(io ? { fs: io.fs } : {}),
  });
}

/** A folder holding a TTL index, a secondary index and some acknowledged documents. */
function prepared(dir: string): string {
  const o = openWith(dir, undefined);
  o.engine.runCommand('app', {
    createIndexes: 'c',
    indexes: [
      { key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 },
      { key: { v: 1 }, name: 'v_1' },
    ],
  });
  for (let i = 0; i < 20; i++) insert(o.engine);
  const state = dump(o.engine);
  closeStoredEngine(o);
  return state;
}

/** An error the storage path may give: it names the disk's failure, and is no JavaScript slip. */
function assertStorageError(err: unknown, code: FsErrno, context: string): void {
  assert.ok(err instanceof Error, `${context}: threw a non-error ${String(err)}`);
  assert.ok(
    !(err instanceof TypeError || err instanceof RangeError || err instanceof ReferenceError),
    `${context}: internal error ${err.stack}`,
  );
  assert.match(err.message, new RegExp(code), `${context}: the message names the failure: ${err.message}`);
}

function closeQuietly(o: OpenedEngine, code: FsErrno, context: string): void {
  try {
    closeStoredEngine(o);
  } catch (err) {
    // A journal whose sync failed says so again when it is closed.
    assertStorageError(err, code, `${context}, close`);
  }
}

interface Run {
  outcome: Outcome;
  /** States a plain reopen may show: the last acknowledged one first, then the one with the failed write applied. */
  allowed: string[];
}

/** Writes until one is refused (or `count` pass): the dumps a reopen may show. */
function writes(
  engine: Engine,
  code: FsErrno,
  context: string,
  count: number,
  onRefused: () => void,
): { lastAck: string; failed?: string } {
  let lastAck = dump(engine);
  for (let i = 0; i < count; i++) {
    try {
      insert(engine);
      lastAck = dump(engine);
    } catch (err) {
      assert.ok(err instanceof EngineError, `${context}: a refused write is an EngineError, not ${String(err)}`);
      assert.equal(err.code, 1, `${context}: InternalError`);
      assertStorageError(err, code, context);
      const failed = dump(engine);
      onRefused();
      // Nothing more is acknowledged through a journal that failed.
      assert.throws(
        () => insert(engine),
        (e: unknown) => e instanceof EngineError && e.code === 1 && /Durable storage failed earlier/.test(e.message),
        `${context}: a later write is refused too`,
      );
      return { lastAck, failed };
    }
  }
  return { lastAck };
}

async function runScenario(
  dir: string,
  phase: Phase,
  op: FsOp,
  nth: number,
  code: FsErrno,
  sticky: boolean,
  io: FaultyFs,
): Promise<Run> {
  const context = `${phase}: ${op} #${nth}${sticky ? '+' : ''} ${code}`;
  let outcome: Outcome = 'absorbed';
  const refused = () => (outcome = 'write refused');
  let allowed: string[];
  switch (phase) {
    case 'open a new folder':
    case 'open with a torn tail':
    case 'open a damaged folder': {
      let base = '';
      if (phase !== 'open a new folder') {
        base = prepared(dir);
        const journal = path.join(dir, 'journal-0.ttlj');
        if (phase === 'open with a torn tail') fs.appendFileSync(journal, Buffer.from([200, 0, 0, 0, 1, 2, 3]));
        else {
          const bytes = fs.readFileSync(journal);
          bytes.writeUInt32LE(0xdeadbeef, Math.floor(bytes.length / 2));
          fs.writeFileSync(journal, bytes);
          // What recovery makes of it, from a copy opened on a healthy disk.
          const copy = `${dir}-copy`;
          fs.cpSync(dir, copy, { recursive: true });
          const c = openWith(copy, undefined);
          base = dump(c.engine);
          closeStoredEngine(c);
        }
      }
      io.arm(op, nth, code, sticky);
      let o: OpenedEngine;
      try {
        o = openWith(dir, io);
      } catch (err) {
        assertStorageError(err, code, context);
        io.disarm();
        return { outcome: 'open refused', allowed: [base || EMPTY] };
      }
      if (o.store.readOnly) {
        outcome = 'opened read-only';
        assert.match(
          o.notes.join('\n'),
          new RegExp(`${code}[^]*read-only|read-only[^]*${code}`),
          `${context}: the note says why`,
        );
        allowed = [dump(o.engine)];
        closeQuietly(o, code, context);
        break;
      }
      const w = writes(o.engine, code, context, 3, refused);
      allowed = [w.lastAck, ...(w.failed ? [w.failed] : [])];
      closeQuietly(o, code, context);
      break;
    }
    case 'writes (fsync)':
    case 'writes (batched)': {
      prepared(dir);
      const o = openWith(dir, io, phase === 'writes (batched)' ? 'batched' : 'fsync');
      io.arm(op, nth, code, sticky);
      const w = writes(o.engine, code, context, 4, refused);
      if (phase === 'writes (batched)' && !w.failed) {
        // The group commit runs 100 ms later, off the command path: its failure stops the next write.
        await new Promise((r) => setTimeout(r, 130));
        const w2 = writes(o.engine, code, context, 2, refused);
        allowed = [w2.lastAck, ...(w2.failed ? [w2.failed] : [])];
      } else allowed = [w.lastAck, ...(w.failed ? [w.failed] : [])];
      closeQuietly(o, code, context);
      break;
    }
    case 'compaction': {
      prepared(dir);
      const o = openWith(dir, io);
      insert(o.engine);
      io.arm(op, nth, code, sticky);
      let compactionError: unknown;
      await compact(o.engine, o.store).catch((err: unknown) => (compactionError = err));
      if (compactionError) assertStorageError(compactionError, code, `${context}, compaction`);
      const w = writes(o.engine, code, context, 3, refused);
      if (compactionError) outcome = w.failed ? 'compaction failed, writes refused' : 'compaction failed, writes go on';
      allowed = [w.lastAck, ...(w.failed ? [w.failed] : [])];
      closeQuietly(o, code, context);
      break;
    }
    case 'close': {
      prepared(dir);
      const o = openWith(dir, io);
      insert(o.engine);
      allowed = [dump(o.engine)];
      io.arm(op, nth, code, sticky);
      closeQuietly(o, code, context);
      break;
    }
  }
  if (io.failed.length === 0) outcome = 'not reached';
  io.disarm();
  return { outcome, allowed };
}

describe('fault injection: ENOSPC and EIO at chosen calls of the storage file interface', () => {
  it('every failure refuses the write with a clear error, opens read-only with the reason, or refuses the open: never an internal error, never an acknowledged write lost', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', onUnhandled);
    const table = new Map<string, Map<Outcome, number>>();
    let scenarios = 0;
    try {
      for (const { phase, ops } of PHASES) {
        for (const op of ops) {
          for (const code of ['ENOSPC', 'EIO'] as FsErrno[]) {
            for (const [nth, sticky] of [
              [1, false],
              [2, false],
              [3, false],
              [1, true],
              [2, true],
            ] as Array<[number, boolean]>) {
              const io = new FaultyFs();
              const context = `${phase}: ${op} #${nth}${sticky ? '+' : ''} ${code}`;
              const dir = newDir();
              const run = await runScenario(dir, phase, op, nth, code, sticky, io);
              scenarios++;
              const row = table.get(`${phase} | ${op}`) ?? new Map<Outcome, number>();
              row.set(run.outcome, (row.get(run.outcome) ?? 0) + 1);
              table.set(`${phase} | ${op}`, row);
              // The disk is healthy again: a plain reopen shows every acknowledged write.
              const again = openWith(dir, undefined);
              try {
                const state = dump(again.engine);
                assert.ok(
                  run.allowed.includes(state),
                  `${context} (${run.outcome}): the reopened state is not the acknowledged one${again.notes.length ? `; notes: ${again.notes.join(' | ')}` : ''}`,
                );
                assertIndexesAgree(again.engine, `${context}: `);
              } finally {
                closeStoredEngine(again);
              }
            }
          }
        }
      }
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(unhandled, [], 'no unhandled rejection');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    const lines = [...table].map(([key, row]) => `| ${key} | ${[...row].map(([o, n]) => `${o}: ${n}`).join(', ')} |`);
    console.log(
      `fault scenarios: ${scenarios}\n| phase | call | outcomes |\n|---|---|---|\n${lines.map((l) => l.replace(' | ', ' | ')).join('\n')}`,
    );
  });
});
