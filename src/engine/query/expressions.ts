/**
 * Aggregation expressions ($project values, $group keys, $expr, ...), compiled once into closures.
 *
 * Semantics follow mongod's ExpressionXxx classes:
 * - "missing" (a path that reaches nothing) is JS `undefined`; it is distinct from null in
 *   comparisons (missing sorts before null, so {$eq: ["$nope", null]} is false) but most operators
 *   treat both as "nullish" and answer null.
 * - "$a.b" fans out through arrays: each element that is a document contributes its `b`, other
 *   elements are skipped, so the result is an array.
 * - Numbers keep BSON's promotion rules: int op int stays int (long on overflow, double on long
 *   overflow), any double makes a double, any decimal makes a decimal.
 * - Errors carry mongod's codes so callers written against a real server see the same failures.
 */
import { Decimal128, Int32, Long, type ObjectId, type Timestamp } from 'bson';
import { codeNameOf, EngineError } from '../errors';
import { compareValues, valuesEqual } from '../values/compare';
import { setField } from '../values/fields';
import { formatValue } from '../values/format';
import {
  addNumbers,
  compareNumbers,
  multiplyNumbers,
  numericKind,
  toDouble,
  type NumericKind,
} from '../values/numbers';
import { bsonClassOf, bsonTypeOf, isNumeric, isPlainObject, type Document } from '../values/types';

// ---------------------------------------------------------------------------------------------
// Public surface
// ---------------------------------------------------------------------------------------------

/** Variables visible to an expression ($$ROOT and $$CURRENT default to the document). */
export type Vars = { readonly [name: string]: unknown };

/** A compiled expression: evaluates against a document; `undefined` means "missing". */
export type CompiledExpression = (doc: Document, vars?: Vars) => unknown;

/** Internal form: the root document and the variable scope are passed explicitly. */
type Fn = (root: Document, vars: Vars) => unknown;

const NO_VARS: Vars = Object.freeze({});

/** Compile an aggregation expression. Throws EngineError on a malformed expression. */
export function compileExpression(expr: unknown): CompiledExpression {
  const fn = compile(expr);
  return (doc, vars) => fn(doc, vars ?? NO_VARS);
}

/** Codes mongod names that errors.ts may not know; EngineError would call them `Location<n>`. */
const LOCAL_CODE_NAMES: Record<number, string> = {
  2: 'BadValue',
  9: 'FailedToParse',
  14: 'TypeMismatch',
  168: 'InvalidPipelineOperator',
  238: 'NotImplemented',
  241: 'ConversionFailure',
};

/** An EngineError whose codeName is mongod's even when errors.ts has no entry for the code. */
export function aggError(code: number, message: string): EngineError {
  const err = new EngineError(code, message);
  const name = LOCAL_CODE_NAMES[code];
  if (name && codeNameOf(code) !== name) (err as unknown as { codeName: string }).codeName = name;
  return err;
}

function fail(code: number, message: string): never {
  throw aggError(code, message);
}

/** mongod's type name of a value, "missing" for undefined (as in its error messages). */
export function typeName(v: unknown): string {
  return v === undefined ? 'missing' : bsonTypeOf(v);
}

function show(v: unknown): string {
  return v === undefined ? 'MISSING' : formatValue(v);
}

function isNullish(v: unknown): boolean {
  return v === null || v === undefined;
}

// ---------------------------------------------------------------------------------------------
// Compilation: literals, field paths, variables, objects, arrays, operators
// ---------------------------------------------------------------------------------------------

function compile(expr: unknown): Fn {
  if (typeof expr === 'string') return expr.startsWith('$') ? compileFieldPath(expr) : constant(expr);
  if (Array.isArray(expr)) return compileArray(expr);
  if (isPlainObject(expr)) return compileObject(expr);
  return constant(expr);
}

