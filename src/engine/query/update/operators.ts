/**
 * The update operators: parsing each operator's argument (the errors mongod gives for a malformed
 * one) and applying one parsed operation at one concrete path of the working copy of a document.
 */
import { Int32, Long, Timestamp } from 'bson';
import { EngineError, ErrorCode } from '../../errors';
import { cloneValue } from '../../values/clone';
import { compareValues, valuesEqual } from '../../values/compare';
import { formatValue } from '../../values/format';
import { addNumbers, multiplyNumbers, numericKind, toDouble } from '../../values/numbers';
import { bsonTypeOf, isNumeric, isPlainObject, type Document } from '../../values/types';
import { compileFilter } from '../matcher';
import {
  DIGITS,
  DocWriter,
  idElementText,
  idText,
  isPositionalPart,
  notViable,
  ownField,
  type Lookup,
  type Path,
} from './document-writer';
import { sameBson } from './same-bson';

const hasOwn = Object.prototype.hasOwnProperty;

/** What applying an update needs besides the document. */
export interface UpdateContext {
  /** The time $currentDate writes. */
  now: Date;
  /** The document is being created by an upsert: $setOnInsert applies. */
  isInsert: boolean;
  /**
   * The array position the query matched, for the positional `$` (mongod's elemMatchKey); absent
   * when the query did not match through an array, and for an upsert's new document.
   */
  matchedField?: string;
}

export interface UpdateResult {
  doc: Document;
  changed: boolean;
}

// ---------------------------------------------------------------------------------------------
// Parsed operations
// ---------------------------------------------------------------------------------------------

export type ArrayTest = (element: unknown) => boolean;

export type Op =
  | { kind: 'set'; value: unknown; onInsertOnly: boolean }
  | { kind: 'unset' }
  | { kind: 'arith'; name: '$inc' | '$mul'; operand: unknown }
  | { kind: 'compare'; name: '$min' | '$max'; value: unknown }
  | { kind: 'rename'; from: Path }
  | { kind: 'push'; each: unknown[]; position?: number; slice?: number; sort?: (a: unknown, b: unknown) => number }
  | { kind: 'addToSet'; each: unknown[] }
  | { kind: 'pull'; test: ArrayTest }
  | { kind: 'pop'; fromFront: boolean }
  | { kind: 'currentDate'; timestamp: boolean }
  | { kind: 'bit'; ops: { op: 'and' | 'or' | 'xor'; operand: Int32 | Long }[] };

export interface CompiledOp {
  /** The path written (for $rename, the destination). */
  path: Path;
  op: Op;
}

export type OpParser = (field: string, value: unknown) => Op;

export const PARSERS: Record<string, OpParser> = {
  $set: (_f, value) => ({ kind: 'set', value, onInsertOnly: false }),
  $setOnInsert: (_f, value) => ({ kind: 'set', value, onInsertOnly: true }),
  $unset: () => ({ kind: 'unset' }),
  $inc: (field, value) => parseArith('$inc', field, value),
  $mul: (field, value) => parseArith('$mul', field, value),
  $min: (_f, value) => ({ kind: 'compare', name: '$min', value }),
  $max: (_f, value) => ({ kind: 'compare', name: '$max', value }),
  $push: parsePush,
  $addToSet: parseAddToSet,
  $pull: (_f, value) => ({ kind: 'pull', test: pullTest(value) }),
  $pullAll: parsePullAll,
  $pop: parsePop,
  $currentDate: parseCurrentDate,
  $bit: parseBit,
  // $rename is handled by the update tree: it has two paths.
};

function parseArith(name: '$inc' | '$mul', field: string, operand: unknown): Op {
  if (!isNumeric(operand)) {
    const verb = name === '$inc' ? 'increment' : 'multiply';
    throw new EngineError(
      ErrorCode.TypeMismatch,
      `Cannot ${verb} with non-numeric argument: {${field}: ${formatValue(operand)}}`,
    );
  }
  return { kind: 'arith', name, operand };
}

/**
 * Checks a {$rename: {from: to}} pair as mongod's RenameNode does when parsing (after both paths
 * passed the path checks): a string target, different and unrelated paths, no positional parts.
 */
