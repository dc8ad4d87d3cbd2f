/**
 * Update documents: operator updates ($set, $inc, $push, ...), whole-document replacements and the
 * seed document an upsert starts from.
 *
 * An operator update is parsed once (compileUpdate; applyUpdate caches the compiled form per update
 * object, so updateMany over many documents parses once) into one operation per field path. Like
 * mongod's UpdateObjectNode, parsing rejects unknown modifiers and paths that overlap between
 * operations, and the operations are applied in field-name order, which is why new fields appear in
 * lexicographic order whatever order the update listed them in.
 *
 * Applying never mutates the input: containers on a written path are copied the first time they are
 * written (copy-on-write), untouched subtrees are shared with the input, and every value taken from
 * the update is cloned. `changed` is false when every operation was a no-op in mongod's sense (the
 * new value is binary-identical to the old one: same type, same bytes), which is what nModified
 * counts.
 */
import { Int32, Long, Timestamp, type Decimal128 } from 'bson';
import { EngineError, ErrorCode } from '../errors';
import { cloneValue } from '../values/clone';
import { compareStrings, compareValues, valuesEqual } from '../values/compare';
import { formatValue } from '../values/format';
import { addNumbers, multiplyNumbers, numericKind, toDouble } from '../values/numbers';
import { bsonClassOf, bsonTypeOf, isNumeric, isPlainObject, type Document } from '../values/types';
import { compileFilter } from './matcher';

export interface UpdateContext {
  /** The time $currentDate writes. */
  now: Date;
  /** The document is being created by an upsert: $setOnInsert applies. */
  isInsert: boolean;
}

export interface UpdateResult {
  doc: Document;
  changed: boolean;
}

/** A parsed operator update, reusable across documents. */
export interface CompiledUpdate {
  apply(doc: Document, ctx: UpdateContext): UpdateResult;
}

const hasOwn = Object.prototype.hasOwnProperty;

// mongod's pathsupport::kMaxPaddingAllowed and the CannotBackfillArray code.
const MAX_PADDING = 1_500_000;
const CANNOT_BACKFILL_ARRAY = 34;
const EMPTY_FIELD_NAME = 56;

// ---------------------------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------------------------

/**
 * Whether `update` is an operator update ({$set: ...}) rather than a replacement document. mongod
 * decides by the first field; a mix is an error either way: a non-`$` field after operators is an
 * unknown modifier (9), a `$` field in a replacement is not storable (52).
 */
export function isOperatorUpdate(update: Document): boolean {
  const keys = Object.keys(update);
  if (keys.length === 0 || !keys[0].startsWith('$')) {
    checkReplacementFields(update);
    return false;
  }
  for (const key of keys) {
    if (!key.startsWith('$')) throw unknownModifier(key);
  }
  return true;
}

/** Apply an operator update to `doc` (not mutated). The parsed update is cached per update object. */
export function applyUpdate(doc: Document, update: Document, ctx: UpdateContext): UpdateResult {
  let compiled = compiledCache.get(update);
  if (!compiled) {
    compiled = compileUpdate(update);
    compiledCache.set(update, compiled);
  }
  return compiled.apply(doc, ctx);
}

/**
 * Parse an operator update, throwing what mongod answers for a malformed one. Call it before
 * matching documents when the error must surface even if nothing matches.
 */
export function compileUpdate(update: Document): CompiledUpdate {
  const ops = parseUpdate(update);
  return { apply: (doc, ctx) => runOps(ops, doc, ctx) };
}

/**
 * Replace `doc` with `replacement`, keeping `_id` (first). A replacement may repeat the `_id` but
 * not change its value (66); top-level `$` fields are refused as mongod does (52).
 */
export function applyReplacement(doc: Document, replacement: Document): Document {
  checkReplacementFields(replacement);
  const out: Document = {};
  const hasOldId = hasOwn.call(doc, '_id') && doc._id !== undefined;
  const hasNewId = hasOwn.call(replacement, '_id') && replacement._id !== undefined;
  if (hasOldId && hasNewId && compareValues(doc._id, replacement._id) !== 0) {
    throw new EngineError(
      ErrorCode.ImmutableField,
      `After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatValue(replacement._id)}`,
    );
  }
  if (hasOldId) out._id = doc._id;
  else if (hasNewId) out._id = cloneValue(replacement._id);
  for (const key of Object.keys(replacement)) {
    if (key === '_id') continue;
    setOwn(out, key, cloneValue(replacement[key]));
  }
  return out;
}