function constant(value: unknown): Fn {
  return () => value;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Field lookup that never reaches Object.prototype ("$constructor" is a field name, not a function). */
function getField(obj: Document, key: string): unknown {
  return hasOwn.call(obj, key) ? obj[key] : undefined;
}

/** Walk `parts[i..]` from `value` with mongod's expression semantics (arrays fan out). */
function walkPath(value: unknown, parts: readonly string[], i: number): unknown {
  for (; i < parts.length; i++) {
    if (isPlainObject(value)) value = getField(value, parts[i]);
    else if (Array.isArray(value)) return walkArray(value, parts, i);
    else return undefined;
  }
  return value;
}

function walkArray(arr: readonly unknown[], parts: readonly string[], i: number): unknown[] {
  const out: unknown[] = [];
  for (const el of arr) {
    // Only documents continue the path; scalars and nested arrays are skipped, as in mongod.
    if (!isPlainObject(el)) continue;
    const v = walkPath(el, parts, i);
    if (v !== undefined) out.push(v);
  }
  return out;
}

function validateFieldPathParts(parts: string[]): void {
  for (const p of parts) {
    if (p === '') fail(15998, 'FieldPath field names may not be empty strings.');
    if (p.startsWith('$'))
      fail(16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.");
    if (p.includes('\0')) fail(16411, 'FieldPath field names may not contain embedded nulls.');
  }
}

const BUILTIN_VARS = new Set([
  'ROOT',
  'CURRENT',
  'REMOVE',
  'NOW',
  'CLUSTER_TIME',
  'USER_ROLES',
  'SEARCH_META',
  // $redact's decisions: defined by that stage only.
  'KEEP',
  'PRUNE',
  'DESCEND',
]);

function compileFieldPath(path: string): Fn {
  if (path === '$') fail(16872, "'$' by itself is not a valid FieldPath");
  if (path.startsWith('$$')) return compileVariablePath(path.slice(2));
  const parts = path.slice(1).split('.');
  validateFieldPathParts(parts);
  if (parts.length === 1) {
    const key = parts[0];
    return (root, vars) => {
      const cur = currentOf(root, vars);
      return isPlainObject(cur) ? getField(cur, key) : undefined;
    };
  }
  return (root, vars) => walkPath(currentOf(root, vars), parts, 0);
}

function currentOf(root: Document, vars: Vars): unknown {
  const cur = vars.CURRENT;
  return cur === undefined ? root : cur;
}

function compileVariablePath(body: string): Fn {
  const [name, ...rest] = body.split('.');
  if (name === '') fail(16869, 'empty variable name');
  if (rest.length) validateFieldPathParts(rest);
  if (!BUILTIN_VARS.has(name)) validateUserVariableName(name);
  const read = variableReader(name);
  if (rest.length === 0) return read;
  return (root, vars) => walkPath(read(root, vars), rest, 0);
}

function variableReader(name: string): Fn {
  switch (name) {
    case 'ROOT':
      return (root) => root;
    case 'CURRENT':
      return currentOf;
    case 'REMOVE':
      return () => undefined;
    case 'NOW':
      return (_root, vars) => (vars.NOW instanceof Date ? vars.NOW : new Date());
  }
  // `toString`, `constructor`…: every scope inherits them from Object.prototype; only a definition counts.
  const inherited = name in Object.prototype;
  return (_root, vars) => {
    if (!(name in vars) || (inherited && !definedInScopes(vars, name)))
      fail(17276, `Use of undefined variable: ${name}`);
    return vars[name];
  };
}

/** Whether a scope chain (scopes made with Object.create over the outer ones) defines `name` itself. */
function definedInScopes(vars: Vars, name: string): boolean {
  for (
    let s: object | null = vars;
    s !== null && s !== Object.prototype;
    s = Object.getPrototypeOf(s) as object | null
  ) {
    if (hasOwn.call(s, name)) return true;
  }
  return false;
}

/** User variable names start with a lowercase letter (or a non-ASCII character), like mongod's. */
function validateUserVariableName(name: string): void {
  if (name === 'CURRENT') return;
  const first = name.charCodeAt(0);
  if (!((first >= 0x61 && first <= 0x7a) || first > 0x7f)) {
    if (/^[A-Z]/.test(name)) fail(17276, `Use of undefined variable: ${name}`);
    fail(16870, `'${name}' starts with an invalid character for a user variable name`);
  }
  if (!/^[\w\u0080-\uffff]+$/.test(name))
    fail(16871, `'${name}' contains an invalid character for a variable name: '${name}'`);
}

function compileArray(items: unknown[]): Fn {
  const fns = items.map(compile);
  return (root, vars) => {
    const out = new Array(fns.length);
    // A missing element becomes null: arrays cannot hold "missing".
    for (let i = 0; i < fns.length; i++) {
      const v = fns[i](root, vars);
      out[i] = v === undefined ? null : v;
    }
    return out;
  };
}

function compileObject(obj: Document): Fn {
  const keys = Object.keys(obj);
  if (keys.length === 0) return () => ({});
  if (keys[0].startsWith('$')) {
    if (keys.length !== 1) {
      fail(
        15983,
        `an expression specification must contain exactly one field, the name of the expression. Found ${keys.length} fields in ${show(obj)}`,
      );
    }
    return compileOperator(keys[0], obj[keys[0]]);
  }
  const fields: [string, Fn][] = keys.map((k) => {
    if (k.startsWith('$'))
      fail(16410, `FieldPath field names may not start with '$'. Consider using $getField or $setField.`);
    if (k.includes('.'))
      fail(16412, "FieldPath field names may not contain '.'. Consider using $getField or $setField.");
    if (k === '') fail(16411, 'FieldPath field names may not be empty strings.');
    return [k, compile(obj[k])];
  });
  return (root, vars) => {
    const out: Document = {};
    for (const [k, fn] of fields) {
      const v = fn(root, vars);
      if (v !== undefined) setField(out, k, v);
    }
    return out;
  };
}

type OperatorParser = (arg: unknown, name: string) => Fn;

function compileOperator(name: string, arg: unknown): Fn {
  const parser = hasOwn.call(OPERATORS, name) ? OPERATORS[name] : undefined;
  if (!parser) fail(168, `Unrecognized expression '${name}'`);
  return parser(arg, name);
}

/** True when `name` is an expression operator this engine implements. */
export function isExpressionOperator(name: string): boolean {
  return hasOwn.call(OPERATORS, name);
}

// ---------------------------------------------------------------------------------------------
// Operator-building helpers
// ---------------------------------------------------------------------------------------------

function operandList(arg: unknown): unknown[] {
  return Array.isArray(arg) ? arg : [arg];
}

function arityError(name: string, got: number, min: number, max: number): never {
  if (min === max) fail(16020, `Expression ${name} takes exactly ${min} arguments. ${got} were passed in.`);
  if (max === Infinity) fail(16021, `Expression ${name} takes at least ${min} arguments, but ${got} were passed in.`);
  fail(28667, `Expression ${name} takes at least ${min} arguments, and at most ${max}, but ${got} were passed in.`);
}

function compileArgs(name: string, arg: unknown, min: number, max = min): Fn[] {
  const list = operandList(arg);
  if (list.length < min || list.length > max) arityError(name, list.length, min, max);
  return list.map(compile);
}

/** An operator taking exactly one operand (given bare or as a one-element array). */
function unary(f: (v: unknown, name: string) => unknown): OperatorParser {
  return (arg, name) => {
    const [a] = compileArgs(name, arg, 1);
    return (root, vars) => f(a(root, vars), name);
  };
}

function binary(f: (a: unknown, b: unknown, name: string) => unknown): OperatorParser {
  return (arg, name) => {
    const [a, b] = compileArgs(name, arg, 2);
    return (root, vars) => f(a(root, vars), b(root, vars), name);
  };
}

function ternary(f: (a: unknown, b: unknown, c: unknown, name: string) => unknown): OperatorParser {
  return (arg, name) => {
    const [a, b, c] = compileArgs(name, arg, 3);
    return (root, vars) => f(a(root, vars), b(root, vars), c(root, vars), name);
  };
}

/** Any number of operands between min and max, all evaluated before `f` runs. */
function variadic(f: (vals: unknown[], name: string) => unknown, min = 0, max = Infinity): OperatorParser {
  return (arg, name) => {
    const fns = compileArgs(name, arg, min, max);
    return (root, vars) =>
      f(
        fns.map((fn) => fn(root, vars)),
        name,
      );
  };
}

/** Compiles the fields of an `{a: ..., b: ...}` argument, rejecting unknown and missing ones. */
function namedArgs(
  arg: Document,
  allowed: readonly string[],
  required: readonly string[],
  errors: { unknown: (field: string) => [number, string]; missing: (field: string) => [number, string] },
): Record<string, Fn | undefined> {
  const out: Record<string, Fn | undefined> = {};
  for (const key of Object.keys(arg)) {
    if (!allowed.includes(key)) fail(...errors.unknown(key));
    out[key] = compile(arg[key]);
  }
  for (const key of required) if (!out[key]) fail(...errors.missing(key));
  return out;
}

function requireObjectArg(arg: unknown, code: number, message: string): Document {
  if (!isPlainObject(arg)) fail(code, message);
  return arg;
}

// ---------------------------------------------------------------------------------------------
// Numbers: BSON promotion, exact decimal arithmetic through rationals
// ---------------------------------------------------------------------------------------------

const KIND_RANK: Record<NumericKind, number> = { int: 0, long: 1, double: 2, decimal: 3 };
const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

function widestKind(a: NumericKind, b: NumericKind): NumericKind {
  return KIND_RANK[a] >= KIND_RANK[b] ? a : b;
}

/** Integer-valued number (Int32, Long, or an integral double) as a bigint. */
function toBigInt(v: unknown): bigint {
  if (bsonClassOf(v) === 'Long') return (v as Long).toBigInt();
  return BigInt(Math.trunc(toDouble(v)));
}

/** An int-or-long result: Int32 when `kind` is int and it fits, Long when it fits, else double. */
function narrowInteger(r: bigint, kind: 'int' | 'long'): unknown {
  if (kind === 'int' && r >= INT32_MIN && r <= INT32_MAX) return new Int32(Number(r));
  if (r >= LONG_MIN && r <= LONG_MAX) return Long.fromBigInt(r);
  return Number(r);
}

/** A finite number as the exact fraction num/den (den > 0), or null for NaN and infinities. */
interface Rational {
  num: bigint;
  den: bigint;
}

function decimalSpecial(d: Decimal128): number | undefined {
  const s = d.toString();
  if (s === 'NaN' || s === '-NaN') return NaN;
  if (s === 'Infinity') return Infinity;
  if (s === '-Infinity') return -Infinity;
  return undefined;
}

function rationalOfDecimalString(s: string): Rational | null {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m) return null;
  const frac = m[3] ?? '';
  let num = BigInt((m[2] || '0') + frac);
  if (m[1] === '-') num = -num;
  const exp = Number(m[4] ?? 0) - frac.length;
  return exp >= 0 ? { num: num * 10n ** BigInt(exp), den: 1n } : { num, den: 10n ** BigInt(-exp) };
}

/** Exact value of any finite number. Doubles go through their shortest decimal form, as numbers.ts does. */
function rationalOf(v: unknown): Rational | null {
  switch (numericKind(v)) {
    case 'int':
      return { num: BigInt((v as Int32).value), den: 1n };
    case 'long':
      return { num: (v as Long).toBigInt(), den: 1n };
    case 'decimal':
      return decimalSpecial(v as Decimal128) === undefined
        ? rationalOfDecimalString((v as Decimal128).toString())
        : null;
    default: {
      const d = toDouble(v);
      return Number.isFinite(d) ? rationalOfDecimalString(String(d)) : null;
    }
  }
}

function decimalOfSpecial(d: number): Decimal128 {
  return Decimal128.fromString(Number.isNaN(d) ? 'NaN' : d > 0 ? 'Infinity' : '-Infinity');
}

function digitCount(n: bigint): number {
  return (n < 0n ? -n : n).toString().length;
}

/** Round-half-even quotient of n / d (d > 0). */
function divRoundHalfEven(n: bigint, d: bigint): bigint {
  let q = n / d;
  const r = n - q * d;
  if (r === 0n) return q;
  const twice = (r < 0n ? -r : r) * 2n;
  const away = n < 0n ? -1n : 1n;
  if (twice > d || (twice === d && (q & 1n) !== 0n)) q += away;
  return q;
}

/** `digits × 10^-scale` as a decimal string Decimal128 accepts. */
function decimalString(digits: bigint, scale: number): string {
  if (scale <= 0) return scale === 0 ? digits.toString() : `${digits}E+${-scale}`;
  const neg = digits < 0n;
  let s = (neg ? -digits : digits).toString().padStart(scale + 1, '0');
  s = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  return (neg ? '-' : '') + s;
}

/** The nearest Decimal128 (34 significant digits, half-even) to num/den, without trailing zeros. */
function decimalOfRational(r: Rational): Decimal128 {
  let { num, den } = r;
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  if (num === 0n) return Decimal128.fromString('0');
  // Start one digit past 34 significant digits and come down (rounding may carry into a new
  // digit); then drop the trailing zeros an exact result does not need.
  let scale = 34 - (digitCount(num) - digitCount(den)) + 1;
  let q = scaledQuotient(num, den, scale);
  while (digitCount(q) > 34) q = scaledQuotient(num, den, --scale);
  while (scale > 0 && q % 10n === 0n) {
    q /= 10n;
    scale--;
  }
  return Decimal128.fromString(decimalString(q, scale));
}

function scaledQuotient(num: bigint, den: bigint, scale: number): bigint {
  return scale >= 0
    ? divRoundHalfEven(num * 10n ** BigInt(scale), den)
    : divRoundHalfEven(num, den * 10n ** BigInt(-scale));
}

/** Decimal arithmetic on exact fractions; NaN and infinities fall back to double arithmetic. */
function decimalBinary(
  a: unknown,
  b: unknown,
  exact: (x: Rational, y: Rational) => Rational,
  approx: (x: number, y: number) => number,
): Decimal128 {
  const x = rationalOf(a);
  const y = rationalOf(b);
  if (!x || !y) return decimalOfSpecial(approx(toDouble(a), toDouble(b)));
  return decimalOfRational(exact(x, y));
}

const R = {
  sub: (x: Rational, y: Rational): Rational => ({ num: x.num * y.den - y.num * x.den, den: x.den * y.den }),
  div: (x: Rational, y: Rational): Rational => ({ num: x.num * y.den, den: x.den * y.num }),
  mod: (x: Rational, y: Rational): Rational => {
    // x - y * trunc(x / y): the remainder takes the dividend's sign, like fmod.
    const q = (x.num * y.den) / (x.den * y.num);
    return { num: x.num * y.den - q * y.num * x.den, den: x.den * y.den };
  },
};

function isZero(v: unknown): boolean {
  return toDouble(v) === 0;
}

/** Rounds num/den to `place` decimal digits (negative: tens, hundreds...). */
function roundRational(r: Rational, place: number, mode: 'round' | 'trunc'): bigint {
  const { num, den } = r;
  const n = place >= 0 ? num * 10n ** BigInt(place) : num;
  const d = place >= 0 ? den : den * 10n ** BigInt(-place);
  return mode === 'round' ? divRoundHalfEven(n, d) : n / d;
}

/** Milliseconds to add to a date for a number (llround for doubles, as mongod does). */
function millisOf(v: unknown): number {
  const kind = numericKind(v);
  if (kind === 'int' || kind === 'long') return Number(toBigInt(v));
  const d = toDouble(v);
  return d < 0 ? -Math.round(-d) : Math.round(d);
}

// ---------------------------------------------------------------------------------------------
// Arithmetic operators
// ---------------------------------------------------------------------------------------------

function opAdd(vals: unknown[]): unknown {
  let total: unknown = new Int32(0);
  let date: Date | undefined;
  for (const v of vals) {
    if (isNullish(v)) return null;
    if (v instanceof Date) {
      if (date) fail(16612, 'only one date allowed in an $add expression');
      date = v;
    } else if (isNumeric(v)) {
      total = addNumbers(total, v);
    } else {
      fail(16554, `$add only supports numeric or date types, not ${typeName(v)}`);
    }
  }
  return date ? new Date(date.getTime() + millisOf(total)) : total;
}

export function subtractValues(a: unknown, b: unknown): unknown {
  const ka = numericKind(a);
  const kb = numericKind(b);
  if (ka && kb) {
    const kind = widestKind(ka, kb);
    if (kind === 'decimal') return decimalBinary(a, b, R.sub, (x, y) => x - y);
    if (kind === 'double') return toDouble(a) - toDouble(b);
    return narrowInteger(toBigInt(a) - toBigInt(b), kind);
  }
  if (isNullish(a) || isNullish(b)) return null;
  if (a instanceof Date) {
    if (b instanceof Date) return Long.fromNumber(a.getTime() - b.getTime());
    if (kb) return new Date(a.getTime() - millisOf(b));
    fail(14, `can't $subtract ${typeName(b)} from date`);
  }
  fail(14, `can't $subtract ${typeName(b)} from ${typeName(a)}`);
}

function opMultiply(vals: unknown[]): unknown {
  let total: unknown = new Int32(1);
  for (const v of vals) {
    if (isNullish(v)) return null;
    if (!isNumeric(v)) fail(16555, `$multiply only supports numeric types, not ${typeName(v)}`);
    total = multiplyNumbers(total, v);
  }
  return total;
}

function opDivide(a: unknown, b: unknown): unknown {
  const ka = numericKind(a);
  const kb = numericKind(b);
  if (ka && kb) {
    if (isZero(b)) fail(2, "can't $divide by zero");
    if (ka === 'decimal' || kb === 'decimal') return decimalBinary(a, b, R.div, (x, y) => x / y);
    return toDouble(a) / toDouble(b);
  }
  if (isNullish(a) || isNullish(b)) return null;
  fail(14, `$divide only supports numeric types, not ${typeName(a)} and ${typeName(b)}`);
}

function opMod(a: unknown, b: unknown): unknown {
  const ka = numericKind(a);
  const kb = numericKind(b);
  if (ka && kb) {
    if (isZero(b)) fail(16610, "can't $mod by zero");
    const kind = widestKind(ka, kb);
    if (kind === 'decimal') return decimalBinary(a, b, R.mod, (x, y) => x % y);
    if (kind === 'double') return toDouble(a) % toDouble(b);
    return narrowInteger(toBigInt(a) % toBigInt(b), kind);
  }
  if (isNullish(a) || isNullish(b)) return null;
  fail(16611, `$mod only supports numeric types, not ${typeName(a)} and ${typeName(b)}`);
}

function requireNumber(v: unknown, name: string): NumericKind {
  const kind = numericKind(v);
  if (!kind) fail(28765, `${name} only supports numeric types, not ${typeName(v)}`);
  return kind;
}

function opAbs(v: unknown, name: string): unknown {
  if (isNullish(v)) return null;
  switch (requireNumber(v, name)) {
    case 'int':
      return narrowInteger(BigInt(Math.abs((v as Int32).value)), 'int');
    case 'long': {
      const n = (v as Long).toBigInt();
      if (n === LONG_MIN) fail(28680, "can't take $abs of long long min");
      return Long.fromBigInt(n < 0n ? -n : n);
    }
    case 'double':
      return Math.abs(toDouble(v));
    case 'decimal': {
      const s = (v as Decimal128).toString();
      return s.startsWith('-') ? Decimal128.fromString(s.slice(1)) : v;
    }
  }
}

/** $floor / $ceil: integers pass through, doubles use Math, decimals round exactly. */
function integralOp(dir: 'floor' | 'ceil'): (v: unknown, name: string) => unknown {
  return (v, name) => {
    if (isNullish(v)) return null;
    const kind = requireNumber(v, name);
    if (kind === 'int' || kind === 'long') return v;
    if (kind === 'double') return dir === 'floor' ? Math.floor(v as number) : Math.ceil(toDouble(v));
    const r = rationalOf(v);
    if (!r) return v;
    let q = r.num / r.den;
    const exact = q * r.den === r.num;
    if (!exact && dir === 'floor' && r.num < 0n) q -= 1n;
    if (!exact && dir === 'ceil' && r.num > 0n) q += 1n;
    return Decimal128.fromString(q.toString());
  };
}

/** $round (half to even) and $trunc, with an optional place in [-20, 100]. */
function roundingOp(mode: 'round' | 'trunc'): OperatorParser {
  return variadic(
    (vals, name) => {
      const [v, placeArg] = vals;
      if (isNullish(v)) return null;
      let place = 0;
      if (vals.length > 1) {
        if (isNullish(placeArg)) return null;
        place = roundingPlace(placeArg, name);
      }
      const kind = numericKind(v);
      if (!kind) fail(51081, `${name} only supports numeric types, not ${typeName(v)}`);
      if (kind === 'int' || kind === 'long') return roundInteger(v, place, mode, kind, name, vals);
      if (kind === 'double') return roundDouble(v as number, place, mode);
      return roundDecimal(v as Decimal128, place, mode);
    },
    1,
    2,
  );
}

function roundingPlace(p: unknown, name: string): number {
  const kind = numericKind(p);
  if (!kind) fail(16006, `precision argument to ${name} must be a numeric type, not ${typeName(p)}`);
  const d = toDouble(p);
  if (!Number.isInteger(d)) fail(51082, `precision argument to ${name} must be a integral value`);
  if (d < -20 || d > 100) fail(51083, `cannot apply ${name} with precision value ${d} value must be in [-20, 100]`);
  return d;
}

function roundInteger(
  v: unknown,
  place: number,
  mode: 'round' | 'trunc',
  kind: 'int' | 'long',
  name: string,
  args: unknown[],
): unknown {
  if (place >= 0) return v;
  const r = roundRational({ num: toBigInt(v), den: 1n }, place, mode) * 10n ** BigInt(-place);
  if (r < LONG_MIN || r > LONG_MAX) {
    fail(
      51080,
      `invalid conversion from Decimal128 result in ${name} resulting from arguments: [${args.map(show).join(', ')}]`,
    );
  }
  return narrowInteger(r, kind);
}

function roundDouble(d: number, place: number, mode: 'round' | 'trunc'): number {
  // A double carries at most 15 reliable digits; mongod rounds through a 15-digit Decimal128.
  if (place >= 15 || !Number.isFinite(d) || d === 0) return d;
  const r = rationalOfDecimalString(d.toPrecision(15));
  if (!r) return d;
  const q = roundRational(r, place, mode);
  return Number(decimalString(q, place));
}

function roundDecimal(v: Decimal128, place: number, mode: 'round' | 'trunc'): Decimal128 {
  const r = rationalOf(v);
  if (!r) return v;
  let q = roundRational(r, place, mode);
  // The result keeps `place` digits after the point, capped at Decimal128's 34 digits.
  while (digitCount(q) > 34) {
    place -= digitCount(q) - 34;
    q = roundRational(r, place, mode);
  }
  return Decimal128.fromString(decimalString(q, place));
}

// ---------------------------------------------------------------------------------------------
// Comparison and boolean operators
// ---------------------------------------------------------------------------------------------

function comparison(test: (c: number) => boolean): OperatorParser {
  return binary((a, b) => test(compareValues(a, b)));
}

/** mongod's truthiness: false, null, missing and numeric zero are false; everything else is true. */
export function isTruthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (v === true) return true;
  if (typeof v === 'number') return v !== 0;
  if (numericKind(v)) return toDouble(v) !== 0;
  return true;
}

