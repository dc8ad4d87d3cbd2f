/**
 * Evaluates `mingo` as the engine's matcher: does it compare the bson wrapper types (Int32, Long,
 * Decimal128, ObjectId, MinKey/MaxKey, ...) the way mongod does, and how fast is it next to our
 * compiled matcher?
 *
 *   node out/bench/matcher-vs-mingo.js
 *
 * Part (a) runs correctness probes whose expected answers are mongod's; part (b) times a
 * range + equality filter over generated documents, once with plain JS values and once with the
 * bson wrapper types the engine actually stores.
 */
import { Binary, Decimal128, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'bson';
import { Query } from 'mingo';
import { compileFilter } from '../src/engine/query/matcher';
import { compileRegex } from '../src/engine/query/regex/compile';
import { deadlineIn, withMatchDeadline } from '../src/engine/query/regex/deadline';
import type { Document } from '../src/engine/values/types';

interface Probe {
  name: string;
  filter: Document;
  doc: Document;
  /** What mongod answers. */
  expected: boolean;
}

type Outcome = boolean | 'error';

const OID = '65a0c0ffee0000000000abcd';
const T0 = new Date('2024-01-01T00:00:00Z');
const T1 = new Date('2024-02-01T00:00:00Z');
const BIG = '9007199254740993'; // 2^53 + 1: not representable as a double

export const PROBES: Probe[] = [
  { name: '{n: 1} vs NumberInt(1)', filter: { n: 1 }, doc: { n: new Int32(1) }, expected: true },
  { name: '{n: NumberInt(1)} vs 1', filter: { n: new Int32(1) }, doc: { n: 1 }, expected: true },
  { name: '{n: 1} vs NumberLong(1)', filter: { n: 1 }, doc: { n: Long.fromNumber(1) }, expected: true },
  {
    name: '{n: NumberInt(7)} vs NumberLong(7)',
    filter: { n: new Int32(7) },
    doc: { n: Long.fromNumber(7) },
    expected: true,
  },
  { name: '{n: {$gt: NumberLong(5)}} vs 6', filter: { n: { $gt: Long.fromNumber(5) } }, doc: { n: 6 }, expected: true },
  { name: '{n: {$gt: 5}} vs NumberLong(6)', filter: { n: { $gt: 5 } }, doc: { n: Long.fromNumber(6) }, expected: true },
  { name: '{n: {$lt: 10}} vs NumberInt(9)', filter: { n: { $lt: 10 } }, doc: { n: new Int32(9) }, expected: true },
  { name: '{n: {$gt: 10}} vs NumberInt(9)', filter: { n: { $gt: 10 } }, doc: { n: new Int32(9) }, expected: false },
  {
    name: '{n: {$gt: 2^53}} vs NumberLong(2^53+1)',
    filter: { n: { $gt: 2 ** 53 } },
    doc: { n: Long.fromString(BIG) },
    expected: true,
  },
  { name: '{n: Decimal128("1.0")} vs 1', filter: { n: Decimal128.fromString('1.0') }, doc: { n: 1 }, expected: true },
  {
    name: '{n: Decimal128("1.5")} vs Decimal128("1.50")',
    filter: { n: Decimal128.fromString('1.5') },
    doc: { n: Decimal128.fromString('1.50') },
    expected: true,
  },
  {
    name: '{n: {$lt: Decimal128("2.5")}} vs 2',
    filter: { n: { $lt: Decimal128.fromString('2.5') } },
    doc: { n: 2 },
    expected: true,
  },
  {
    name: '{n: {$gt: Decimal128("9")}} vs Decimal128("10")',
    filter: { n: { $gt: Decimal128.fromString('9') } },
    doc: { n: Decimal128.fromString('10') },
    expected: true,
  },
  {
    name: '{n: {$in: [NumberLong(7)]}} vs NumberInt(7)',
    filter: { n: { $in: [Long.fromNumber(7)] } },
    doc: { n: new Int32(7) },
    expected: true,
  },
  {
    name: '{n: {$type: "int"}} vs NumberInt(1)',
    filter: { n: { $type: 'int' } },
    doc: { n: new Int32(1) },
    expected: true,
  },
  {
    name: '{n: {$type: "number"}} vs NumberLong(1)',
    filter: { n: { $type: 'number' } },
    doc: { n: Long.fromNumber(1) },
    expected: true,
  },
  { name: '{n: 1} vs "1"', filter: { n: 1 }, doc: { n: '1' }, expected: false },
  {
    name: '{_id: ObjectId(x)} vs equal ObjectId',
    filter: { _id: new ObjectId(OID) },
    doc: { _id: new ObjectId(OID) },
    expected: true,
  },
  {
    name: '{_id: ObjectId(x)} vs other ObjectId',
    filter: { _id: new ObjectId(OID) },
    doc: { _id: new ObjectId('65a0c0ffee0000000000abce') },
    expected: false,
  },
  {
    name: '{_id: ObjectId(x)} vs its hex string',
    filter: { _id: new ObjectId(OID) },
    doc: { _id: OID },
    expected: false,
  },
  {
    name: '{_id: {$in: [ObjectId(x)]}} vs equal ObjectId',
    filter: { _id: { $in: [new ObjectId(OID)] } },
    doc: { _id: new ObjectId(OID) },
    expected: true,
  },
  {
    name: '{at: {$gte: d0, $lt: d1}} vs date inside',
    filter: { at: { $gte: T0, $lt: T1 } },
    doc: { at: new Date('2024-01-15T00:00:00Z') },
    expected: true,
  },
  {
    name: '{at: {$gte: d0, $lt: d1}} vs date after',
    filter: { at: { $gte: T0, $lt: T1 } },
    doc: { at: new Date('2024-03-01T00:00:00Z') },
    expected: false,
  },
  {
    name: '{at: d0} vs equal Date instance',
    filter: { at: new Date(T0.getTime()) },
    doc: { at: new Date(T0.getTime()) },
    expected: true,
  },
  {
    name: '{at: {$gt: d0}} vs number (ms) (bracketing)',
    filter: { at: { $gt: T0 } },
    doc: { at: T0.getTime() + 1 },
    expected: false,
  },
  { name: '{a: {$gt: 1}} vs "x" (bracketing)', filter: { a: { $gt: 1 } }, doc: { a: 'x' }, expected: false },
  { name: '{a: {$lt: "m"}} vs 5 (bracketing)', filter: { a: { $lt: 'm' } }, doc: { a: 5 }, expected: false },
  { name: '{a: {$gt: MinKey}} vs 5', filter: { a: { $gt: new MinKey() } }, doc: { a: 5 }, expected: true },
  { name: '{a: {$lt: MaxKey}} vs "x"', filter: { a: { $lt: new MaxKey() } }, doc: { a: 'x' }, expected: true },
  { name: '{a: MinKey} vs MinKey', filter: { a: new MinKey() }, doc: { a: new MinKey() }, expected: true },
  { name: '{a: MinKey} vs MaxKey', filter: { a: new MinKey() }, doc: { a: new MaxKey() }, expected: false },
  {
    name: '{ts: {$gt: Timestamp(10,5)}} vs Timestamp(10,6)',
    filter: { ts: { $gt: new Timestamp({ t: 10, i: 5 }) } },
    doc: { ts: new Timestamp({ t: 10, i: 6 }) },
    expected: true,
  },
  {
    name: '{b: BinData} vs equal BinData',
    filter: { b: new Binary(Buffer.from([1, 2])) },
    doc: { b: new Binary(Buffer.from([1, 2])) },
    expected: true,
  },
  { name: '{a: null} vs missing field', filter: { a: null }, doc: {}, expected: true },
  { name: '{"a.b": 1} vs array of docs', filter: { 'a.b': 1 }, doc: { a: [{ b: 2 }, { b: 1 }] }, expected: true },
  {
    name: '{a: {x:1,y:2}} vs {y:2,x:1} (field order)',
    filter: { a: { x: 1, y: 2 } },
    doc: { a: { y: 2, x: 1 } },
    expected: false,
  },
  { name: '{a: {$size: 1}} vs [[1,2]]', filter: { a: { $size: 1 } }, doc: { a: [[1, 2]] }, expected: true },
  { name: '{a: 1} vs [[1]] (no nested flattening)', filter: { a: 1 }, doc: { a: [[1]] }, expected: false },
];

function runOurs(p: Probe): Outcome {
  try {
    return compileFilter(p.filter)(p.doc);
  } catch {
    return 'error';
  }
}

function runMingo(p: Probe): Outcome {
  try {
    return new Query(p.filter).test(p.doc);
  } catch {
    return 'error';
  }
}

interface Timing {
  label: string;
  oursPerSec: number;
  mingoPerSec: number;
  oursMatches: number;
  mingoMatches: number;
}

function generateDocs(count: number, wrapped: boolean): Document[] {
  const statuses = ['active', 'idle', 'banned'];
  const docs: Document[] = [];
  for (let i = 0; i < count; i++) {
    const age = (i * 7919) % 90;
    docs.push({
      _id: wrapped ? new ObjectId() : i,
      age: wrapped ? new Int32(age) : age,
      status: statuses[i % 3],
      score: wrapped ? Long.fromNumber(i * 13) : i * 13,
      createdAt: new Date(T0.getTime() + i * 60_000),
      tags: i % 5 === 0 ? ['x', 'y'] : ['z'],
    });
  }
  return docs;
}

/** Evaluations per second of `test` over all docs, best of a few rounds after a warm-up. */
function measure(docs: Document[], test: (d: Document) => boolean): { perSec: number; matches: number } {
  let matches = 0;
  for (let i = 0; i < docs.length; i++) if (test(docs[i])) matches++; // warm-up, and the count
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const start = process.hrtime.bigint();
    let sink = 0;
    for (let i = 0; i < docs.length; i++) if (test(docs[i])) sink++;
    const ns = Number(process.hrtime.bigint() - start);
    if (sink !== matches) throw new Error('non-deterministic matcher');
    best = Math.min(best, ns);
  }
  return { perSec: (docs.length * 1e9) / best, matches };
}