/**
 * The document an upsert starts from: the equality conditions of the filter (`a: v`, `a: {$eq: v}`,
 * single-value `$in`, and those inside top-level `$and` or a one-clause `$or`), dotted paths
 * expanded into embedded documents, `_id` first. Two conditions on the same or overlapping paths
 * are refused with NotSingleValueField (54), as mongod does.
 */
export function upsertSeed(filter: Document): Document {
  const equalities: { path: string; parts: string[]; value: unknown }[] = [];
  collectEqualities(filter, equalities);
  checkSeedPaths(equalities);
  // Created in path order, like fields an update creates; _id goes first as in every stored document.
  equalities.sort((a, b) => comparePaths(a.parts, b.parts));
  const seed: Document = {};
  const id = equalities.find((e) => e.path === '_id');
  if (id) seed._id = cloneValue(id.value);
  for (const eq of equalities) {
    if (eq === id) continue;
    let cur = seed;
    for (let i = 0; i < eq.parts.length - 1; i++) {
      let next = hasOwn.call(cur, eq.parts[i]) ? cur[eq.parts[i]] : undefined;
      if (!isPlainObject(next)) {
        next = {};
        setOwn(cur, eq.parts[i], next);
      }
      cur = next as Document;
    }
    setOwn(cur, eq.parts[eq.parts.length - 1], cloneValue(eq.value));
  }
  return seed;
}

// ---------------------------------------------------------------------------------------------
// Shared helpers: errors, paths, binary equality
// ---------------------------------------------------------------------------------------------

const compiledCache = new WeakMap<Document, CompiledUpdate>();

function unknownModifier(name: string): EngineError {
  return new EngineError(
    ErrorCode.FailedToParse,
    `Unknown modifier: ${name}. Expected a valid update modifier or pipeline-style update specified as an array`,
  );
}

function checkReplacementFields(replacement: Document): void {
  for (const key of Object.keys(replacement)) {
    if (key.startsWith('$')) {
      throw new EngineError(
        ErrorCode.DollarPrefixedFieldName,
        `The dollar ($) prefixed field '${key}' in '${key}' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`,
      );
    }
  }
}