const parseAnd: OperatorParser = (arg) => {
  const fns = operandList(arg).map(compile);
  return (root, vars) => fns.every((fn) => isTruthy(fn(root, vars)));
};

const parseOr: OperatorParser = (arg) => {
  const fns = operandList(arg).map(compile);
  return (root, vars) => fns.some((fn) => isTruthy(fn(root, vars)));
};

const parseCond: OperatorParser = (arg, name) => {
  let parts: [Fn, Fn, Fn];
  if (isPlainObject(arg)) {
    const named = namedArgs(arg, ['if', 'then', 'else'], ['if', 'then', 'else'], {
      unknown: (f) => [17083, `Unrecognized parameter to $cond: ${f}`],
      missing: (f) => [
        ({ if: 17080, then: 17081, else: 17082 } as Record<string, number>)[f],
        `Missing '${f}' parameter to $cond`,
      ],
    });
    parts = [named.if!, named.then!, named.else!];
  } else {
    parts = compileArgs(name, arg, 3) as [Fn, Fn, Fn];
  }
  const [test, then, otherwise] = parts;
  return (root, vars) => (isTruthy(test(root, vars)) ? then(root, vars) : otherwise(root, vars));
};

const parseIfNull: OperatorParser = (arg, name) => {
  const fns = operandList(arg).map(compile);
  if (fns.length < 2) fail(1257300, `${name} needs at least two arguments, had: ${fns.length}`);
  return (root, vars) => {
    // The last operand is the replacement and is returned as is, even when null or missing.
    for (let i = 0; i < fns.length - 1; i++) {
      const v = fns[i](root, vars);
      if (!isNullish(v)) return v;
    }
    return fns[fns.length - 1](root, vars);
  };
};