export function checkRenameSpec(field: string, to: unknown): asserts to is string {
  if (typeof to !== 'string') {
    throw new EngineError(
      ErrorCode.BadValue,
      `The 'to' field for $rename must be a string: ${field}: ${formatValue(to)}`,
    );
  }
  if (to.includes('\0')) {
    throw new EngineError(ErrorCode.BadValue, "The 'to' field for $rename cannot contain an embedded null byte");
  }
}

/** The checks RenameNode makes once both paths are known to be well-formed. */
export function checkRenamePaths(field: string, to: string): void {
  if (field === to) {
    throw new EngineError(
      ErrorCode.BadValue,
      `The source and target field for $rename must differ: ${field}: ${formatValue(to)}`,
    );
  }
  if (to.startsWith(`${field}.`) || field.startsWith(`${to}.`)) {
    throw new EngineError(
      ErrorCode.BadValue,
      `The source and target field for $rename must not be on the same path: ${field}: ${formatValue(to)}`,
    );
  }
  if (isDynamic(field))
    throw new EngineError(ErrorCode.BadValue, `The source field for $rename may not be dynamic: ${field}`);
  if (isDynamic(to))
    throw new EngineError(ErrorCode.BadValue, `The destination field for $rename may not be dynamic: ${to}`);
}

function isDynamic(path: string): boolean {
  return path.split('.').some(isPositionalPart);
}

/** An integral number from a $push/$pop style argument, or undefined. */
function integralValue(value: unknown): number | undefined {
  if (!isNumeric(value)) return undefined;
  const n = toDouble(value);
  return Number.isInteger(n) ? n : undefined;
}

function parsePush(_field: string, value: unknown): Op {
  if (!isPlainObject(value) || !hasOwn.call(value, '$each')) {
    return { kind: 'push', each: [value] };
  }
  const each = value.$each;
  if (!Array.isArray(each)) {
    throw new EngineError(
      ErrorCode.BadValue,
      `The argument to $each in $push must be an array but it was of type: ${bsonTypeOf(each)}`,
    );
  }
  const op: Extract<Op, { kind: 'push' }> = { kind: 'push', each };
  for (const clause of Object.keys(value)) {
    const arg = value[clause];
    switch (clause) {
      case '$each':
        break;
      case '$slice': {
        const n = integralValue(arg);
        if (n === undefined) {
          throw new EngineError(
            ErrorCode.BadValue,
            `The value for $slice must be an integral value but was given type: ${bsonTypeOf(arg)}${isNumeric(arg) ? ` (${formatValue(arg)})` : ''}`,
          );
        }
        op.slice = n;
        break;
      }
      case '$position': {
        const n = integralValue(arg);
        if (n === undefined) {
          throw new EngineError(
            ErrorCode.BadValue,
            `The value for $position must be an integer value, not of type: ${bsonTypeOf(arg)}${isNumeric(arg) ? ` (${formatValue(arg)})` : ''}`,
          );
        }
        op.position = n;
        break;
      }
      case '$sort':
        op.sort = parsePushSort(arg);
        break;
      default:
        throw new EngineError(ErrorCode.BadValue, `Unrecognized clause in $push: ${clause}`);
    }
  }
  return op;
}

const BAD_PUSH_SORT =
  'The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields';

function sortDirection(value: unknown): 1 | -1 | undefined {
  if (!isNumeric(value)) return undefined;
  const n = toDouble(value);
  return n === 1 ? 1 : n === -1 ? -1 : undefined;
}

/** $push's $sort: 1/-1 orders whole elements; {field: 1/-1, ...} orders documents by fields. */
function parsePushSort(spec: unknown): (a: unknown, b: unknown) => number {
  if (!isPlainObject(spec)) {
    const dir = sortDirection(spec);
    if (dir === undefined) throw new EngineError(ErrorCode.BadValue, BAD_PUSH_SORT);
    return (a, b) => dir * compareValues(a, b);
  }
  const fields = Object.keys(spec);
  if (fields.length === 0)
    throw new EngineError(ErrorCode.BadValue, 'The $sort pattern is empty when it should be a set of fields.');
  const keys = fields.map((field) => {
    const parts = field.split('.');
    if (parts.some((p) => p === '')) {
      throw new EngineError(ErrorCode.BadValue, `The $sort field is a dotted field but has an empty part: ${field}`);
    }
    const dir = sortDirection(spec[field]);
    if (dir === undefined) throw new EngineError(ErrorCode.BadValue, 'The $sort element value must be either 1 or -1');
    return { parts, dir };
  });
  return (a, b) => {
    for (const { parts, dir } of keys) {
      const c = compareValues(dottedField(a, parts), dottedField(b, parts));
      // Stryker disable next-line ArithmeticOperator: c is non-zero here, so dir / c has the sign of dir * c, all sort reads
      if (c !== 0) return dir * c;
    }
    return 0;
  };
}

