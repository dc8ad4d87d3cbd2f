/**
 * Storage fuzzing with an oracle (storage integrity issue). Two folders are written with a known
 * history (an oracle: the full state, as canonical EJSON, after every acknowledged commit), then
 * damaged in seeded random ways: bit flips, overwrites, truncations, garbage appended, frames
 * dropped / repeated / swapped, length fields set to 0 and 2^32−1, records rewritten with wrong
 * types and their checksum recomputed, files deleted / emptied / replaced, stray file names.
 * Every open is judged against the oracle:
 *   - clean: no problem reported, and the state is exactly the last acknowledged one;
 *   - recovered: problems reported, each naming the file it is about, the state is one of the
 *     acknowledged states (a prefix of the history) or, when a snapshot was lost, what the rest
 *     holds — and the indexes agree with the documents;
 *   - refused: an error that names the file, never an internal JavaScript error.
 * A state that differs from the last acknowledged one with nothing reported is a silent loss:
 * the test fails. So does an open over 30 s.
 * FUZZ_CASES (default 300) sets the number of cases; `npm run fuzz:storage` runs 10,000.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BSON } from 'bson';
import { VirtualClock, type Engine } from '../../../src/engine';
import { encodeFrame, scanFrames } from '../../../src/storage/frames';
import { closeStoredEngine, compact, openStoredEngine, type OpenedEngine } from '../../../src/storage/engine-store';
import { prng } from '../helpers/prng';
import { assertIndexesAgree, dump } from './engine-state';

const CASES = Number(process.env.FUZZ_CASES ?? 300);
const T0 = Date.UTC(2026, 0, 1);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-fuzz-'));

function openDir(dir: string): OpenedEngine {
  return openStoredEngine(dir, { engine: { clock: new VirtualClock(T0) }, autoCompact: false });
}

interface Template {
  dir: string;
  /** The state after each acknowledged commit, the first being the empty engine's. */
  states: string[];
}