// ---------------------------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------------------------

/** Double rendering of $toString: shortest round-trip form, mongod's spelling of specials. */
function formatDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return 'Infinity';
  if (d === -Infinity) return '-Infinity';
  if (Object.is(d, -0)) return '-0';
  return String(d);
}

/** Value::coerceToString: what $toLower, $substrBytes ... accept in place of a string. */
function coerceToString(v: unknown): string {
  if (isNullish(v)) return '';
  if (typeof v === 'string') return v;
  switch (bsonTypeOf(v)) {
    case 'double':
      return formatDouble(toDouble(v));
    case 'int':
    case 'long':
    case 'decimal':
      return (v as { toString(): string }).toString();
    case 'symbol':
      return (v as { value: string }).value;
    case 'date':
      return isoString(v as Date);
    case 'timestamp':
      return `Timestamp(${(v as Timestamp).t}, ${(v as Timestamp).i})`;
  }
  fail(16007, `can't convert from BSON type ${typeName(v)} to String`);
}

function opConcat(vals: unknown[]): unknown {
  let out = '';
  for (const v of vals) {
    if (isNullish(v)) return null;
    if (typeof v !== 'string') fail(16702, `$concat only supports strings, not ${typeName(v)}`);
    out += v;
  }
  return out;
}

/** mongod changes case of ASCII letters only. */
function asciiCase(upper: boolean): (v: unknown) => unknown {
  const re = upper ? /[a-z]+/g : /[A-Z]+/g;
  return (v) => coerceToString(v).replace(re, (m) => (upper ? m.toUpperCase() : m.toLowerCase()));
}

function opSubstrBytes(s: unknown, start: unknown, length: unknown, name: string): unknown {
  const str = coerceToString(s);
  if (!numericKind(start))
    fail(16034, `${name}: starting index must be a numeric type (is BSON type ${typeName(start)})`);
  if (!numericKind(length)) fail(16035, `${name}: length must be a numeric type (is BSON type ${typeName(length)})`);
  const bytes = Buffer.from(str, 'utf8');
  const lower = Math.trunc(toDouble(start));
  if (lower < 0 || lower >= bytes.length) return '';
  const len = Math.trunc(toDouble(length));
  const upper = len < 0 ? bytes.length : Math.min(bytes.length, lower + len);
  const isContinuation = (i: number): boolean => i < bytes.length && (bytes[i] & 0xc0) === 0x80;
  if (isContinuation(lower)) fail(28656, `${name}: Invalid range, starting index is a UTF-8 continuation byte.`);
  if (isContinuation(upper)) fail(28657, `${name}: Invalid range, ending index is in the middle of a UTF-8 character.`);
  return bytes.subarray(lower, upper).toString('utf8');
}

function int32Of(v: unknown): number | undefined {
  const d = toDouble(v);
  return Number.isInteger(d) && d >= -(2 ** 31) && d < 2 ** 31 ? d : undefined;
}

function opSubstrCP(s: unknown, start: unknown, length: unknown, name: string): unknown {
  const str = coerceToString(s);
  if (!numericKind(start))
    fail(34450, `${name}: starting index must be a numeric type (is BSON type ${typeName(start)})`);
  if (!numericKind(length)) fail(34452, `${name}: length must be a numeric type (is BSON type ${typeName(length)})`);
  const from = int32Of(start);
  if (from === undefined)
    fail(34451, `${name}: starting index cannot be represented as a 32-bit integral value: ${show(start)}`);
  const len = int32Of(length);
  if (len === undefined)
    fail(34453, `${name}: length cannot be represented as a 32-bit integral value: ${show(length)}`);
  if (from < 0) fail(34455, `${name}: the starting index must be nonnegative integer.`);
  if (len < 0) fail(34454, `${name}: length must be a nonnegative integer.`);
  return Array.from(str)
    .slice(from, from + len)
    .join('');
}

function opStrLenCP(v: unknown, name: string): unknown {
  if (typeof v !== 'string') fail(34471, `${name} requires a string argument, found: ${typeName(v)}`);
  let n = 0;
  for (const _ of v) n++;
  return new Int32(n);
}

function opStrLenBytes(v: unknown, name: string): unknown {
  if (typeof v !== 'string') fail(34473, `${name} requires a string argument, found: ${typeName(v)}`);
  return new Int32(Buffer.byteLength(v, 'utf8'));
}

// ---------------------------------------------------------------------------------------------
// Arrays
// ---------------------------------------------------------------------------------------------