/**
 * A field of an element for $push's $sort (BSONObj::getFieldDotted: numeric names index arrays, no
 * fan-out); missing and non-documents give null.
 */
function dottedField(value: unknown, parts: string[]): unknown {
  let cur = value;
  for (const part of parts) {
    if (isPlainObject(cur)) cur = ownField(cur, part);
    else if (Array.isArray(cur) && DIGITS.test(part)) cur = cur[Number(part)];
    else return null;
    if (cur === undefined) return null;
  }
  return cur;
}

function parseAddToSet(_field: string, value: unknown): Op {
  if (!isPlainObject(value)) return { kind: 'addToSet', each: [value] };
  const keys = Object.keys(value);
  if (keys[0] !== '$each') return { kind: 'addToSet', each: [value] };
  const each = value.$each;
  if (!Array.isArray(each)) {
    throw new EngineError(
      ErrorCode.TypeMismatch,
      `The argument to $each in $addToSet must be an array but it was of type ${bsonTypeOf(each)}`,
    );
  }
  if (keys.length > 1) {
    throw new EngineError(
      ErrorCode.BadValue,
      `Found unexpected fields after $each in $addToSet: ${formatValue(value)}`,
    );
  }
  return { kind: 'addToSet', each };
}

function parsePullAll(_field: string, value: unknown): Op {
  if (!Array.isArray(value)) {
    throw new EngineError(
      ErrorCode.BadValue,
      `$pullAll requires an array argument but was given a ${bsonTypeOf(value)}`,
    );
  }
  const values = value;
  return { kind: 'pull', test: (el) => values.some((v) => valuesEqual(el, v)) };
}

// Top-level-only query operators: a $pull condition starting with one of these is a query on the
// element as a document, not a condition on the element's value.
const DOCUMENT_LEVEL_OPERATORS = new Set([
  '$and',
  '$or',
  '$nor',
  '$expr',
  '$where',
  '$text',
  '$comment',
  '$jsonSchema',
  '$alwaysTrue',
  '$alwaysFalse',
]);

/**
 * How $pull decides which elements to remove (mongod's three matchers):
 * - {$gte: 5}, {$in: [...]}, a regex: a condition on each element's value, matched as if the
 *   element were the value of a field;
 * - any other document ({x: 1}, {x: {$gt: 1}}, {$or: [...]}): a query on elements that are
 *   documents (other elements never match);
 * - anything else: equality.
 */
export function pullTest(value: unknown): ArrayTest {
  const type = bsonTypeOf(value);
  if (isPlainObject(value)) {
    const first = Object.keys(value)[0];
    if (first !== undefined && first.startsWith('$') && !DOCUMENT_LEVEL_OPERATORS.has(first)) {
      const pred = compileFilter({ v: value });
      return (el) => pred({ v: el });
    }
    const pred = compileFilter(value);
    return (el) => isPlainObject(el) && pred(el);
  }
  if (type === 'regex') {
    const pred = compileFilter({ v: value });
    return (el) => pred({ v: el });
  }
  return (el) => valuesEqual(el, value);
}

function parsePop(field: string, value: unknown): Op {
  if (!isNumeric(value)) {
    throw new EngineError(ErrorCode.FailedToParse, `Expected a number in: ${field}: ${formatValue(value)}`);
  }
  const n = toDouble(value);
  if (n !== 1 && n !== -1) {
    throw new EngineError(ErrorCode.FailedToParse, `$pop expects 1 or -1, found: ${formatValue(value)}`);
  }
  return { kind: 'pop', fromFront: n === -1 };
}

function parseCurrentDate(field: string, value: unknown): Op {
  if (typeof value === 'boolean') return { kind: 'currentDate', timestamp: false };
  if (!isPlainObject(value)) {
    throw new EngineError(
      ErrorCode.BadValue,
      `${field}: ${formatValue(value)} is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).`,
    );
  }
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== '$type') {
    throw new EngineError(
      ErrorCode.BadValue,
      `The only valid field of the option is '$type': {$type: 'date/timestamp'}. ${field}: ${formatValue(value)}`,
    );
  }
  if (value.$type !== 'date' && value.$type !== 'timestamp') {
    throw new EngineError(
      ErrorCode.BadValue,
      "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}",
    );
  }
  return { kind: 'currentDate', timestamp: value.$type === 'timestamp' };
}

