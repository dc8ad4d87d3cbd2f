/** Shared by the expression tests: evaluate through compileExpression, and run through a real engine. */
import assert from 'node:assert/strict';
import { Decimal128, Int32, Long } from 'bson';
import { Engine, type Document } from '../../../../../src/engine';
import { VirtualClock } from '../../../../../src/engine/clock';
import { compileExpression, type Vars } from '../../../../../src/engine/query/expressions';

export function ev(expr: unknown, doc: Document = {}, vars?: Vars): unknown {
  return compileExpression(expr)(doc, vars);
}

export const int = (n: number): Int32 => new Int32(n);
export const long = (n: number | bigint): Long => (typeof n === 'bigint' ? Long.fromBigInt(n) : Long.fromNumber(n));
export const dec = (s: string): Decimal128 => Decimal128.fromString(s);

export function assertInt(v: unknown, n: number): void {
  assert.ok(v instanceof Int32, `expected Int32 ${n}, got ${String(v)} (${typeof v})`);
  assert.equal(v.value, n);
}

export function assertLong(v: unknown, n: number | bigint): void {
  assert.ok(v instanceof Long, `expected Long ${n}, got ${String(v)}`);
  assert.equal(v.toBigInt(), BigInt(n));
}

export function assertDecimal(v: unknown, s: string | RegExp): void {
  assert.ok(v instanceof Decimal128, `expected Decimal128, got ${String(v)}`);
  if (typeof s === 'string') assert.equal(v.toString(), s);
  else assert.match(v.toString(), s);
}

export function assertDouble(v: unknown, d: number, tolerance = 0): void {
  assert.equal(typeof v, 'number', `expected a double, got ${String(v)}`);
  if (tolerance === 0) assert.equal(v, d);
  else assert.ok(Math.abs((v as number) - d) <= tolerance, `${String(v)} is not within ${tolerance} of ${d}`);
}

/** Inserts `docs` into app.c of a fresh engine and runs `pipeline` through the aggregate command. */
export function aggregate(docs: Document[], pipeline: Document[]): Document[] {
  const engine = new Engine({ clock: new VirtualClock(new Date('2030-06-01T12:00:00Z')) });
  engine.runCommand('app', { insert: 'c', documents: docs });
  const reply = engine.runCommand('app', { aggregate: 'c', pipeline, cursor: {} });
  return (reply.cursor as Document).firstBatch as Document[];
}