function opSize(v: unknown): unknown {
  if (!Array.isArray(v)) fail(17124, `The argument to $size must be an array. Type of argument is: ${typeName(v)}`);
  return new Int32(v.length);
}

function opArrayElemAt(arr: unknown, idx: unknown): unknown {
  if (isNullish(arr) || isNullish(idx)) return null;
  if (!Array.isArray(arr)) fail(28689, `$arrayElemAt's first argument must be an array, but is ${typeName(arr)}`);
  if (!numericKind(idx)) fail(28690, `$arrayElemAt's second argument must be a numeric value, but is ${typeName(idx)}`);
  const i = int32Of(idx);
  if (i === undefined)
    fail(28691, `$arrayElemAt's second argument must be representable as a 32-bit integer: ${show(idx)}`);
  const at = i < 0 ? arr.length + i : i;
  return at >= 0 && at < arr.length ? arr[at] : undefined;
}

function firstOrLast(which: 'first' | 'last'): (v: unknown, name: string) => unknown {
  return (v, name) => {
    if (isNullish(v)) return null;
    if (!Array.isArray(v)) fail(28689, `${name}'s argument must be an array, but is ${typeName(v)}`);
    return which === 'first' ? v[0] : v[v.length - 1];
  };
}

function opIn(value: unknown, arr: unknown): unknown {
  if (!Array.isArray(arr)) fail(40081, `$in requires an array as a second argument, found: ${typeName(arr)}`);
  return arr.some((el) => valuesEqual(el, value));
}

function opConcatArrays(vals: unknown[]): unknown {
  const out: unknown[] = [];
  for (const v of vals) {
    if (isNullish(v)) return null;
    if (!Array.isArray(v)) fail(28664, `$concatArrays only supports arrays, not ${typeName(v)}`);
    out.push(...v);
  }
  return out;
}

/** Binds `name` to `value` on top of `vars` without copying the outer scope. */
function bind(vars: Vars, name: string, value: unknown): Vars {
  const scope = Object.create(vars) as Record<string, unknown>;
  scope[name] = value;
  return scope;
}

function loopVariable(name: string, as: unknown, code: number): string {
  if (as === undefined) return 'this';
  if (typeof as !== 'string') fail(code, `${name} 'as' must be a string`);
  validateUserVariableName(as);
  return as;
}

const parseMap: OperatorParser = (arg, name) => {
  if (!isPlainObject(arg)) fail(16878, `${name} only supports an object as its argument`);
  const as = loopVariable(name, arg.as, 16866);
  const f = namedArgs(arg, ['input', 'as', 'in'], ['input', 'in'], {
    unknown: (k) => [16879, `Unrecognized parameter to ${name}: ${k}`],
    missing: (k) =>
      k === 'input' ? [16880, `Missing 'input' parameter to ${name}`] : [16882, `Missing 'in' parameter to ${name}`],
  });
  const input = f.input!;
  const body = f.in!;
  return (root, vars) => {
    const arr = input(root, vars);
    if (isNullish(arr)) return null;
    if (!Array.isArray(arr)) fail(16883, `input to ${name} must be an array not ${typeName(arr)}`);
    return arr.map((el) => {
      const v = body(root, bind(vars, as, el));
      return v === undefined ? null : v;
    });
  };
};

const parseFilter: OperatorParser = (arg, name) => {
  if (!isPlainObject(arg)) fail(28646, `${name} only supports an object as its argument`);
  const as = loopVariable(name, arg.as, 28649);
  const f = namedArgs(arg, ['input', 'as', 'cond', 'limit'], ['input', 'cond'], {
    unknown: (k) => [28647, `Unrecognized parameter to ${name}: ${k}`],
    missing: (k) =>
      k === 'input' ? [28648, `Missing 'input' parameter to ${name}`] : [28650, `Missing 'cond' parameter to ${name}`],
  });
  const { input, cond, limit } = f;
  return (root, vars) => {
    const arr = input!(root, vars);
    if (isNullish(arr)) return null;
    if (!Array.isArray(arr)) fail(28651, `input to ${name} must be an array not ${typeName(arr)}`);
    let max = Infinity;
    if (limit) {
      const l = limit(root, vars);
      if (!isNullish(l)) {
        const n = int32Of(l);
        if (!numericKind(l) || n === undefined)
          fail(327391, `${name}: limit must be represented as a 32-bit integral value: ${show(l)}`);
        if (n < 1) fail(327392, `${name}: limit must be greater than 0: ${n}`);
        max = n;
      }
    }
    const out: unknown[] = [];
    for (const el of arr) {
      if (out.length >= max) break;
      if (isTruthy(cond!(root, bind(vars, as, el)))) out.push(el);
    }
    return out;
  };
};

const parseLet: OperatorParser = (arg, name) => {
  const f = namedArgs(
    requireObjectArg(arg, 16874, `${name} only supports an object as its argument`),
    ['vars', 'in'],
    ['vars', 'in'],
    {
      unknown: (k) => [16875, `Unrecognized parameter to ${name}: ${k}`],
      missing: (k) =>
        k === 'vars' ? [16876, `Missing 'vars' parameter to ${name}`] : [16877, `Missing 'in' parameter to ${name}`],
    },
  );
  const spec = (arg as Document).vars;
  if (!isPlainObject(spec)) fail(10065, `invalid parameter: expected an object (vars)`);
  const defs = Object.keys(spec).map((k): [string, Fn] => {
    validateUserVariableName(k);
    return [k, compile(spec[k])];
  });
  const body = f.in!;
  return (root, vars) => {
    // All definitions see the outer scope, not each other.
    const scope = Object.create(vars) as Record<string, unknown>;
    for (const [k, fn] of defs) scope[k] = fn(root, vars);
    return body(root, scope);
  };
};

// ---------------------------------------------------------------------------------------------
// Types and conversions
// ---------------------------------------------------------------------------------------------

function opType(v: unknown): unknown {
  return typeName(v);
}

function conversionFailure(from: unknown, to: string): never {
  fail(241, `Unsupported conversion from ${typeName(from)} to ${to} in $convert with no onError value`);
}

function opToString(v: unknown): unknown {
  if (isNullish(v)) return null;
  switch (bsonTypeOf(v)) {
    case 'string':
      return v;
    case 'bool':
      return v ? 'true' : 'false';
    case 'double':
      return formatDouble(toDouble(v));
    case 'int':
    case 'long':
    case 'decimal':
      return (v as { toString(): string }).toString();
    case 'date':
      return isoString(v as Date);
    case 'objectId':
      return (v as ObjectId).toHexString();
    case 'symbol':
      return (v as { value: string }).value;
  }
  return conversionFailure(v, 'string');
}

function opToDate(v: unknown): unknown {
  if (isNullish(v)) return null;
  switch (bsonTypeOf(v)) {
    case 'date':
      return v;
    case 'long':
      return new Date((v as Long).toNumber());
    case 'double':
    case 'decimal': {
      const d = toDouble(v);
      if (!Number.isFinite(d))
        fail(241, `Conversion from ${typeName(v)} to date failed: value ${show(v)} is out of range for a date`);
      return new Date(Math.trunc(d));
    }
    case 'objectId':
      return (v as ObjectId).getTimestamp();
    case 'timestamp':
      return new Date((v as Timestamp).t * 1000);
    case 'string':
      return parseDateString(v as string);
  }
  return conversionFailure(v, 'date');
}