function parseBit(_field: string, value: unknown): Op {
  if (!isPlainObject(value)) {
    throw new EngineError(
      ErrorCode.BadValue,
      `The $bit modifier is not compatible with a ${bsonTypeOf(value)}. You must pass in an embedded document: {$bit: {field: {and/or/xor: #}}`,
    );
  }
  if (Object.keys(value).length === 0) {
    throw new EngineError(
      ErrorCode.BadValue,
      'You must pass in at least one bitwise operation. The format is: {$bit: {field: {and/or/xor: #}}',
    );
  }
  const ops: Extract<Op, { kind: 'bit' }>['ops'] = [];
  for (const key of Object.keys(value)) {
    if (key !== 'and' && key !== 'or' && key !== 'xor') {
      throw new EngineError(
        ErrorCode.BadValue,
        `The $bit modifier only supports 'and', 'or', and 'xor', not '${key}' which is an unknown operator: {${key}: ${formatValue(value[key])}}`,
      );
    }
    const operand = value[key];
    const kind = numericKind(operand);
    if (kind !== 'int' && kind !== 'long') {
      throw new EngineError(
        ErrorCode.BadValue,
        `The $bit modifier field must be an Integer(32/64 bit); a '${bsonTypeOf(operand)}' is not supported here: {${key}: ${formatValue(operand)}}`,
      );
    }
    ops.push({ op: key, operand: operand as Int32 | Long });
  }
  return { kind: 'bit', ops };
}

// ---------------------------------------------------------------------------------------------
// Applying
// ---------------------------------------------------------------------------------------------

export function runOps(ops: CompiledOp[], doc: Document, ctx: UpdateContext): UpdateResult {
  const w = new DocWriter(doc);
  let changed = false;
  for (const c of ops) {
    if (applyOp(w, c, ctx)) changed = true;
  }
  return { doc: changed ? w.root : doc, changed };
}

/** mongod refuses any real modification of a path overlapping `_id` once the document has one. */
function guardId(w: DocWriter, path: Path): void {
  if (path.parts[0] === '_id' && hasOwn.call(w.original, '_id')) {
    throw new EngineError(
      ErrorCode.ImmutableField,
      `Performing an update on the path '${path.dotted}' would modify the immutable field '_id'`,
    );
  }
}

/** Write `value` at `path` unless it is binary-identical to what is there; returns whether it wrote. */
function commit(w: DocWriter, path: Path, lookup: Lookup, value: unknown): boolean {
  if (lookup.kind === 'found' && sameBson(lookup.value, value)) return false;
  guardId(w, path);
  w.write(path, value);
  return true;
}

export function applyOp(w: DocWriter, c: CompiledOp, ctx: UpdateContext): boolean {
  const { path, op } = c;
  if (op.kind === 'rename') return applyRename(w, op.from, path);
  const lookup = w.read(path);
  switch (op.kind) {
    case 'set':
      if (op.onInsertOnly && !ctx.isInsert) return false;
      if (lookup.kind === 'blocked') throw notViable(path, lookup);
      return commit(w, path, lookup, cloneValue(op.value));
    case 'unset':
      if (lookup.kind !== 'found') return false;
      guardId(w, path);
      w.remove(path);
      return true;
    case 'arith':
      return applyArith(w, path, lookup, op.name, op.operand);
    case 'compare': {
      if (lookup.kind === 'blocked') throw notViable(path, lookup);
      if (lookup.kind === 'found') {
        const cmp = compareValues(lookup.value, op.value);
        if (cmp === 0 || (op.name === '$min' ? cmp < 0 : cmp > 0)) return false;
      }
      return commit(w, path, lookup, cloneValue(op.value));
    }
    case 'currentDate': {
      if (lookup.kind === 'blocked') throw notViable(path, lookup);
      return commit(w, path, lookup, op.timestamp ? nextTimestamp(ctx.now) : new Date(ctx.now.getTime()));
    }
    case 'push':
      return applyPush(w, path, lookup, op);
    case 'addToSet':
      return applyAddToSet(w, path, lookup, op.each);
    case 'pull': {
      if (lookup.kind !== 'found') return false;
      if (!Array.isArray(lookup.value))
        throw new EngineError(ErrorCode.BadValue, 'Cannot apply $pull to a non-array value');
      const kept = lookup.value.filter((el) => !op.test(el));
      if (kept.length === lookup.value.length) return false;
      guardId(w, path);
      w.write(path, kept);
      return true;
    }
    case 'pop': {
      // Unlike $pull or $unset, mongod's $pop refuses a path blocked by a scalar or an array.
      if (lookup.kind === 'blocked') throw notViable(path, lookup);
      if (lookup.kind !== 'found') return false;
      if (!Array.isArray(lookup.value)) {
        throw new EngineError(
          ErrorCode.TypeMismatch,
          `Path '${path.dotted}' contains an element of non-array type '${bsonTypeOf(lookup.value)}'`,
        );
      }
      if (lookup.value.length === 0) return false;
      guardId(w, path);
      w.write(path, op.fromFront ? lookup.value.slice(1) : lookup.value.slice(0, -1));
      return true;
    }
    case 'bit':
      return applyBit(w, path, lookup, op.ops);
  }
}