/** Assign an own property even for the key "__proto__" (plain assignment would set the prototype). */
function setOwn(obj: Document, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

function ownField(obj: Document, key: string): unknown {
  return hasOwn.call(obj, key) ? obj[key] : undefined;
}

interface Path {
  dotted: string;
  parts: string[];
  /** parts[i] as an array index (digits only, as mongod's update path code reads them), else -1. */
  indexes: number[];
}

const DIGITS = /^[0-9]+$/;

function parsePath(dotted: string): Path {
  if (dotted === '') throw new EngineError(EMPTY_FIELD_NAME, 'An empty update path is not valid.');
  const parts = dotted.split('.');
  for (const part of parts) {
    if (part === '') {
      throw new EngineError(
        EMPTY_FIELD_NAME,
        `The update path '${dotted}' contains an empty field name, which is not allowed.`,
      );
    }
    if (part.startsWith('$')) {
      if (part === '$' || (part.startsWith('$[') && part.endsWith(']'))) {
        throw new EngineError(
          ErrorCode.BadValue,
          `The update path '${dotted}' uses the positional operator '${part}': positional operators ($, $[], $[<id>]) are not supported yet.`,
        );
      }
      throw new EngineError(
        ErrorCode.DollarPrefixedFieldName,
        `The dollar ($) prefixed field '${part}' in '${dotted}' is not valid for storage.`,
      );
    }
  }
  const indexes = parts.map((p) => (DIGITS.test(p) && p.length <= 15 ? Number(p) : -1));
  return { dotted, parts, indexes };
}

/** Field-name order of mongod's update tree: component by component, as UTF-8 bytes. */
function comparePaths(a: string[], b: string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareStrings(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

interface TrieNode {
  children: Map<string, TrieNode>;
  terminal: boolean;
}

/** The paths an update touches; detects one path being a prefix of (or equal to) another. */
class PathTrie {
  private readonly root: TrieNode = { children: new Map(), terminal: false };

  /** Adds the path; returns where it conflicts with an earlier one (a dotted prefix of it), if it does. */
  add(parts: string[]): string | undefined {
    let node = this.root;
    for (let i = 0; i < parts.length; i++) {
      if (node.terminal) return parts.slice(0, i).join('.');
      let child = node.children.get(parts[i]);
      if (!child) {
        child = { children: new Map(), terminal: false };
        node.children.set(parts[i], child);
      }
      node = child;
    }
    if (node.terminal || node.children.size > 0) return parts.join('.');
    node.terminal = true;
    return undefined;
  }
}

/** "{_id: 1.0}" as mongod writes the document's identity into messages. */
function idText(doc: Document): string {
  return hasOwn.call(doc, '_id') ? `{_id: ${formatValue(doc._id)}}` : '{no id}';
}

function idElementText(doc: Document): string {
  return hasOwn.call(doc, '_id') ? `_id: ${formatValue(doc._id)}` : 'no id';
}

/**
 * Binary equality (mongod's binaryEqualValues): same BSON type and same bytes, so 1 vs
 * NumberInt(1), 0 vs -0 and {a, b} vs {b, a} all differ. Decides whether an operation is a no-op.
 */
export function sameBson(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b);
  if (a === b) return true;
  const ta = bsonTypeOf(a);
  if (ta !== bsonTypeOf(b)) return false;
  switch (ta) {
    case 'double':
      return Object.is(toDouble(a), toDouble(b));
    case 'int':
      return (a as Int32).value === (b as Int32).value;
    case 'long':
      return (a as Long).equals(b as Long);
    case 'decimal':
      return sameBytes((a as Decimal128).bytes, (b as Decimal128).bytes);
    case 'date':
      return Object.is((a as Date).getTime(), (b as Date).getTime());
    case 'array': {
      const x = a as unknown[];
      const y = b as unknown[];
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (!sameBson(x[i], y[i])) return false;
      return true;
    }
    case 'object': {
      if (bsonClassOf(a) !== undefined || bsonClassOf(b) !== undefined) return compareValues(a, b) === 0;
      const x = a as Document;
      const y = b as Document;
      const kx = Object.keys(x);
      const ky = Object.keys(y);
      if (kx.length !== ky.length) return false;
      for (let i = 0; i < kx.length; i++) {
        if (kx[i] !== ky[i] || !sameBson(x[kx[i]], y[ky[i]])) return false;
      }
      return true;
    }
    case 'null':
    case 'undefined':
    case 'minKey':
    case 'maxKey':
      return true;
    default:
      return compareValues(a, b) === 0;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Reading and writing a document by path (copy-on-write)
// ---------------------------------------------------------------------------------------------

type Lookup =
  | { kind: 'found'; value: unknown }
  | { kind: 'missing' }
  /** parts[at] cannot exist inside `holder` (a scalar, or an array with a non-numeric name). */
  | { kind: 'blocked'; at: number; holder: unknown };

const MISSING_LOOKUP: Lookup = { kind: 'missing' };

/** The working copy of one document during one update. */
class DocWriter {
  root: Document;
  /** Containers created or copied during this update, which may be written in place. */
  private readonly owned = new Set<object>();

  constructor(readonly original: Document) {
    this.root = original;
  }

  read(path: Path): Lookup {
    let cur: unknown = this.root;
    const { parts, indexes } = path;
    for (let i = 0; i < parts.length; i++) {
      if (Array.isArray(cur)) {
        const idx = indexes[i];
        if (idx < 0) return { kind: 'blocked', at: i, holder: cur };
        if (idx >= cur.length) return MISSING_LOOKUP;
        cur = cur[idx];
      } else if (isPlainObject(cur)) {
        const next = ownField(cur, parts[i]);
        if (next === undefined) return MISSING_LOOKUP;
        cur = next;
      } else {
        return { kind: 'blocked', at: i, holder: cur };
      }
    }
    return { kind: 'found', value: cur };
  }

  /** Set the value at `path`, creating embedded documents and padding arrays with null on the way. */
  write(path: Path, value: unknown): void {
    const { parts, indexes } = path;
    let cur: Document | unknown[] = this.ownRoot();
    const last = parts.length - 1;
    for (let i = 0; i < last; i++) {
      cur = this.ownChild(cur, parts[i], indexes[i]);
    }
    if (Array.isArray(cur)) {
      padArray(cur, indexes[last]);
      cur[indexes[last]] = value;
    } else {
      setOwn(cur, parts[last], value);
    }
  }

  /** Remove the value at an existing path; an array element becomes null, as mongod's $unset does. */
  remove(path: Path): void {
    const { parts, indexes } = path;
    let cur: Document | unknown[] = this.ownRoot();
    const last = parts.length - 1;
    for (let i = 0; i < last; i++) cur = this.ownChild(cur, parts[i], indexes[i]);
    if (Array.isArray(cur)) cur[indexes[last]] = null;
    else delete cur[parts[last]];
  }

  private ownRoot(): Document {
    if (!this.owned.has(this.root)) {
      this.root = copyContainer(this.root) as Document;
      this.owned.add(this.root);
    }
    return this.root;
  }

  /** The child container at `part`, copied if still shared with the input, created if absent. */
  private ownChild(parent: Document | unknown[], part: string, index: number): Document | unknown[] {
    let child: unknown;
    if (Array.isArray(parent)) {
      padArray(parent, index);
      child = parent[index];
    } else {
      child = ownField(parent, part);
    }
    if (Array.isArray(child) || isPlainObject(child)) {
      if (this.owned.has(child)) return child;
      const copy = copyContainer(child);
      this.owned.add(copy);
      attach(parent, part, index, copy);
      return copy;
    }
    // Absent (or a null array slot being filled): create an embedded document.
    const created: Document = {};
    this.owned.add(created);
    attach(parent, part, index, created);
    return created;
  }
}

function copyContainer(c: Document | unknown[]): Document | unknown[] {
  // Spread defines own properties, so even a "__proto__" field is copied as data.
  return Array.isArray(c) ? c.slice() : { ...c };
}

function attach(parent: Document | unknown[], part: string, index: number, child: unknown): void {
  if (Array.isArray(parent)) parent[index] = child;
  else setOwn(parent, part, child);
}

/** Make `arr[index]` addressable by appending nulls (mongod caps the padding at 1,500,000). */
function padArray(arr: unknown[], index: number): void {
  if (index < arr.length) return;
  if (index + 1 - arr.length > MAX_PADDING) {
    throw new EngineError(CANNOT_BACKFILL_ARRAY, `can't backfill more than ${MAX_PADDING} elements`);
  }
  while (arr.length < index) arr.push(null);
}

function notViable(path: Path, lookup: { at: number; holder: unknown }): EngineError {
  const holderName = path.parts[lookup.at - 1];
  return new EngineError(
    ErrorCode.PathNotViable,
    `Cannot create field '${path.parts[lookup.at]}' in element {${holderName}: ${formatValue(lookup.holder)}}`,
  );
}

// ---------------------------------------------------------------------------------------------
// Parsed operations
// ---------------------------------------------------------------------------------------------

type ArrayTest = (element: unknown) => boolean;

type Op =
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

interface CompiledOp {
  /** The path written (for $rename, the destination). */
  path: Path;
  op: Op;
}

type OpParser = (field: string, value: unknown) => Op;

const PARSERS: Record<string, OpParser> = {
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
  // $rename is handled by parseUpdate: it has two paths.
};

function parseUpdate(update: Document): CompiledOp[] {
  const ops: CompiledOp[] = [];
  const trie = new PathTrie();
  const register = (path: Path): void => {
    const clash = trie.add(path.parts);
    if (clash !== undefined) {
      throw new EngineError(
        ErrorCode.ConflictingUpdateOperators,
        `Updating the path '${path.dotted}' would create a conflict at '${clash}'`,
      );
    }
  };
  for (const name of Object.keys(update)) {
    const args = update[name];
    if (!name.startsWith('$') || (name !== '$rename' && !hasOwn.call(PARSERS, name))) throw unknownModifier(name);
    if (!isPlainObject(args)) {
      throw new EngineError(
        ErrorCode.FailedToParse,
        `Modifiers operate on fields but we found type ${bsonTypeOf(args)} instead. For example: {$mod: {<field>: ...}} not {${name}: ${formatValue(args)}}`,
      );
    }
    // An empty operator ({$set: {}}) is a no-op since MongoDB 5.0.
    for (const field of Object.keys(args)) {
      const value = args[field];
      if (name === '$rename') {
        const { from, to } = parseRename(field, value);
        register(from);
        register(to);
        ops.push({ path: to, op: { kind: 'rename', from } });
        continue;
      }
      const path = parsePath(field);
      const op = PARSERS[name](field, value);
      register(path);
      ops.push({ path, op });
    }
  }
  ops.sort((a, b) => comparePaths(a.path.parts, b.path.parts));
  return ops;
}

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

function parseRename(field: string, to: unknown): { from: Path; to: Path } {
  if (typeof to !== 'string') {
    throw new EngineError(
      ErrorCode.BadValue,
      `The 'to' field for $rename must be a string: ${field}: ${formatValue(to)}`,
    );
  }
  if (isDynamic(field))
    throw new EngineError(ErrorCode.BadValue, `The source field for $rename may not be dynamic: ${field}`);
  if (isDynamic(to))
    throw new EngineError(ErrorCode.BadValue, `The destination field for $rename may not be dynamic: ${to}`);
  const fromPath = parsePath(field);
  const toPath = parsePath(to);
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
  return { from: fromPath, to: toPath };
}

function isDynamic(path: string): boolean {
  return path.split('.').some((p) => p === '$' || (p.startsWith('$[') && p.endsWith(']')));
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
function pullTest(value: unknown): ArrayTest {
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

function runOps(ops: CompiledOp[], doc: Document, ctx: UpdateContext): UpdateResult {
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

function applyOp(w: DocWriter, c: CompiledOp, ctx: UpdateContext): boolean {
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

function debugNumber(value: unknown): string {
  switch (numericKind(value)) {
    case 'int':
      return `(NumberInt)${formatValue(value)}`;
    case 'long':
      return `(NumberLong)${formatValue(value)}`;
    case 'decimal':
      return `(NumberDecimal)${(value as Decimal128).toString()}`;
    default:
      return `(NumberDouble)${formatValue(value)}`;
  }
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

function nextTimestamp(now: Date): Timestamp {
  const seconds = Math.floor(now.getTime() / 1000);
  if (seconds > lastStampSeconds) {
    lastStampSeconds = seconds;
    lastStampIncrement = 1;
  } else {
    lastStampIncrement++;
  }
  return new Timestamp({ t: lastStampSeconds, i: lastStampIncrement });
}

// ---------------------------------------------------------------------------------------------
// Upsert seed
// ---------------------------------------------------------------------------------------------

const NO_EQUALITY = Symbol('no equality');

/** Two equalities on one path, or on a path and its prefix, leave the seed ambiguous (54). */
function checkSeedPaths(equalities: { path: string }[]): void {
  for (let i = 0; i < equalities.length; i++) {
    for (let j = i + 1; j < equalities.length; j++) {
      const a = equalities[i].path;
      const b = equalities[j].path;
      if (a === b) {
        throw new EngineError(
          ErrorCode.NotSingleValueField,
          `cannot infer query fields to set, path '${a}' is matched twice`,
        );
      }
      const [short, long] = a.length < b.length ? [a, b] : [b, a];
      if (long.startsWith(`${short}.`)) {
        throw new EngineError(
          ErrorCode.NotSingleValueField,
          `cannot infer query fields to set, both paths '${short}' and '${long}' are matched`,
        );
      }
    }
  }
}

function collectEqualities(filter: Document, out: { path: string; parts: string[]; value: unknown }[]): void {
  for (const key of Object.keys(filter)) {
    const cond = filter[key];
    if (key === '$and') {
      if (Array.isArray(cond)) for (const clause of cond) if (isPlainObject(clause)) collectEqualities(clause, out);
      continue;
    }
    if (key === '$or') {
      // mongod simplifies a one-clause $or to its clause before extracting equalities.
      if (Array.isArray(cond) && cond.length === 1 && isPlainObject(cond[0])) collectEqualities(cond[0], out);
      continue;
    }
    if (key.startsWith('$')) continue;
    const value = equalityValue(cond);
    if (value !== NO_EQUALITY) out.push({ path: key, parts: key.split('.'), value });
  }
}

function equalityValue(cond: unknown): unknown {
  if (bsonTypeOf(cond) === 'regex') return NO_EQUALITY;
  if (!isPlainObject(cond)) return cond;
  const keys = Object.keys(cond);
  if (keys.length === 0 || !keys[0].startsWith('$')) return cond;
  if (hasOwn.call(cond, '$eq')) return cond.$eq;
  const list = cond.$in;
  if (Array.isArray(list) && list.length === 1 && bsonTypeOf(list[0]) !== 'regex') return list[0];
  return NO_EQUALITY;
}