/** ISO-8601 dates as $toDate / $dateFromString accept them; no time zone means UTC. */
function parseDateString(s: string): Date {
  const m =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(
      s.trim(),
    );
  const bad = (): never => fail(241, `Error parsing date string '${s}'`);
  if (!m) return bad();
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map((x) => Number(x ?? 0));
  const ms = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  const lastDay = new Date(utcMillis(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > lastDay || h > 23 || mi > 59 || sec > 59) bad();
  const zone = m[8];
  const offset = zone && zone !== 'Z' ? fixedOffsetMs(zone) : 0;
  return new Date(utcMillis(y, mo - 1, d, h, mi, sec, ms) - offset);
}

// ---------------------------------------------------------------------------------------------
// Dates and time zones
// ---------------------------------------------------------------------------------------------

const DAY_MS = 86_400_000;

/** Date.UTC without its 0..99 → 1900s year mapping. */
function utcMillis(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number {
  if (y >= 100) return Date.UTC(y, mo, d, h, mi, s, ms);
  const date = new Date(0);
  date.setUTCFullYear(y, mo, d);
  date.setUTCHours(h, mi, s, ms);
  return date.getTime();
}

interface TimeZone {
  readonly isUtc: boolean;
  /** Local time minus UTC at the instant `utcMs`, in milliseconds. */
  offsetMs(utcMs: number): number;
}

const UTC: TimeZone = { isUtc: true, offsetMs: () => 0 };
const zoneCache = new Map<string, TimeZone>();

function fixedOffsetMs(s: string): number {
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(s);
  if (!m) return NaN;
  const mins = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return (m[1] === '-' ? -1 : 1) * mins * 60_000;
}

function parseTimeZone(name: string): TimeZone {
  const cached = zoneCache.get(name);
  if (cached) return cached;
  let zone: TimeZone;
  if (name === 'UTC' || name === 'GMT' || name === 'Z' || name === 'Etc/UTC') {
    zone = UTC;
  } else if (/^[+-]\d{2}(:?\d{2})?$/.test(name)) {
    const off = fixedOffsetMs(name);
    zone = { isUtc: off === 0, offsetMs: () => off };
  } else {
    zone = olsonZone(name);
  }
  zoneCache.set(name, zone);
  return zone;
}

/** An Olson zone through Intl (Node ships full ICU): the offset is read back from wall-clock parts. */
function olsonZone(name: string): TimeZone {
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    fail(40485, `unrecognized time zone identifier: "${name}"`);
  }
  return {
    isUtc: false,
    offsetMs(utcMs: number): number {
      const parts: Record<string, number> = {};
      for (const p of fmt.formatToParts(new Date(utcMs))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
      const wall = utcMillis(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
      return wall - Math.floor(utcMs / 1000) * 1000;
    },
  };
}

/** The UTC instant showing wall-clock `localMs` in `tz` (the later one across a DST gap). */
function localToUtc(localMs: number, tz: TimeZone): number {
  if (tz.isUtc) return localMs;
  const guess = localMs - tz.offsetMs(localMs);
  return localMs - tz.offsetMs(guess);
}

function timeZoneOf(v: unknown): TimeZone | null {
  if (v === undefined) return UTC;
  if (v === null) return null;
  if (typeof v !== 'string') fail(40517, `timezone must evaluate to a string, found ${typeName(v)}`);
  return parseTimeZone(v);
}

/** Instant of a date-like value: Date, Timestamp (seconds) or ObjectId (creation time). */
function dateMillis(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  switch (bsonClassOf(v)) {
    case 'Timestamp':
      return (v as Timestamp).t * 1000;
    case 'ObjectId':
      return (v as ObjectId).getTimestamp().getTime();
  }
  fail(16006, `can't convert from BSON type ${typeName(v)} to Date`);
}

interface DateParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  dayOfWeek: number;
  dayOfYear: number;
  offsetMinutes: number;
}

function dateParts(ms: number, tz: TimeZone): DateParts {
  const off = tz.offsetMs(ms);
  const d = new Date(ms + off);
  const year = d.getUTCFullYear();
  return {
    year,
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
    dayOfWeek: d.getUTCDay() + 1,
    dayOfYear: Math.floor((d.getTime() - utcMillis(year, 0, 1)) / DAY_MS) + 1,
    offsetMinutes: Math.round(off / 60_000),
  };
}

/** ISO 8601 week-numbering: weeks start Monday; week 1 holds the year's first Thursday. */
function isoWeek(p: DateParts): { isoYear: number; isoWeek: number; isoDayOfWeek: number } {
  const isoDayOfWeek = ((p.dayOfWeek + 5) % 7) + 1;
  const thursday = utcMillis(p.year, p.month - 1, p.day + 4 - isoDayOfWeek);
  const isoYear = new Date(thursday).getUTCFullYear();
  const week = Math.floor((thursday - utcMillis(isoYear, 0, 1)) / DAY_MS / 7) + 1;
  return { isoYear, isoWeek: week, isoDayOfWeek };
}

/** strftime %U: weeks start Sunday; days before the first Sunday are week 0. */
function sundayWeek(p: DateParts): number {
  return Math.floor((p.dayOfYear + 7 - p.dayOfWeek) / 7);
}

const DATE_PART_GETTERS: Record<string, (p: DateParts) => number> = {
  $year: (p) => p.year,
  $month: (p) => p.month,
  $dayOfMonth: (p) => p.day,
  $hour: (p) => p.hour,
  $minute: (p) => p.minute,
  $second: (p) => p.second,
  $millisecond: (p) => p.millisecond,
  $dayOfWeek: (p) => p.dayOfWeek,
  $dayOfYear: (p) => p.dayOfYear,
  $week: sundayWeek,
  $isoWeek: (p) => isoWeek(p).isoWeek,
  $isoWeekYear: (p) => isoWeek(p).isoYear,
  $isoDayOfWeek: (p) => isoWeek(p).isoDayOfWeek,
};

/** $year & co accept `<date>`, `[<date>]` or `{date, timezone}`. */
function datePartOperator(getter: (p: DateParts) => number): OperatorParser {
  return (arg, name) => {
    let dateFn: Fn;
    let zoneFn: Fn | undefined;
    if (isPlainObject(arg) && !Object.keys(arg).some((k) => k.startsWith('$'))) {
      for (const k of Object.keys(arg))
        if (k !== 'date' && k !== 'timezone') fail(40535, `unrecognized option to ${name}: "${k}"`);
      if (!('date' in arg)) fail(40539, `missing 'date' argument to ${name}, provided: ${show(arg)}`);
      dateFn = compile(arg.date);
      if ('timezone' in arg) zoneFn = compile(arg.timezone);
    } else if (Array.isArray(arg)) {
      if (arg.length !== 1)
        fail(40536, `${name} accepts exactly one argument if given an array, but was given ${arg.length}`);
      dateFn = compile(arg[0]);
    } else {
      dateFn = compile(arg);
    }
    return (root, vars) => {
      const date = dateFn(root, vars);
      if (isNullish(date)) return null;
      const tz = zoneFn ? timeZoneOf(zoneFn(root, vars) ?? null) : UTC;
      if (!tz) return null;
      return new Int32(getter(dateParts(dateMillis(date), tz)));
    };
  };
}

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

function pad(n: number, width: number): string {
  const s = String(Math.abs(n)).padStart(width, '0');
  return n < 0 ? `-${s}` : s;
}

function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const m = Math.abs(minutes);
  return `${sign}${pad(Math.floor(m / 60), 2)}${pad(m % 60, 2)}`;
}

const FORMAT_DIRECTIVES: Record<string, (p: DateParts) => string> = {
  d: (p) => pad(p.day, 2),
  G: (p) => pad(isoWeek(p).isoYear, 4),
  H: (p) => pad(p.hour, 2),
  j: (p) => pad(p.dayOfYear, 3),
  L: (p) => pad(p.millisecond, 3),
  m: (p) => pad(p.month, 2),
  M: (p) => pad(p.minute, 2),
  S: (p) => pad(p.second, 2),
  w: (p) => String(p.dayOfWeek),
  u: (p) => String(isoWeek(p).isoDayOfWeek),
  U: (p) => pad(sundayWeek(p), 2),
  V: (p) => pad(isoWeek(p).isoWeek, 2),
  Y: (p) => pad(p.year, 4),
  z: (p) => formatOffset(p.offsetMinutes),
  Z: (p) => String(p.offsetMinutes),
  b: (p) => MONTH_NAMES[p.month - 1].slice(0, 3),
  B: (p) => MONTH_NAMES[p.month - 1],
  '%': () => '%',
};

function validateFormat(format: string): void {
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') continue;
    if (i + 1 >= format.length) fail(18535, "Unmatched '%' at end of format string");
    if (!hasOwn.call(FORMAT_DIRECTIVES, format[i + 1]))
      fail(18536, `Invalid format character '%${format[i + 1]}' in format string`);
    i++;
  }
}

function formatDate(format: string, ms: number, tz: TimeZone): string {
  const p = dateParts(ms, tz);
  if ((p.year < 0 || p.year > 9999) && /%[YG]/.test(format)) {
    fail(
      18537,
      `Could not convert date to string: date component was outside the supported range of 0-9999: ${p.year}`,
    );
  }
  let out = '';
  for (let i = 0; i < format.length; i++) {
    if (format[i] === '%' && i + 1 < format.length) {
      out += FORMAT_DIRECTIVES[format[++i]](p);
    } else {
      out += format[i];
    }
  }
  return out;
}