function lastName(path: Path): string {
  return path.parts[path.parts.length - 1];
}

function applyArith(w: DocWriter, path: Path, lookup: Lookup, name: '$inc' | '$mul', operand: unknown): boolean {
  if (lookup.kind === 'blocked') throw notViable(path, lookup);
  if (lookup.kind === 'missing') {
    // $mul on a missing field stores 0 of the multiplier's type (operand × 0, as mongod computes it).
    const value = name === '$inc' ? cloneValue(operand) : multiplyNumbers(operand, new Int32(0));
    return commit(w, path, lookup, value);
  }
  const current = lookup.value;
  if (!isNumeric(current)) {
    throw new EngineError(
      ErrorCode.TypeMismatch,
      `Cannot apply ${name} to a value of non-numeric type. ${idText(w.original)} has the field '${lastName(path)}' of non-numeric type ${bsonTypeOf(current)}`,
    );
  }
  const result = name === '$inc' ? addNumbers(current, operand) : multiplyNumbers(current, operand);
  // Integer arithmetic that overflows a long is an error in updates (numbers.ts falls back to a
  // double, which is right for $sum but not here).
  const kinds = [numericKind(current), numericKind(operand)];
  if (typeof result === 'number' && kinds.every((k) => k === 'int' || k === 'long')) {
    throw new EngineError(
      ErrorCode.BadValue,
      `Failed to apply ${name} operations to current value (${debugNumber(current)}) for document ${idText(w.original)}`,
    );
  }
  return commit(w, path, lookup, result);
}

/**
 * The current value as mongod's overflow message shows it. Only integer arithmetic overflows (a
 * double or decimal on either side makes the result a double or a decimal), so it is an int or a long.
 */
function debugNumber(value: unknown): string {
  return `(${numericKind(value) === 'int' ? 'NumberInt' : 'NumberLong'})${formatValue(value)}`;
}

function applyBit(w: DocWriter, path: Path, lookup: Lookup, ops: Extract<Op, { kind: 'bit' }>['ops']): boolean {
  if (lookup.kind === 'blocked') throw notViable(path, lookup);
  let current: unknown = new Int32(0);
  if (lookup.kind === 'found') {
    const kind = numericKind(lookup.value);
    if (kind !== 'int' && kind !== 'long') {
      throw new EngineError(
        ErrorCode.BadValue,
        `Cannot apply $bit to a value of non-integral type.${idElementText(w.original)} has the field ${lastName(path)} of non-integer type ${bsonTypeOf(lookup.value)}`,
      );
    }
    current = lookup.value;
  }
  let isLong = numericKind(current) === 'long';
  let bits = toBigInt(current);
  for (const { op, operand } of ops) {
    const x = toBigInt(operand);
    if (numericKind(operand) === 'long') isLong = true;
    bits = op === 'and' ? bits & x : op === 'or' ? bits | x : bits ^ x;
  }
  const result = isLong ? Long.fromBigInt(BigInt.asIntN(64, bits)) : new Int32(Number(BigInt.asIntN(32, bits)));
  return commit(w, path, lookup, result);
}