/** A folder and its oracle: `commits` commands (and a compaction halfway when `compacted`). */
async function template(name: string, compacted: boolean, seed: number, commits: number): Promise<Template> {
  const dir = path.join(root, name);
  const o = openDir(dir);
  const rand = prng(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const states = [dump(o.engine)];
  const run = (engine: Engine, cmd: Record<string, unknown>) => {
    engine.runCommand('app', cmd);
    states.push(dump(engine));
  };
  run(o.engine, {
    createIndexes: 'c',
    indexes: [
      { key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 },
      { key: { u: 1 }, name: 'u_1', unique: true, sparse: true },
    ],
  });
  for (let i = 0; i < commits; i++) {
    const pick = int(10);
    if (pick < 5)
      run(o.engine, {
        insert: 'c',
        documents: Array.from({ length: 1 + int(3) }, (_, k) => ({
          _id: i * 10 + k,
          u: `u${i * 10 + k}`,
          v: int(9),
          t: new Date(T0 + int(100) * 60_000),
          a: [int(4), { b: 'x'.repeat(int(20)) }],
        })),
      });
    else if (pick < 7)
      run(o.engine, {
        update: 'c',
        updates: [{ q: { v: int(9) }, u: { $inc: { n: 1 }, $set: { w: int(99) } }, multi: true }],
      });
    else if (pick < 8) run(o.engine, { delete: 'c', deletes: [{ q: { v: int(9) }, limit: 1 }] });
    else if (pick < 9) run(o.engine, { insert: 'other', documents: [{ _id: `o${i}`, at: new Date(T0) }] });
    else run(o.engine, { collMod: 'c', index: { name: 't_1', expireAfterSeconds: 600 * (1 + int(6)) } });
    if (compacted && i === Math.floor(commits / 2)) await compact(o.engine, o.store);
  }
  closeStoredEngine(o);
  return { dir, states };
}

type Kind =
  | 'bit flips'
  | 'overwrite'
  | 'truncate'
  | 'garbage appended'
  | 'frame dropped'
  | 'frame repeated'
  | 'frames swapped'
  | 'length 0'
  | 'length 2^32-1'
  | 'wrong types, checksum recomputed'
  | 'file deleted'
  | 'file emptied'
  | 'file replaced'
  | 'stray name';
const KINDS: Kind[] = [
  'bit flips',
  'overwrite',
  'truncate',
  'garbage appended',
  'frame dropped',
  'frame repeated',
  'frames swapped',
  'length 0',
  'length 2^32-1',
  'wrong types, checksum recomputed',
  'file deleted',
  'file emptied',
  'file replaced',
  'stray name',
];

const storeFiles = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((f) => /^(journal-\d+\.ttlj|snapshot-\d+\.ttls|ttl-store\.manifest|ttl-workbench\.json)$/.test(f))
    .sort();
const framed = (f: string) => /\.(ttlj|ttls)$/.test(f);

/** The whole frames of a file as byte ranges, and what follows them. */
function framesOf(bytes: Buffer): { parts: Buffer[]; rest: Buffer } {
  const scan = scanFrames(bytes);
  const parts = scan.frames.map((f, i) =>
    bytes.subarray(f.offset, i + 1 < scan.frames.length ? scan.frames[i + 1].offset : scan.validEnd),
  );
  return { parts, rest: bytes.subarray(scan.validEnd) };
}

/** A structural field of a record given a type no engine writes. */
function wrongTypes(payload: Buffer, rand: () => number): Buffer {
  const doc = BSON.deserialize(payload, { promoteValues: false });
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  if (Array.isArray(doc.ops) && doc.ops.length) {
    // A type the field never has (a value of a valid type, rewritten with its checksum, is
    // indistinguishable from a real write: no store can tell).
    const op = pick(doc.ops as Record<string, unknown>[]);
    const wrong: Record<string, unknown[]> = {
      put: [42, null],
      d: ['x', 7, [1]],
      del: [42, null],
      id: [[1, 2]],
      cat: [3],
      o: ['x', 5],
      ix: [3, 'x'],
      drop: [7],
      ren: [7],
      to: [null],
      param: [9],
      ts: ['x'],
    };
    const key = pick(Object.keys(op).filter((k) => k in wrong));
    if (key) op[key] = pick(wrong[key]);
    else doc.ops = 'ops';
  } else if (doc.ops !== undefined) doc.ops = 'ops';
  else if (doc.flat !== undefined) doc.flat = 7;
  else if (doc.plain !== undefined) doc.plain = 'plain';
  else if (doc.typed !== undefined) doc.typed = { x: 1 };
  else if (doc.coll !== undefined) doc.ix = 3;
  else {
    const key = pick(Object.keys(doc));
    doc[key] = pick([42, 'x', null, [1]]);
  }
  return encodeFrame(BSON.serialize(doc));
}

/** Damage `dir` with one mutation of `kind`; returns the file it touched (or made) and what was done. */
function mutate(dir: string, kind: Kind, rand: () => number): { file: string; what: string } {
  const int = (n: number) => Math.floor(rand() * n);
  const files = storeFiles(dir);
  const framedFiles = files.filter(framed);
  const pick = (xs: string[]) => xs[int(xs.length)];
  const name = [
    'bit flips',
    'overwrite',
    'truncate',
    'garbage appended',
    'file deleted',
    'file emptied',
    'file replaced',
  ].includes(kind)
    ? pick(files)
    : pick(framedFiles);
  const file = path.join(dir, name);
  const bytes = fs.readFileSync(file);
  const at = int(Math.max(1, bytes.length));
  switch (kind) {
    case 'bit flips': {
      const n = 1 + int(3);
      for (let i = 0; i < n; i++) bytes[int(bytes.length)] ^= 1 << int(8);
      fs.writeFileSync(file, bytes);
      return { file: name, what: `${n} bit(s) flipped` };
    }
    case 'overwrite': {
      const n = 1 + int(64);
      for (let i = at; i < Math.min(bytes.length, at + n); i++) bytes[i] = int(256);
      fs.writeFileSync(file, bytes);
      return { file: name, what: `${n} bytes overwritten at ${at}` };
    }
    case 'truncate':
      fs.writeFileSync(file, bytes.subarray(0, at));
      return { file: name, what: `cut at ${at} of ${bytes.length}` };
    case 'garbage appended': {
      const junk = Buffer.from(Array.from({ length: 1 + int(2000) }, () => int(256)));
      fs.appendFileSync(file, junk);
      return { file: name, what: `${junk.length} bytes appended` };
    }
    case 'file deleted':
      fs.rmSync(file);
      return { file: name, what: 'deleted' };
    case 'file emptied':
      fs.writeFileSync(file, '');
      return { file: name, what: 'emptied' };
    case 'file replaced': {
      const other = files.filter((f) => f !== name);
      const source = other.length ? pick(other) : name;
      fs.writeFileSync(file, fs.readFileSync(path.join(dir, source)));
      return { file: name, what: `replaced by a copy of ${source}` };
    }
    case 'stray name': {
      const stray = pick([
        `${name.replace(/-(\d+)\./, '-0$1.')}`,
        name.replace(/-(\d+)\./, '-99999999999999999999.'),
        `${name}.bak`,
      ]);
      fs.copyFileSync(file, path.join(dir, stray));
      return { file: stray, what: `a copy named ${stray}` };
    }
    default:
      break;
  }
  const { parts, rest } = framesOf(bytes);
  if (parts.length === 0) {
    fs.writeFileSync(file, Buffer.concat([bytes, Buffer.from([1, 2, 3])]));
    return { file: name, what: 'no frame to edit: 3 bytes appended' };
  }
  const i = int(parts.length);
  let out = [...parts];
  let what = '';
  switch (kind) {
    case 'frame dropped':
      out.splice(i, 1);
      what = `frame ${i} of ${parts.length} dropped`;
      break;
    case 'frame repeated':
      out.splice(i, 0, parts[i]);
      what = `frame ${i} repeated`;
      break;
    case 'frames swapped': {
      const j = i + 1 < parts.length ? i + 1 : Math.max(0, i - 1);
      [out[i], out[j]] = [out[j], out[i]];
      what = `frames ${i} and ${j} swapped`;
      break;
    }
    case 'length 0':
    case 'length 2^32-1': {
      const edited = Buffer.from(parts[i]);
      edited.writeUInt32LE(kind === 'length 0' ? 0 : 0xffffffff, 0);
      out[i] = edited;
      what = `frame ${i}'s length set to ${kind === 'length 0' ? 0 : '2^32-1'}`;
      break;
    }
    case 'wrong types, checksum recomputed':
      out[i] = wrongTypes(parts[i].subarray(8), rand);
      what = `frame ${i} rewritten with wrong types, CRC recomputed`;
      break;
    default:
      out = parts;
  }
  fs.writeFileSync(file, Buffer.concat([...out, rest]));
  return { file: name, what };
}

type Outcome = 'clean' | 'recovered: a prefix' | 'recovered: what the rest holds' | 'refused';

describe('storage fuzzing against an oracle of acknowledged states', () => {
  it(`${CASES} damaged folders: every open is clean and exact, a reported recovery, or a refusal naming the file; no silent loss, no internal error, no hang`, async () => {
    const templates = [await template('journal-only', false, 5, 40), await template('compacted', true, 6, 40)];
    const rand = prng(271828);
    const table = new Map<string, Map<Outcome, number>>();
    let slowest = 0;
    let peakRss = 0;
    for (let n = 0; n < CASES; n++) {
      const t = templates[n % templates.length];
      const kind = KINDS[Math.floor(rand() * KINDS.length)];
      const dir = path.join(root, `case-${n}`);
      fs.cpSync(t.dir, dir, { recursive: true });
      const { file, what } = mutate(dir, kind, rand);
      const label = `case ${n} [${path.basename(t.dir)}] ${kind}: ${file} ${what}`;
      const started = performance.now();
      let outcome: Outcome;
      let opened: OpenedEngine | undefined;
      try {
        opened = openDir(dir);
      } catch (err) {
        assert.ok(err instanceof Error, `${label}: threw ${String(err)}`);
        assert.ok(
          !(
            err instanceof TypeError ||
            err instanceof RangeError ||
            err instanceof ReferenceError ||
            err instanceof SyntaxError
          ),
          `${label}: internal error ${err.stack}`,
        );
        assert.ok(err.message.includes(dir), `${label}: the refusal names the file: ${err.message}`);
        outcome = 'refused';
      }
      if (opened) {
        try {
          const state = dump(opened.engine);
          const last = t.states[t.states.length - 1];
          // Notes that only say a stray name was ignored, or that the folder's settings were
          // recreated, lose nothing.
          const problems = opened.notes.filter((p) => !/^ignored (a file|\d+ files) whose name/.test(p));
          assertIndexesAgree(opened.engine, `${label}: `);
          if (problems.length === 0) {
            assert.ok(
              state === last,
              `${label}: SILENT LOSS — nothing was reported, but the state is not the last acknowledged one`,
            );
            outcome = 'clean';
          } else {
            outcome = t.states.includes(state) ? 'recovered: a prefix' : 'recovered: what the rest holds';
            if (outcome !== 'recovered: a prefix')
              assert.ok(
                problems.some((p) => /snapshot-\d+\.ttls|the journal is missing|journal-\d+\.ttlj/.test(p)),
                `${label}: a state outside the history needs a lost file named: ${problems.join(' | ')}`,
              );
          }
        } finally {
          closeStoredEngine(opened);
        }
      }
      const ms = performance.now() - started;
      slowest = Math.max(slowest, ms);
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      assert.ok(ms < 30_000, `${label}: took ${ms.toFixed(0)} ms`);
      const row = table.get(kind) ?? new Map<Outcome, number>();
      row.set(outcome!, (row.get(outcome!) ?? 0) + 1);
      table.set(kind, row);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    fs.rmSync(root, { recursive: true, force: true });
    const lines = KINDS.map(
      (k) => `| ${k} | ${[...(table.get(k) ?? new Map())].map(([o, c]) => `${o} ${c}`).join(', ')} |`,
    );
    console.log(
      `storage fuzz: ${CASES} cases; slowest open ${slowest.toFixed(0)} ms; peak RSS ${(peakRss / 1048576).toFixed(0)} MB\n| mutation | outcomes |\n|---|---|\n${lines.join('\n')}`,
    );
  });
});