const ISO_FORMAT = '%Y-%m-%dT%H:%M:%S.%LZ';
const LOCAL_ISO_FORMAT = '%Y-%m-%dT%H:%M:%S.%L';

function isoString(d: Date): string {
  const t = d.getTime();
  return Number.isNaN(t) ? 'Invalid Date' : formatDate(ISO_FORMAT, t, UTC);
}

const parseDateToString: OperatorParser = (arg, name) => {
  const f = namedArgs(
    requireObjectArg(arg, 18629, `${name} only supports an object as its argument`),
    ['date', 'format', 'timezone', 'onNull'],
    ['date'],
    {
      unknown: (k) => [18534, `Unrecognized parameter to ${name}: ${k}`],
      missing: () => [18628, `Missing 'date' parameter to ${name}`],
    },
  );
  // A constant format is checked once, at parse time, as mongod does.
  const rawFormat = (arg as Document).format;
  if (typeof rawFormat === 'string') validateFormat(rawFormat);
  return (root, vars) => {
    let format: string | undefined;
    if (f.format) {
      const fv = f.format(root, vars);
      if (isNullish(fv)) return null;
      if (typeof fv !== 'string')
        fail(18533, `${name} requires that 'format' be a string, found: ${typeName(fv)} with value ${show(fv)}`);
      if (fv !== rawFormat) validateFormat(fv);
      format = fv;
    }
    const tz = f.timezone ? timeZoneOf(f.timezone(root, vars) ?? null) : UTC;
    if (!tz) return null;
    const date = f.date!(root, vars);
    if (isNullish(date)) return f.onNull ? f.onNull(root, vars) : null;
    return formatDate(format ?? (tz.isUtc ? ISO_FORMAT : LOCAL_ISO_FORMAT), dateMillis(date), tz);
  };
};

const UNIT_MS: Record<string, number> = { millisecond: 1, second: 1000, minute: 60_000, hour: 3_600_000 };
const CALENDAR_UNITS = new Set(['day', 'week', 'month', 'quarter', 'year']);

/** Adds `amount` calendar units in `tz`; month arithmetic clamps to the last day of the month. */
export function addToDate(ms: number, unit: string, amount: number, tz: TimeZone = UTC): number {
  if (hasOwn.call(UNIT_MS, unit)) return ms + amount * UNIT_MS[unit];
  const local = new Date(ms + tz.offsetMs(ms));
  if (unit === 'day' || unit === 'week') {
    local.setUTCDate(local.getUTCDate() + amount * (unit === 'week' ? 7 : 1));
  } else {
    const months = amount * (unit === 'year' ? 12 : unit === 'quarter' ? 3 : 1);
    const total = local.getUTCFullYear() * 12 + local.getUTCMonth() + months;
    const year = Math.floor(total / 12);
    const month = total - year * 12;
    const lastDay = new Date(utcMillis(year, month + 1, 0)).getUTCDate();
    local.setUTCFullYear(year, month, Math.min(local.getUTCDate(), lastDay));
  }
  return localToUtc(local.getTime(), tz);
}

function dateArithmetic(sign: 1 | -1): OperatorParser {
  return (arg, name) => {
    const f = namedArgs(
      requireObjectArg(arg, 5166400, `${name} expects an object as its argument`),
      ['startDate', 'unit', 'amount', 'timezone'],
      ['startDate', 'unit', 'amount'],
      {
        unknown: (k) => [
          5166401,
          `Unrecognized argument to ${name}: ${k}. Expected arguments are startDate, unit, amount, and optionally timezone.`,
        ],
        missing: () => [5166402, `${name} requires startDate, unit, and amount to be present`],
      },
    );
    return (root, vars) => {
      const start = f.startDate!(root, vars);
      const unit = f.unit!(root, vars);
      const amount = f.amount!(root, vars);
      const zone = f.timezone ? f.timezone(root, vars) : undefined;
      if (isNullish(start) || isNullish(unit) || isNullish(amount) || (f.timezone && isNullish(zone))) return null;
      if (!(start instanceof Date) && !['Timestamp', 'ObjectId'].includes(bsonClassOf(start) ?? '')) {
        fail(5166403, `${name} requires startDate to be convertible to a date`);
      }
      if (typeof unit !== 'string') fail(5166404, `${name} expects string defining the time unit`);
      if (!hasOwn.call(UNIT_MS, unit) && !CALENDAR_UNITS.has(unit)) fail(9, `unknown time unit value: ${unit}`);
      const n = numericKind(amount) ? toDouble(amount) : NaN;
      if (!Number.isInteger(n)) fail(5166405, `${name} expects integer amount of time units`);
      const tz = timeZoneOf(zone) ?? UTC;
      return new Date(addToDate(dateMillis(start), unit, sign * n, tz));
    };
  };
}

// ---------------------------------------------------------------------------------------------
// Accumulators: shared by $group and the array forms of $sum/$avg/$min/$max
// ---------------------------------------------------------------------------------------------

/** One running aggregate: fed values one at a time (undefined = missing), read once at the end. */
export interface Accumulator {
  add(value: unknown): void;
  result(): unknown;
}

/**
 * Exact-as-possible running sum with mongod's result typing: ints stay int until they overflow
 * (then long, then double), any double makes a double, any decimal makes a decimal. Non-numbers
 * are ignored.
 */
class NumericSum {
  kind: NumericKind = 'int';
  count = 0;
  private integers = 0n;
  private doubles = 0;
  private compensation = 0;
  private decimals: Rational = { num: 0n, den: 1n };
  private decimalSpecial: number | undefined;

  add(v: unknown): void {
    const kind = numericKind(v);
    if (!kind) return;
    this.count++;
    this.kind = widestKind(this.kind, kind);
    if (kind === 'int' || kind === 'long') {
      this.integers += toBigInt(v);
    } else if (kind === 'double') {
      this.addDouble(toDouble(v));
    } else {
      const r = rationalOf(v);
      if (r)
        this.decimals = { num: this.decimals.num * r.den + r.num * this.decimals.den, den: this.decimals.den * r.den };
      else this.decimalSpecial = (this.decimalSpecial ?? 0) + toDouble(v);
    }
  }

  /** Neumaier summation keeps long double sums close to the exact total, as mongod's double-double does. */
  private addDouble(x: number): void {
    const t = this.doubles + x;
    if (Number.isFinite(t)) {
      this.compensation += Math.abs(this.doubles) >= Math.abs(x) ? this.doubles - t + x : x - t + this.doubles;
    }
    this.doubles = t;
  }

  doubleTotal(): number {
    const d = Number.isFinite(this.doubles) ? this.doubles + this.compensation : this.doubles;
    return Number(this.integers) + d;
  }

  result(): unknown {
    switch (this.kind) {
      case 'int':
      case 'long':
        return narrowInteger(this.integers, this.kind);
      case 'double':
        return this.doubleTotal();
      case 'decimal':
        return this.decimalTotal();
    }
  }

  decimalTotal(): Decimal128 {
    const nonDecimal = this.doubles + this.compensation;
    const special = (this.decimalSpecial ?? 0) + (Number.isFinite(nonDecimal) ? 0 : nonDecimal);
    if (this.decimalSpecial !== undefined || !Number.isFinite(nonDecimal)) return decimalOfSpecial(special);
    return decimalOfRational(this.exactTotal());
  }

  exactTotal(): Rational {
    const d = rationalOf(this.doubles + this.compensation) ?? { num: 0n, den: 1n };
    const { num, den } = this.decimals;
    return { num: num * d.den + d.num * den + this.integers * den * d.den, den: den * d.den };
  }
}

class SumAccumulator implements Accumulator {
  private readonly sum = new NumericSum();
  add(v: unknown): void {
    this.sum.add(v);
  }
  result(): unknown {
    return this.sum.result();
  }
}

class AvgAccumulator implements Accumulator {
  private readonly sum = new NumericSum();
  add(v: unknown): void {
    this.sum.add(v);
  }
  result(): unknown {
    const n = this.sum.count;
    if (n === 0) return null;
    if (this.sum.kind !== 'decimal') return this.sum.doubleTotal() / n;
    const total = this.sum.decimalTotal();
    const r = rationalOf(total);
    return r ? decimalOfRational({ num: r.num, den: r.den * BigInt(n) }) : total;
  }
}