function timeBoth(label: string, docs: Document[], filter: Document): Timing {
  const ours = compileFilter(filter);
  const mingo = new Query(filter);
  const a = measure(docs, ours);
  const b = measure(docs, (d) => mingo.test(d));
  return { label, oursPerSec: a.perSec, mingoPerSec: b.perSec, oursMatches: a.matches, mingoMatches: b.matches };
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function fmtRate(n: number): string {
  return `${(n / 1e6).toFixed(2)}M/s`;
}

export async function runMatcherComparison(docCount = 100_000): Promise<string> {
  const lines: string[] = [];
  lines.push('(a) Correctness probes (expected = mongod)');
  const width = Math.max(...PROBES.map((p) => p.name.length)) + 2;
  lines.push(`${pad('probe', width)}${pad('expected', 10)}${pad('ours', 8)}mingo`);
  let oursOk = 0;
  let mingoOk = 0;
  const mingoWrong: string[] = [];
  for (const p of PROBES) {
    const ours = runOurs(p);
    const mingo = runMingo(p);
    if (ours === p.expected) oursOk++;
    if (mingo === p.expected) mingoOk++;
    else mingoWrong.push(`${p.name} -> ${String(mingo)}`);
    const mark = (o: Outcome): string => `${String(o)}${o === p.expected ? '' : ' ✗'}`;
    lines.push(`${pad(p.name, width)}${pad(String(p.expected), 10)}${pad(mark(ours), 8)}${mark(mingo)}`);
  }
  lines.push(`agreement with mongod: ours ${oursOk}/${PROBES.length}, mingo ${mingoOk}/${PROBES.length}`);
  if (mingoWrong.length) lines.push(`mingo wrong on: ${mingoWrong.join('; ')}`);

  lines.push('');
  lines.push(`(b) Throughput over ${docCount} documents (predicate evaluations per second, best of 3)`);
  const filterPlain = { age: { $gte: 30, $lt: 50 }, status: 'active' };
  const filterWrapped = { age: { $gte: new Int32(30), $lt: new Int32(50) }, status: 'active' };
  const timings = [
    timeBoth('plain JS values', generateDocs(docCount, false), filterPlain),
    timeBoth('bson Int32/Long/ObjectId', generateDocs(docCount, true), filterWrapped),
  ];
  lines.push(`${pad('documents', 28)}${pad('ours', 12)}${pad('mingo', 12)}${pad('ratio', 8)}matches (ours / mingo)`);
  for (const t of timings) {
    const ratio = `${(t.oursPerSec / t.mingoPerSec).toFixed(1)}x`;
    lines.push(
      `${pad(t.label, 28)}${pad(fmtRate(t.oursPerSec), 12)}${pad(fmtRate(t.mingoPerSec), 12)}${pad(ratio, 8)}${t.oursMatches} / ${t.mingoMatches}`,
    );
  }
  lines.push(`filter: ${JSON.stringify(filterPlain)}`);
  lines.push('');
  lines.push(...regexEngineReport(docCount));
  return lines.join('\n');
}

/** Strings like the ones $regex filters see: a word, numbers, an email, free text. */
function regexSubjects(count: number): string[] {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'Epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    out.push(
      `${words[i % 10]}-${(i * 7919) % 100000} user${i}@example.com ${words[(i * 3) % 10]} lorem ipsum dolor sit amet`,
    );
  }
  return out;
}