function toBigInt(value: unknown): bigint {
  return numericKind(value) === 'long' ? (value as Long).toBigInt() : BigInt((value as Int32).value);
}

function applyPush(w: DocWriter, path: Path, lookup: Lookup, op: Extract<Op, { kind: 'push' }>): boolean {
  if (lookup.kind === 'blocked') throw notViable(path, lookup);
  let arr: unknown[];
  if (lookup.kind === 'found') {
    if (!Array.isArray(lookup.value)) {
      throw new EngineError(
        ErrorCode.BadValue,
        `The field '${lastName(path)}' must be an array but is of type ${bsonTypeOf(lookup.value)} in document ${idText(w.original)}`,
      );
    }
    arr = lookup.value.slice();
  } else {
    arr = [];
  }
  const items = op.each.map((v) => cloneValue(v));
  let at = arr.length;
  if (op.position !== undefined) {
    at = op.position >= 0 ? Math.min(op.position, arr.length) : Math.max(0, arr.length + op.position);
  }
  arr.splice(at, 0, ...items);
  if (op.sort) arr.sort(op.sort);
  if (op.slice !== undefined) {
    arr = op.slice >= 0 ? arr.slice(0, op.slice) : arr.slice(Math.max(0, arr.length + op.slice));
  }
  return commit(w, path, lookup, arr);
}

function applyAddToSet(w: DocWriter, path: Path, lookup: Lookup, each: unknown[]): boolean {
  if (lookup.kind === 'blocked') throw notViable(path, lookup);
  if (lookup.kind === 'found' && !Array.isArray(lookup.value)) {
    throw new EngineError(
      ErrorCode.BadValue,
      `Cannot apply $addToSet to non-array field. Field named '${lastName(path)}' has non-array type ${bsonTypeOf(lookup.value)}`,
    );
  }
  const current = lookup.kind === 'found' ? (lookup.value as unknown[]) : [];
  const arr = current.slice();
  for (const v of each) {
    if (!arr.some((el) => valuesEqual(el, v))) arr.push(cloneValue(v));
  }
  if (lookup.kind === 'found' && arr.length === current.length) return false;
  guardId(w, path);
  w.write(path, arr);
  return true;
}

/** Prefix of `path` that is an array in the document, if any (rename refuses those). */
function arrayOnPath(w: DocWriter, path: Path, upTo: number): string | undefined {
  let cur: unknown = w.root;
  for (let i = 0; i < upTo; i++) {
    if (!isPlainObject(cur)) return undefined;
    cur = ownField(cur, path.parts[i]);
    if (Array.isArray(cur)) return path.parts[i];
  }
  return undefined;
}

function applyRename(w: DocWriter, from: Path, to: Path): boolean {
  const source = w.read(from);
  // A source path through a scalar or an array is an error, not a no-op (mongod's RenameNode
  // keeps the rule most updates follow); a missing source is a no-op.
  if (source.kind === 'blocked') throw notViable(from, source);
  if (source.kind !== 'found') return false;
  const sourceArray = arrayOnPath(w, from, from.parts.length - 1);
  if (sourceArray !== undefined) {
    throw new EngineError(
      ErrorCode.BadValue,
      `The source field cannot be an array element, '${from.dotted}' in doc with ${idElementText(w.original)} has an array field called '${sourceArray}'`,
    );
  }
  const targetArray = arrayOnPath(w, to, to.parts.length - 1);
  if (targetArray !== undefined) {
    throw new EngineError(
      ErrorCode.BadValue,
      `The destination field cannot be an array element, '${to.dotted}' in doc with ${idElementText(w.original)} has an array field called '${targetArray}'`,
    );
  }
  const target = w.read(to);
  if (target.kind === 'blocked') throw notViable(to, target);
  guardId(w, from);
  guardId(w, to);
  w.remove(from);
  w.write(to, source.value);
  return true;
}

// mongod stamps $currentDate timestamps from its logical clock: seconds plus an increment that
// keeps values written within one second distinct and ordered.
let lastStampSeconds = 0;
let lastStampIncrement = 0;

export function nextTimestamp(now: Date): Timestamp {
  const seconds = Math.floor(now.getTime() / 1000);
  if (seconds > lastStampSeconds) {
    lastStampSeconds = seconds;
    lastStampIncrement = 1;
  } else {
    lastStampIncrement++;
  }
  return new Timestamp({ t: lastStampSeconds, i: lastStampIncrement });
}