/** $min / $max ignore null and missing; they answer null when nothing else was seen. */
class ExtremumAccumulator implements Accumulator {
  private best: unknown = undefined;
  constructor(private readonly sign: 1 | -1) {}
  add(v: unknown): void {
    if (isNullish(v)) return;
    if (this.best === undefined || compareValues(v, this.best) * this.sign > 0) this.best = v;
  }
  result(): unknown {
    return this.best === undefined ? null : this.best;
  }
}

class FirstAccumulator implements Accumulator {
  private seen = false;
  private value: unknown;
  add(v: unknown): void {
    if (this.seen) return;
    this.seen = true;
    this.value = v;
  }
  result(): unknown {
    return this.value;
  }
}

class LastAccumulator implements Accumulator {
  private value: unknown;
  add(v: unknown): void {
    this.value = v;
  }
  result(): unknown {
    return this.value;
  }
}

class PushAccumulator implements Accumulator {
  private readonly values: unknown[] = [];
  add(v: unknown): void {
    if (v !== undefined) this.values.push(v);
  }
  result(): unknown {
    return this.values;
  }
}

class AddToSetAccumulator implements Accumulator {
  private readonly values = new Map<string, unknown>();
  add(v: unknown): void {
    if (v === undefined) return;
    const key = valueKey(v);
    if (!this.values.has(key)) this.values.set(key, v);
  }
  result(): unknown {
    return [...this.values.values()];
  }
}

class MergeObjectsAccumulator implements Accumulator {
  private readonly out: Document = {};
  add(v: unknown): void {
    if (isNullish(v)) return;
    if (!isPlainObject(v))
      fail(40400, `$mergeObjects requires object inputs, but input ${show(v)} is of type ${typeName(v)}`);
    for (const k of Object.keys(v)) if (v[k] !== undefined) setField(this.out, k, v[k]);
  }
  result(): unknown {
    return this.out;
  }
}

/** $group accumulators by name. `$count` is rewritten to `$sum: 1` by the $group stage. */
export const ACCUMULATORS: Readonly<Record<string, () => Accumulator>> = {
  $sum: () => new SumAccumulator(),
  $avg: () => new AvgAccumulator(),
  $min: () => new ExtremumAccumulator(-1),
  $max: () => new ExtremumAccumulator(1),
  $first: () => new FirstAccumulator(),
  $last: () => new LastAccumulator(),
  $push: () => new PushAccumulator(),
  $addToSet: () => new AddToSetAccumulator(),
  $mergeObjects: () => new MergeObjectsAccumulator(),
};

/**
 * $sum: "$arr" sums the array's elements; with several operands each operand is one value (an
 * array operand is then just a non-number).
 */
function accumulatorExpression(make: () => Accumulator): OperatorParser {
  return (arg) => {
    const fns = operandList(arg).map(compile);
    return (root, vars) => {
      const acc = make();
      if (fns.length === 1) {
        const v = fns[0](root, vars);
        if (Array.isArray(v)) for (const el of v) acc.add(el);
        else acc.add(v);
      } else {
        for (const fn of fns) acc.add(fn(root, vars));
      }
      return acc.result();
    };
  };
}

function opMergeObjects(vals: unknown[]): unknown {
  const acc = new MergeObjectsAccumulator();
  for (const v of vals) acc.add(v);
  return acc.result();
}

// ---------------------------------------------------------------------------------------------
// Value keys: a string per value, equal exactly when mongod considers the values equal
// ---------------------------------------------------------------------------------------------

const TWO_53 = 2 ** 53;

function numberKey(v: unknown): string {
  switch (numericKind(v)) {
    case 'int':
      return `n${(v as Int32).value}`;
    case 'long':
      return `n${(v as Long).toString()}`;
    case 'double': {
      const d = toDouble(v);
      if (d === 0) return 'n0';
      if (Number.isInteger(d) && Math.abs(d) >= TWO_53) return `n${BigInt(d)}`;
      return `n${d}`;
    }
    default: {
      // Decimal: integral values and values a double holds exactly share the other types' keys.
      const special = decimalSpecial(v as Decimal128);
      if (special !== undefined) return `n${special}`;
      const r = rationalOfDecimalString((v as Decimal128).toString())!;
      if (r.num % r.den === 0n) return `n${r.num / r.den}`;
      const d = Number((v as Decimal128).toString());
      if (compareNumbers(v, d) === 0) return `n${d}`;
      return `m${decimalOfRational(r).toString()}`;
    }
  }
}

/** Key for hashing ($group _id, $addToSet): values compare equal ⇔ keys are equal. */
export function valueKey(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return `s${JSON.stringify(v)}`;
    case 'number':
      return numberKey(v);
    case 'boolean':
      return v ? 'T' : 'F';
    case 'undefined':
      return 'u';
  }
  if (v === null) return 'z';
  if (Array.isArray(v)) return `[${v.map(valueKey).join(',')}]`;
  if (v instanceof Date) return `d${v.getTime()}`;
  if (isPlainObject(v)) {
    let s = '{';
    for (const k of Object.keys(v)) s += `${JSON.stringify(k)}:${valueKey(v[k])},`;
    return `${s}}`;
  }
  if (isNumeric(v)) return numberKey(v);
  switch (bsonClassOf(v)) {
    case 'ObjectId':
      return `o${(v as ObjectId).toHexString()}`;
    case 'BSONSymbol':
      return `s${JSON.stringify((v as { value: string }).value)}`;
    case 'Timestamp':
      return `t${(v as Timestamp).t}:${(v as Timestamp).i}`;
    case 'MinKey':
      return '<';
    case 'MaxKey':
      return '>';
  }
  return `x${bsonTypeOf(v)}:${formatValue(v)}`;
}

// ---------------------------------------------------------------------------------------------
// The operator table
// ---------------------------------------------------------------------------------------------

const OPERATORS: Readonly<Record<string, OperatorParser>> = {
  // Literals and variables
  $literal: (arg) => constant(arg),
  $let: parseLet,

  // Arithmetic
  $add: variadic(opAdd),
  $subtract: binary(subtractValues),
  $multiply: variadic(opMultiply),
  $divide: binary(opDivide),
  $mod: binary(opMod),
  $abs: unary(opAbs),
  $floor: unary(integralOp('floor')),
  $ceil: unary(integralOp('ceil')),
  $round: roundingOp('round'),
  $trunc: roundingOp('trunc'),

  // Comparison
  $eq: comparison((c) => c === 0),
  $ne: comparison((c) => c !== 0),
  $gt: comparison((c) => c > 0),
  $gte: comparison((c) => c >= 0),
  $lt: comparison((c) => c < 0),
  $lte: comparison((c) => c <= 0),
  $cmp: binary((a, b) => new Int32(compareValues(a, b))),

  // Boolean and conditional
  $and: parseAnd,
  $or: parseOr,
  $not: unary((v) => !isTruthy(v)),
  $cond: parseCond,
  $ifNull: parseIfNull,

  // Strings
  $concat: variadic(opConcat),
  $toLower: unary(asciiCase(false)),
  $toUpper: unary(asciiCase(true)),
  $substr: (arg) => ternary(opSubstrBytes)(arg, '$substrBytes'),
  $substrBytes: ternary(opSubstrBytes),
  $substrCP: ternary(opSubstrCP),
  $strLenCP: unary(opStrLenCP),
  $strLenBytes: unary(opStrLenBytes),

  // Arrays
  $size: unary(opSize),
  $arrayElemAt: binary(opArrayElemAt),
  $first: unary(firstOrLast('first')),
  $last: unary(firstOrLast('last')),
  $in: binary(opIn),
  $isArray: unary((v) => Array.isArray(v)),
  $concatArrays: variadic(opConcatArrays),
  $map: parseMap,
  $filter: parseFilter,

  // Objects
  $mergeObjects: variadic(opMergeObjects),

  // Types
  $type: unary(opType),
  $toString: unary(opToString),
  $toDate: unary(opToDate),

  // Dates
  ...Object.fromEntries(Object.entries(DATE_PART_GETTERS).map(([name, get]) => [name, datePartOperator(get)])),
  $dateToString: parseDateToString,
  $dateAdd: dateArithmetic(1),
  $dateSubtract: dateArithmetic(-1),

  // Array reductions
  $sum: accumulatorExpression(ACCUMULATORS.$sum),
  $avg: accumulatorExpression(ACCUMULATORS.$avg),
  $min: accumulatorExpression(ACCUMULATORS.$min),
  $max: accumulatorExpression(ACCUMULATORS.$max),
};