function timeTests(subjects: string[], test: (s: string) => boolean): { perSec: number; matches: number } {
  let matches = 0;
  for (let i = 0; i < subjects.length; i++) if (test(subjects[i])) matches++;
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const start = process.hrtime.bigint();
    let sink = 0;
    for (let i = 0; i < subjects.length; i++) if (test(subjects[i])) sink++;
    best = Math.min(best, Number(process.hrtime.bigint() - start));
    if (sink !== matches) throw new Error('non-deterministic regex');
  }
  return { perSec: (subjects.length * 1e9) / best, matches };
}

/**
 * (c) The $regex engines (src/engine/query/regex/compile.ts) on the same strings in one run:
 * JavaScript's RegExp and re2js forced, and the engine the matcher picks; then a catastrophic
 * pattern, and the per-match cost of a backreference pattern under a deadline (node:vm timeout).
 */
function regexEngineReport(docCount: number): string[] {
  const lines: string[] = [];
  lines.push(`(c) $regex engines over ${docCount} strings (tests per second, best of 3; ratio = RegExp / re2js)`);
  const subjects = regexSubjects(docCount);
  const cases: Array<{ label: string; pattern: string; options: string }> = [
    { label: 'prefix ^gamma', pattern: '^gamma', options: '' },
    { label: 'case-insensitive epsilon-\\d+ /i', pattern: 'epsilon-\\d+', options: 'i' },
    { label: 'substring ipsum', pattern: 'ipsum', options: '' },
    { label: 'classes + alternation', pattern: '(?:alpha|beta|zeta)-[0-9]{2,3} user\\d*7@[a-z]+\\.com', options: '' },
    { label: 'anchored classes ^[a-z]+-\\d{4} ', pattern: '^[a-z]+-\\d{4} ', options: '' },
  ];
  lines.push(
    `${pad('pattern', 40)}${pad('RegExp', 12)}${pad('re2js', 12)}${pad('ratio', 8)}${pad('picked', 9)}matches`,
  );
  for (const c of cases) {
    const regexp = timeTests(subjects, compileRegex(c.pattern, c.options, 'regexp').test);
    const re2 = timeTests(subjects, compileRegex(c.pattern, c.options, 're2').test);
    const picked = compileRegex(c.pattern, c.options).engine;
    if (regexp.matches !== re2.matches) throw new Error(`engines disagree on ${c.pattern}`);
    lines.push(
      `${pad(c.label, 40)}${pad(fmtRate(regexp.perSec), 12)}${pad(fmtRate(re2.perSec), 12)}${pad(`${(regexp.perSec / re2.perSec).toFixed(1)}x`, 8)}${pad(picked, 9)}${regexp.matches}`,
    );
  }
  // ^(a+)+$ on 'a' x 40 + 'b': RegExp takes minutes for one string, so it is timed on a shorter one.
  const evil = compileRegex('^(a+)+$', '');
  const longSubjects = Array.from({ length: 1000 }, (_, i) => 'a'.repeat(40 + (i % 7)) + 'b');
  const evilRate = timeTests(longSubjects, evil.test);
  const shortRegExp = compileRegex('^(a+)+$', '', 'regexp');
  const t0 = process.hrtime.bigint();
  shortRegExp.test('a'.repeat(24) + 'b');
  const regexp24 = Number(process.hrtime.bigint() - t0) / 1e6;
  lines.push(
    `^(a+)+$ on 1000 strings 'a'x40+'b': ${evil.engine} ${fmtRate(evilRate.perSec)}; RegExp needs ${regexp24.toFixed(0)} ms for ONE 'a'x24+'b' (doubling per extra 'a')`,
  );
  // Backreferences: RegExp behind a prefilter; with a deadline each candidate pays a vm timeout.
  const backref = compileRegex('(\\w)\\1', '');
  const few = subjects.slice(0, Math.min(20_000, subjects.length));
  const direct = timeTests(few, backref.test);
  const guarded = withMatchDeadline(deadlineIn(600_000), () => timeTests(few, backref.test));
  const perMatchUs = 1e6 / guarded.perSec - 1e6 / direct.perSec;
  lines.push(
    `backreference (\\w)\\1 (${backref.engine}) on ${few.length} strings: no deadline ${fmtRate(direct.perSec)}, with a deadline ${fmtRate(guarded.perSec)} (+${perMatchUs.toFixed(1)} µs per string: a vm timeout per candidate), ${direct.matches} matches`,
  );
  return lines;
}

if (require.main === module) {
  runMatcherComparison().then(
    (report) => console.log(report),
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
