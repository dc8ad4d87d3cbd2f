/**
 * The query matcher: compiles a MongoDB filter document once into a predicate over documents.
 *
 * Parsing validates the whole filter up front and throws the EngineError mongod would (mostly
 * BadValue), so a bad filter fails before any document is read. The result is a tree of closures:
 * every operator becomes a predicate on one value, every field a compiled path (path-values.ts)
 * that applies it to each value the path reaches, and negations ($ne, $nin, $not, $exists: false)
 * wrap the whole path, because in MongoDB "a $ne 1" means "no value of a equals 1".
 *
 * Value semantics follow mongod's classic matcher: comparisons only hold within one canonical type
 * ("type bracketing"), except that null equals missing/undefined and MinKey/MaxKey operands order
 * against everything; numbers of all four BSON types compare exactly by value.
 */
import { Long, type Binary, type BSONRegExp } from 'bson';
import { EngineError, ErrorCode } from '../errors';
import { activeCollation } from '../collation/active';
import { compareStrings, compareValues } from '../values/compare';
import { checkFieldPathLength } from '../values/depth';
import { isBsonUndefined } from '../values/bson-undefined';
import {
  compareNumbers,
  exactDouble,
  LONG_MAX,
  LONG_MIN,
  numericKind,
  toDouble,
  truncatedBigInt,
} from '../values/numbers';
import { formatValue } from '../values/format';
import {
  BSON_TYPE_NUMBERS,
  bsonClassOf,
  bsonTypeOf,
  canonicalRank,
  isNumeric,
  isPlainObject,
  type BsonTypeName,
  type Document,
} from '../values/types';
import { compileExpression, isTruthy, type Vars } from './expressions';
import { asDocument, compilePath, compilePathPosition, MISSING, type ValuePredicate } from './path-values';
import { compileRegex, type StringTest } from './regex/compile';
import { compileJsonSchema } from '../validation/json-schema';

/** A compiled filter. Accepts arrays too, because $elemMatch runs sub-filters on array elements. */
export type DocPredicate = (doc: Document | unknown[]) => boolean;

/**
 * What one field's condition parses to before it is bound to a path. The same tree serves both
 * uses mongod has for it: matching a document through a path, and matching a single array element
 * inside $elemMatch (where no path traversal happens).
 */
type Expr =
  | {
      kind: 'leaf';
      pred: ValuePredicate;
      traverseLeafArrays: boolean;
      /** $elemMatch: the index of the first element that satisfies it (-1 if none). */
      elementIndex?: (array: unknown[]) => number;
    }
  | { kind: 'not'; child: Expr }
  | { kind: 'and'; children: Expr[] };

const TRUE: DocPredicate = () => true;
const FALSE_VALUE: ValuePredicate = () => false;

// ---------------------------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------------------------

/** Compile a filter into a predicate. Throws EngineError for filters mongod would reject. */
export function compileFilter(filter: Document, vars?: Vars): (doc: Document) => boolean {
  if (!isPlainObject(filter)) {
    throw new EngineError(ErrorCode.TypeMismatch, `query filter must be an object, but got ${bsonTypeOf(filter)}`);
  }
  // $expr clauses read the variables in scope where the filter is compiled (a pipeline's $$NOW
  // and `let` variables); compilation is synchronous, so a module-level slot is enough.
  const saved = exprVars;
  exprVars = vars;
  try {
    return compileDocument(filter);
  } finally /* Stryker disable next-line BlockStatement: compileFilter is never reentered */ {
    exprVars = saved;
  }
}

let exprVars: Vars | undefined;

/**
 * For a document the filter matches, the array position the match went through, as the positional
 * `$` of an update reads it (mongod's elemMatchKey), or undefined. The conditions of the top level
 * (and of $and, a one-clause $or) are read in order and the last one that matched through an array
 * decides; negations, $or, $nor and $expr record nothing, as in mongod.
 */
export function compileMatchedPosition(filter: Document): (doc: Document) => string | undefined {
  const finders: ((doc: Document) => number)[] = [];
  collectPositionFinders(filter, finders);
  return (doc) => {
    let found: string | undefined;
    for (const find of finders) {
      const at = find(doc);
      if (at >= 0) found = String(at);
    }
    return found;
  };
}

function collectPositionFinders(filter: Document, out: ((doc: Document) => number)[]): void {
  for (const key of Object.keys(filter)) {
    const value = filter[key];
    if (key === '$and' || (key === '$or' && Array.isArray(value) && value.length === 1)) {
      if (Array.isArray(value)) for (const c of value) if (isPlainObject(c)) collectPositionFinders(c, out);
    } else if (key.charCodeAt(0) !== 36) {
      exprPositionFinders(key, parseFieldCondition(value, key), out);
    }
  }
}

function exprPositionFinders(path: string, expr: Expr, out: ((doc: Document) => number)[]): void {
  switch (expr.kind) {
    case 'leaf':
      out.push(compilePathPosition(path, expr.pred, expr.traverseLeafArrays, expr.elementIndex));
      return;
    case 'and':
      for (const c of expr.children) exprPositionFinders(path, c, out);
      return;
    // Stryker disable next-line ConditionalExpression: the emptied case falls off the end of the switch, which ends the function as its `return` does
    case 'not':
      return;
  }
}

/** True for a filter that matches every document ({} or only a $comment). */
export function isMatchAll(filter: Document | undefined | null): boolean {
  if (filter === undefined || filter === null) return true;
  for (const key of Object.keys(filter)) if (key !== '$comment') return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Documents and top-level (pathless) operators
// ---------------------------------------------------------------------------------------------

function badValue(message: string): EngineError {
  return new EngineError(ErrorCode.BadValue, message);
}

function notSupported(message: string): EngineError {
  return new EngineError(ErrorCode.QueryFeatureNotAllowed, message);
}

function compileDocument(filter: Document): DocPredicate {
  const preds: DocPredicate[] = [];
  // In a DBRef-shaped filter ({$ref, $id, $db?}, as $elemMatch gets one) those names are fields.
  const dbRef = isDBRefLike(filter);
  for (const key of Object.keys(filter)) {
    const value = filter[key];
    if (key.charCodeAt(0) === 36 /* $ */ && !(dbRef && (key === '$ref' || key === '$id' || key === '$db'))) {
      const p = compileTopLevelOperator(key, value);
      if (p) preds.push(p);
    } else {
      checkFieldPathLength(key);
      preds.push(bindToPath(key, parseFieldCondition(value, key)));
    }
  }
  return allOf(preds);
}

function allOf(preds: DocPredicate[]): DocPredicate {
  switch (preds.length) {
    case 0:
      return TRUE;
    case 1:
      return preds[0];
    // Stryker disable next-line ConditionalExpression: the emptied case falls through to the loop, which gives the same answer for two
    case 2: {
      const [a, b] = preds;
      return (doc) => a(doc) && b(doc);
    }
    default:
      return (doc) => {
        for (let i = 0; i < preds.length; i++) if (!preds[i](doc)) return false;
        return true;
      };
  }
}

function anyOf(preds: DocPredicate[]): DocPredicate {
  if (preds.length === 1) return preds[0];
  return (doc) => {
    for (let i = 0; i < preds.length; i++) if (preds[i](doc)) return true;
    return false;
  };
}

/** Returns null for operators that constrain nothing ($comment). */
function compileTopLevelOperator(op: string, value: unknown): DocPredicate | null {
  switch (op) {
    case '$and':
      return allOf(parseClauses(op, value));
    case '$or':
      return anyOf(parseClauses(op, value));
    case '$nor': {
      const any = anyOf(parseClauses(op, value));
      return (doc) => !any(doc);
    }
    case '$comment':
      return null;
    case '$alwaysTrue':
    case '$alwaysFalse':
      if (!isNumeric(value) || toDouble(value) !== 1) {
        throw new EngineError(ErrorCode.FailedToParse, `${op} must be an integer value of 1`);
      }
      return op === '$alwaysTrue' ? TRUE : () => false;
    case '$where':
      throw notSupported('$where is not supported: this engine does not execute JavaScript');
    case '$expr': {
      // Its field paths name the document's fields: under $elemMatch there is no document to name.
      if (elemMatchDepth > 0) throw badValue('$expr can only be applied to the top-level document');
      // Aggregation expressions evaluated against the document, truthy by aggregation rules.
      const expr = compileExpression(value);
      const vars = exprVars;
      return (doc) => isTruthy(expr(doc as Document, vars));
    }
    case '$text':
      throw notSupported('$text is not supported: this engine has no text indexes');
    case '$jsonSchema': {
      const schema = compileJsonSchema(value);
      return (doc) => isPlainObject(doc) && schema.matches(doc);
    }
    case '$sampleRate': {
      if (!isNumeric(value)) throw badValue('argument to $sampleRate must be a numeric type');
      const rate = toDouble(value);
      // Written so that NaN fails too.
      if (!(rate >= 0 && rate <= 1)) throw badValue('numeric argument to $sampleRate must be in [0, 1]');
      if (rate === 0) return () => false;
      if (rate === 1) return TRUE;
      // Each document independently, as mongod's rewrite to {$expr: {$lt: [{$rand: {}}, rate]}} does.
      return () => Math.random() < rate;
    }
  }
  throw badValue(
    `unknown top level operator: ${op}. If you have a field name that starts with a '$' symbol, ` +
      'consider using $getField or $setField.',
  );
}

function parseClauses(op: string, value: unknown): DocPredicate[] {
  if (!Array.isArray(value)) throw badValue(`${op} must be an array`);
  if (value.length === 0) throw badValue('$and/$or/$nor must be a nonempty array');
  return value.map((clause) => {
    if (!isPlainObject(clause)) throw badValue('$or/$and/$nor entries need to be full objects');
    return compileDocument(clause);
  });
}

// ---------------------------------------------------------------------------------------------
// Field conditions: {path: value} and {path: {$op: arg, ...}}
// ---------------------------------------------------------------------------------------------

function leaf(pred: ValuePredicate, traverseLeafArrays = true): Expr {
  return { kind: 'leaf', pred, traverseLeafArrays };
}

function not(child: Expr): Expr {
  return { kind: 'not', child };
}

function and(children: Expr[]): Expr {
  return children.length === 1 ? children[0] : { kind: 'and', children };
}

/** Bind an expression to a path: the predicate over documents. */
function bindToPath(path: string, expr: Expr): DocPredicate {
  switch (expr.kind) {
    case 'leaf':
      return compilePath(path, expr.pred, expr.traverseLeafArrays);
    case 'not': {
      const inner = bindToPath(path, expr.child);
      return (doc) => !inner(doc);
    }
    case 'and':
      return allOf(expr.children.map((c) => bindToPath(path, c)));
  }
}

/** The same expression applied to one value with no traversal ($elemMatch's value form). */
function toValuePredicate(expr: Expr): ValuePredicate {
  switch (expr.kind) {
    case 'leaf':
      return expr.pred;
    case 'not': {
      const inner = toValuePredicate(expr.child);
      return (v) => !inner(v);
    }
    case 'and': {
      const preds = expr.children.map(toValuePredicate);
      return (v) => {
        for (let i = 0; i < preds.length; i++) if (!preds[i](v)) return false;
        return true;
      };
    }
  }
}

function isRegexValue(value: unknown): value is RegExp | BSONRegExp {
  return value instanceof RegExp || bsonClassOf(value) === 'BSONRegExp';
}

/** {$ref, $id} documents are values, not operator objects, though they start with '$'. */
function isDBRefLike(obj: Document): boolean {
  return '$ref' in obj && '$id' in obj;
}

/** An object whose first field starts with '$' is a list of operators, not a value. */
function isOperatorObject(value: unknown): value is Document {
  if (!isPlainObject(value)) return false;
  for (const key in value) {
    return key.charCodeAt(0) === 36 && !isDBRefLike(value);
  }
  return false;
}

/** `path` names the field in refusals, as mongod's messages do ("" inside $elemMatch's value form). */
function parseFieldCondition(value: unknown, path: string): Expr {
  if (isRegexValue(value)) return leaf(regexPredicate(regexFromLiteral(value)));
  if (isOperatorObject(value)) return parseOperators(value, path);
  return leaf(equalityPredicate(value));
}

/** Parse {$gt: 1, $lt: 5, ...}: every operator must hold (each on its own pass over the path). */
function parseOperators(ops: Document, path: string): Expr {
  const parts: Expr[] = [];
  for (const op of Object.keys(ops)) {
    const expr = parseOperator(op, ops[op], ops, path);
    if (expr) parts.push(expr);
  }
  return and(parts);
}

function parseOperator(op: string, arg: unknown, siblings: Document, path: string): Expr | null {
  switch (op) {
    case '$eq':
      return leaf(equalityPredicate(arg));
    case '$ne':
      if (isRegexValue(arg)) throw badValue("Can't have regex as arg to $ne.");
      return not(leaf(equalityPredicate(arg)));
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      if (isRegexValue(arg)) throw badValue(`Can't have RegEx as arg to predicate over field '${path}'.`);
      return leaf(comparisonPredicate(op, arg));
    case '$in':
      return leaf(inPredicate(op, arg));
    case '$nin':
      return not(leaf(inPredicate(op, arg)));
    case '$exists': {
      const exists = leaf((v) => v !== MISSING);
      return trueValue(arg) ? exists : not(exists);
    }
    case '$type':
      return leaf(typePredicate(arg));
    case '$regex':
      return leaf(regexPredicate(regexFromOperator(arg, siblings.$options, optionsComeFirst(siblings))));
    case '$options':
      if (!('$regex' in siblings)) throw badValue('$options needs a $regex');
      return null;
    case '$not':
      return not(parseNot(arg, path));
    case '$size':
      return leaf(sizePredicate(arg), false);
    case '$all':
      return parseAll(arg);
    case '$elemMatch':
      return elemMatchLeaf(arg);
    case '$mod':
      return leaf(modPredicate(arg));
    case '$bitsAllSet':
    case '$bitsAnySet':
    case '$bitsAllClear':
    case '$bitsAnyClear':
      return leaf(bitsPredicate(op, arg));
    case '$geoWithin':
    case '$within':
      return leaf(geoWithinPredicate(arg));
    case '$near':
    case '$nearSphere':
    case '$geoIntersects':
      throw notSupported(`${op} is not supported yet`);
    case '$where':
      throw badValue('$where cannot be applied to a field');
  }
  throw badValue(`unknown operator: ${op}`);
}

function parseNot(arg: unknown, path: string): Expr {
  if (isRegexValue(arg)) return leaf(regexPredicate(regexFromLiteral(arg)));
  if (!isPlainObject(arg)) throw badValue('$not needs a regex or a document');
  if (Object.keys(arg).length === 0) throw badValue('$not cannot be empty');
  return parseOperators(arg, path);
}

/** BSON truthiness, as $exists reads its argument: false, 0, null and undefined (JS or type 6) are false. */
function trueValue(v: unknown): boolean {
  if (v === null || v === undefined || v === false || isBsonUndefined(v)) return false;
  if (isNumeric(v)) return toDouble(v) !== 0;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

function isNaNValue(v: unknown): boolean {
  if (typeof v === 'number') return v !== v;
  const cls = bsonClassOf(v);
  return (cls === 'Decimal128' || cls === 'Double') && Number.isNaN(toDouble(v));
}

/** Numbers held in bson wrapper classes (everything numeric but a plain JS number). */
function isWrappedNumber(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  const cls = (v as { _bsontype?: string })._bsontype;
  return cls === 'Int32' || cls === 'Long' || cls === 'Decimal128' || cls === 'Double';
}

/**
 * The JS number equal in value to a numeric (not NaN), when one exists (so fast paths apply). Past
 * exactDouble's reach a Long of 2^53 or more (2^60) or a Decimal128 (0.5) can still be one.
 */
function doubleIfExact(v: unknown): number | undefined {
  const d = exactDouble(v);
  if (d !== undefined) return d;
  const approx = toDouble(v);
  return compareNumbers(v, approx) === 0 ? approx : undefined;
}

/** compareNumbers for a wrapped number against `rhs`; 2 when v is not a comparable number. */
function compareWrapped(v: unknown, rhs: unknown): number {
  if (!isWrappedNumber(v) || isNaNValue(v)) return 2;
  return compareNumbers(v, rhs);
}

/**
 * compareWrapped against a (non-NaN) JS number, with the common Int32 and small-Long cases read
 * straight from the wrapper: this is the hot path for documents stored with NumberInt/NumberLong.
 */
function compareWrappedToDouble(v: unknown, d: number): number {
  if (v === null || typeof v !== 'object') return 2;
  let x: number | undefined;
  switch ((v as { _bsontype?: string })._bsontype) {
    case 'Int32':
    /* Stryker disable next-line ConditionalExpression: emptied, it falls into Long's, whose exactDouble reads the same value */ case 'Double':
      x = (v as { value: number }).value;
      break;
    // Stryker disable next-line ConditionalExpression: the emptied case falls into Decimal128's exact compareNumbers, which gives a Long the same answer
    case 'Long':
      x = exactDouble(v);
      break;
    case 'Decimal128':
      return isNaNValue(v) ? 2 : compareNumbers(v, d);
    default:
      return 2;
  }
  if (x === undefined) return compareNumbers(v, d);
  return x < d ? -1 : x > d ? 1 : x === d ? 0 : 2;
}

// ---------------------------------------------------------------------------------------------
// Equality and ranges
// ---------------------------------------------------------------------------------------------

/** Rank of a value for type bracketing; missing ranks with undefined (as EOO does in mongod). */
function rankOf(v: unknown): number {
  return v === MISSING ? 0 : canonicalRank(v);
}

// mongod refuses a type-6 operand when it parses the filter: no stored value could equal it usefully.
const UNDEFINED_OPERAND =
  'cannot compare to undefined: query for {$type: "undefined"} to find stored undefined values.';

function isNullish(v: unknown): boolean {
  return v === null || v === undefined || v === MISSING;
}

/**
 * Equality with `rhs`. A JS `undefined` operand is read as null, which is what the Node driver
 * sends for it (it serialises undefined as BSON null unless told to drop it).
 */
function equalityPredicate(rhs: unknown): ValuePredicate {
  if (rhs === null || rhs === undefined) return isNullish;
  if (isBsonUndefined(rhs)) throw badValue(UNDEFINED_OPERAND);
  switch (typeof rhs) {
    case 'number':
      if (rhs !== rhs) return isNaNValue;
      return (v) => (typeof v === 'number' ? v === rhs : compareWrappedToDouble(v, rhs) === 0);
    case 'string':
      return (v) => v === rhs || compareText(v, rhs) === 0;
    // Stryker disable next-line ConditionalExpression: the emptied case leaves the switch for the general equality at the end, which compares booleans the same way
    case 'boolean':
      return (v) => v === rhs;
  }
  if (rhs instanceof Date) {
    const t = rhs.getTime();
    return (v) => v instanceof Date && v.getTime() === t;
  }
  // Stryker disable next-line BlockStatement: without it a wrapped number reaches the general equality at the end, whose compareValues compares numbers exactly and NaN equal to NaN too
  if (isNumeric(rhs)) {
    if (isNaNValue(rhs)) return isNaNValue;
    const d = doubleIfExact(rhs);
    if (d !== undefined) return (v) => (typeof v === 'number' ? v === d : compareWrappedToDouble(v, d) === 0);
    return (v) => compareWrapped(v, rhs) === 0;
  }
  const rank = canonicalRank(rhs);
  return (v) => v !== MISSING && canonicalRank(v) === rank && compareValues(v, rhs) === 0;
}

/**
 * A string or symbol against a string operand, under the operation's collation when one is in force
 * (a query's strings compare by its collation; `$regex` never does); 2 for any other type.
 */
function compareText(v: unknown, rhs: string): number {
  let text: string;
  if (typeof v === 'string') text = v;
  else if (bsonClassOf(v) === 'BSONSymbol') text = (v as { value: string }).value;
  else return 2;
  const scope = activeCollation.scope;
  return scope === null ? compareStrings(text, rhs) : scope.collator.compare(text, rhs);
}

type RangeOp = '$gt' | '$gte' | '$lt' | '$lte';

/** The test on a compareValues-style result (-1/0/1; 2 = incomparable, never passes). */
function rangeTest(op: RangeOp): (c: number) => boolean {
  switch (op) {
    case '$gt':
      return (c) => c === 1;
    case '$gte':
      return (c) => c === 0 || c === 1;
    case '$lt':
      return (c) => c === -1;
    case '$lte':
      return (c) => c === 0 || c === -1;
  }
}

function comparisonPredicate(op: RangeOp, operand: unknown): ValuePredicate {
  const rhs = operand === undefined ? null : operand;
  if (isBsonUndefined(rhs)) throw badValue(UNDEFINED_OPERAND);
  const inclusive = op === '$gte' || op === '$lte';
  const test = rangeTest(op);
  const cls = bsonClassOf(rhs);
  if (cls === 'MinKey' || cls === 'MaxKey') {
    // MinKey/MaxKey sit below/above every type, so they compare across type brackets.
    const below = op === '$lt' || op === '$lte';
    const crossType = below ? cls === 'MaxKey' : cls === 'MinKey';
    const rank = canonicalRank(rhs);
    return (v) => (rankOf(v) === rank ? inclusive : crossType);
  }
  if (rhs === null) {
    // null equals null, undefined and missing; nothing is above or below it within its bracket.
    return (v) => inclusive && isNullish(v);
  }
  if (isNumeric(rhs)) return numericRangePredicate(op, rhs, inclusive, test);
  // Stryker disable next-line BlockStatement: a fast path; without it a string operand takes the canonical-rank branch below, whose compareValues compares strings and symbols the same way, under the same collation
  if (typeof rhs === 'string') {
    return (v) => {
      const c = compareText(v, rhs);
      return c !== 2 && test(c);
    };
  }
  if (rhs instanceof Date) {
    const t = rhs.getTime();
    return (v) => v instanceof Date && test(Math.sign(v.getTime() - t));
  }
  const rank = canonicalRank(rhs);
  return (v) => rankOf(v) === rank && test(compareValues(v, rhs));
}

function numericRangePredicate(
  op: RangeOp,
  rhs: unknown,
  inclusive: boolean,
  test: (c: number) => boolean,
): ValuePredicate {
  // NaN equals only NaN and is neither above nor below anything.
  if (isNaNValue(rhs)) return inclusive ? isNaNValue : FALSE_VALUE;
  const d = doubleIfExact(rhs);
  if (d === undefined)
    return (v) => (typeof v === 'number' ? v === v && test(compareNumbers(v, rhs)) : test(compareWrapped(v, rhs)));
  switch (op) {
    case '$gt':
      return (v) => (typeof v === 'number' ? v > d : compareWrappedToDouble(v, d) === 1);
    case '$gte':
      return (v) => (typeof v === 'number' ? v >= d : test(compareWrappedToDouble(v, d)));
    case '$lt':
      return (v) => (typeof v === 'number' ? v < d : compareWrappedToDouble(v, d) === -1);
    case '$lte':
      return (v) => (typeof v === 'number' ? v <= d : test(compareWrappedToDouble(v, d)));
  }
}

// ---------------------------------------------------------------------------------------------
// $in / $nin
// ---------------------------------------------------------------------------------------------

/**
 * Membership in a list of values and regexes. Strings and numbers that are exact doubles go into
 * hash sets (1, NumberInt(1), NumberLong(1) and Decimal128("1") all become the key 1); the rest is
 * compared one by one.
 */
function inPredicate(op: string, arg: unknown): ValuePredicate {
  if (!Array.isArray(arg)) throw badValue(`${op} needs an array`);
  const strings = new Set<string>();
  const doubles = new Set<number>();
  // Stryker disable next-line ArrayDeclaration: a non-number in this list compares as NaN, and both callers of matchesInexact leave NaN values out, so it never matches
  const inexactNumbers: unknown[] = [];
  const others: ValuePredicate[] = [];
  const regexes: ValuePredicate[] = [];
  let hasNull = false;
  for (const item of arg) {
    if (isRegexValue(item)) {
      regexes.push(regexPredicate(regexFromLiteral(item)));
    } else if (isOperatorObject(item)) {
      throw badValue(`cannot nest $ under ${op}`);
    } else if (item === null || item === undefined) {
      hasNull = true;
    } else if (isBsonUndefined(item)) {
      throw badValue(
        `InMatchExpression equality cannot be undefined: ${op} takes null to match null or a missing field.`,
      );
    } else if (typeof item === 'string') {
      strings.add(item);
    } else if (isNumeric(item)) {
      const d = isNaNValue(item) ? NaN : doubleIfExact(item);
      if (d !== undefined)
        doubles.add(d); // a Set finds NaN by SameValueZero, as $in does
      else inexactNumbers.push(item);
    } else {
      others.push(equalityPredicate(item));
    }
  }
  const hasOthers = others.length > 0;
  const hasRegexes = regexes.length > 0;
  const hasInexact = inexactNumbers.length > 0;
  return (v) => {
    if (typeof v === 'string') {
      if (strings.has(v)) return true;
      if (activeCollation.scope !== null) for (const s of strings) if (compareText(v, s) === 0) return true;
    } else if (typeof v === 'number') {
      if (doubles.has(v)) return true;
      if (hasInexact && v === v && matchesInexact(v, inexactNumbers)) return true;
      return false;
    } else if (isNullish(v)) {
      return hasNull;
    } else if (isWrappedNumber(v)) {
      const d = isNaNValue(v) ? NaN : doubleIfExact(v);
      if (d !== undefined && doubles.has(d)) return true;
      return hasInexact && !isNaNValue(v) && matchesInexact(v, inexactNumbers);
    } else if (hasOthers) {
      for (let i = 0; i < others.length; i++) if (others[i](v)) return true;
    }
    if (hasRegexes) {
      for (let i = 0; i < regexes.length; i++) if (regexes[i](v)) return true;
    }
    return false;
  };
}

function matchesInexact(v: unknown, list: unknown[]): boolean {
  for (let i = 0; i < list.length; i++) if (compareNumbers(v, list[i]) === 0) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// $type
// ---------------------------------------------------------------------------------------------

const TYPE_CODES = new Set<number>(Object.values(BSON_TYPE_NUMBERS));
const NUMERIC_TYPES: ReadonlySet<BsonTypeName> = new Set<BsonTypeName>(['double', 'int', 'long', 'decimal']);

function typePredicate(arg: unknown): ValuePredicate {
  const codes = new Set<number>();
  let allNumbers = false;
  const addOne = (t: unknown): void => {
    if (typeof t === 'string') {
      if (t === 'number') {
        allNumbers = true;
        return;
      }
      const code = (BSON_TYPE_NUMBERS as Record<string, number>)[t];
      if (code === undefined || !Object.prototype.hasOwnProperty.call(BSON_TYPE_NUMBERS, t)) {
        throw badValue(`Unknown type name alias: ${t}`);
      }
      codes.add(code);
    } else if (isNumeric(t)) {
      const n = toDouble(t);
      if (!Number.isInteger(n) || !TYPE_CODES.has(n)) throw badValue(`Invalid numerical type code: ${String(t)}`);
      codes.add(n);
    } else {
      throw new EngineError(ErrorCode.TypeMismatch, 'type must be represented as a number or a string');
    }
  };
  if (Array.isArray(arg)) arg.forEach(addOne);
  else addOne(arg);
  return (v) => {
    if (v === MISSING) return false;
    const t = bsonTypeOf(v);
    return codes.has(BSON_TYPE_NUMBERS[t]) || (allNumbers && NUMERIC_TYPES.has(t));
  };
}

// ---------------------------------------------------------------------------------------------
// $regex
// ---------------------------------------------------------------------------------------------

/** A compiled regex plus its source form (regex-valued fields match by pattern and flags). */
interface CompiledRegex {
  re: StringTest;
  pattern: string;
  flags: string;
}

function sortedFlags(flags: string): string {
  // Stryker disable next-line MethodExpression: every flag string it gets is already sorted (RegExp.flags lists flags in the order dgimsuvy; bson's BSONRegExp sorts its options)
  return [...flags].sort().join('');
}

/**
 * A regex given as a value: {a: /x/i}, {$in: [/x/]}, {$not: /x/}. A JS RegExp is what a client
 * sends as a BSON regex: its source is a PCRE pattern to mongod, its i/m/s flags the options (u
 * and v are redundant, g/y/d carry no meaning in a query).
 */
function regexFromLiteral(value: RegExp | BSONRegExp): CompiledRegex {
  if (value instanceof RegExp) {
    const flags = value.flags.replace(/[gydv]/g, '');
    return {
      re: compileRegex(value.source, flags),
      pattern: value.source,
      flags: sortedFlags(flags.replace(/u/g, '')),
    };
  }
  return compilePcre(value.pattern, value.options);
}

function optionsComeFirst(siblings: Document): boolean {
  const keys = Object.keys(siblings);
  return keys.indexOf('$options') < keys.indexOf('$regex');
}

/** {$regex: pattern, $options: flags}. */
function regexFromOperator(arg: unknown, options: unknown, optionsFirst: boolean): CompiledRegex {
  if (options !== undefined && typeof options !== 'string') throw badValue('$options has to be a string');
  if (typeof arg === 'string') return compilePcre(arg, options ?? '');
  if (isRegexValue(arg)) {
    const own = arg instanceof RegExp ? arg.flags.replace(/[gyduv]/g, '') : arg.options;
    if (options) {
      // mongod names the clash by which of the two it read first.
      if (own)
        throw new EngineError(
          optionsFirst ? 51074 : 51075,
          'options set in both $regex and $options: give the flags once, in the regex or in $options.',
        );
      const pattern = arg instanceof RegExp ? arg.source : arg.pattern;
      return compilePcre(pattern, options);
    }
    return regexFromLiteral(arg);
  }
  throw badValue('$regex has to be a string');
}

/**
 * A PCRE pattern under mongod's options; the engine is chosen in regex/compile.ts. The options are
 * kept as written, not sorted: mongod matches a regex-valued field by comparing the two flag strings,
 * so $options "mi" does not match a stored /x/im (BSON keeps a regex's flags in alphabetical order).
 */
function compilePcre(pattern: string, options: string): CompiledRegex {
  return { re: compileRegex(pattern, options), pattern, flags: options };
}

/** Regexes match strings and symbols; a regex-valued field matches an identical regex. */
function regexPredicate(rx: CompiledRegex): ValuePredicate {
  const { re, pattern, flags } = rx;
  return (v) => {
    if (typeof v === 'string') return re.test(v);
    if (v === null || typeof v !== 'object') return false;
    // A stored RegExp keeps only the flags BSON carries, as a literal in the filter does
    // (regexFromLiteral), so a field holding /x/u matches {a: /x/u}.
    if (v instanceof RegExp) return v.source === pattern && sortedFlags(v.flags.replace(/[gyduv]/g, '')) === flags;
    switch ((v as { _bsontype?: string })._bsontype) {
      case 'BSONSymbol':
        return re.test((v as { value: string }).value);
      case 'BSONRegExp': {
        const r = v as BSONRegExp;
        return r.pattern === pattern && sortedFlags(r.options) === flags;
      }
    }
    return false;
  };
}

// ---------------------------------------------------------------------------------------------
// $size, $all, $elemMatch, $mod, $bits*
// ---------------------------------------------------------------------------------------------

function sizePredicate(arg: unknown): ValuePredicate {
  if (!isNumeric(arg)) throw badValue('$size needs a number');
  const n = toDouble(arg);
  if (!Number.isInteger(n)) throw badValue('$size must be a whole number');
  if (n < 0) throw badValue('$size may not be negative');
  return (v) => Array.isArray(v) && v.length === n;
}

function isElemMatchObject(v: unknown): boolean {
  if (!isPlainObject(v)) return false;
  for (const key in v) return key === '$elemMatch';
  return false;
}

/** $all: every listed value must be matched (each by its own pass over the path). */
function parseAll(arg: unknown): Expr {
  if (!Array.isArray(arg)) throw badValue('$all needs an array');
  if (arg.length === 0) return leaf(FALSE_VALUE);
  if (isElemMatchObject(arg[0])) {
    return and(
      arg.map((item) => {
        if (!isElemMatchObject(item)) throw badValue('$all/$elemMatch has to be consistent');
        return elemMatchLeaf((item as Document).$elemMatch);
      }),
    );
  }
  return and(
    arg.map((item) => {
      if (isRegexValue(item)) return leaf(regexPredicate(regexFromLiteral(item)));
      if (isOperatorObject(item)) throw badValue('no $ expressions in $all');
      return leaf(equalityPredicate(item));
    }),
  );
}

/** How many document-form $elemMatch arguments are being compiled around the current clause. */
let elemMatchDepth = 0;

/** Operators that make an $elemMatch argument a query on documents rather than on values. */
const PATHLESS = new Set([
  '$and',
  '$or',
  '$nor',
  '$where',
  '$expr',
  '$text',
  '$comment',
  '$alwaysTrue',
  '$alwaysFalse',
  '$jsonSchema',
  '$sampleRate',
]);

/**
 * $elemMatch matches an array having one element that satisfies every condition. Value form
 * ({$gte: 80, $lt: 85}) applies operators to the element itself; document form ({a: 1, b: 2}) runs
 * a sub-query on elements that are documents (or arrays, which BSON stores as documents).
 */
function elemMatchLeaf(arg: unknown): Expr {
  const elementIndex = elemMatchIndex(arg);
  return {
    kind: 'leaf',
    pred: (v) => Array.isArray(v) && elementIndex(v) >= 0,
    traverseLeafArrays: false,
    elementIndex,
  };
}

/** The index of the first element of an array that satisfies an $elemMatch, or -1. */
function elemMatchIndex(arg: unknown): (array: unknown[]) => number {
  if (!isPlainObject(arg)) throw badValue('$elemMatch needs an Object');
  const first = Object.keys(arg)[0];
  if (first !== undefined && first.charCodeAt(0) === 36 && !PATHLESS.has(first) && !isDBRefLike(arg)) {
    const each = toValuePredicate(parseOperators(arg, ''));
    return (v) => {
      for (let i = 0; i < v.length; i++) if (each(v[i])) return i;
      return -1;
    };
  }
  elemMatchDepth++;
  let sub: DocPredicate;
  try {
    sub = compileDocument(arg);
  } finally {
    elemMatchDepth--;
  }
  return (v) => {
    for (let i = 0; i < v.length; i++) {
      const el = v[i];
      const doc = Array.isArray(el) ? el : asDocument(el);
      if (doc && sub(doc)) return i;
    }
    return -1;
  };
}

/** A $mod divisor or remainder as mongod coerces it: truncated, and held by a 64-bit integer. */
function modArgument(arg: unknown, role: 'divisor' | 'remainder'): bigint {
  const n = truncatedBigInt(arg);
  const invalid = `malformed mod, ${role} value is invalid :: caused by :: `;
  if (n === undefined) throw badValue(`${invalid}Unable to coerce NaN/Inf to integral type`);
  if (n < LONG_MIN || n > LONG_MAX) throw badValue(`${invalid}Out of bounds coercing to integral value`);
  return n;
}

function modPredicate(arg: unknown): ValuePredicate {
  if (!Array.isArray(arg)) throw badValue('malformed mod, needs to be an array');
  if (arg.length < 2) throw badValue('malformed mod, not enough elements');
  if (arg.length > 2) throw badValue('malformed mod, too many elements');
  if (!isNumeric(arg[0])) throw badValue('malformed mod, divisor not a number');
  if (!isNumeric(arg[1])) throw badValue('malformed mod, remainder not a number');
  const divisor = modArgument(arg[0], 'divisor');
  const remainder = modArgument(arg[1], 'remainder');
  if (divisor === 0n) throw badValue('divisor cannot be 0');
  const dNum = Number(divisor);
  const rNum = Number(remainder);
  return (v) => {
    // JS % truncates like C++ and is exact, and below 2^53 a double holds every integer, so this gives
    // the bigint answer for any divisor: one Number() rounds is beyond 2^53 > |t|, where both give t
    // (and a rounded remainder, beyond 2^53 too, equals neither). NaN and ±Infinity fail the bound.
    // Stryker disable next-line BlockStatement,StringLiteral: a fast path; without it (or with typeof compared to "") every double takes the exact bigint path below, which answers the same
    if (typeof v === 'number') {
      const t = Math.trunc(v);
      if (Math.abs(t) < 2 ** 53) return t % dNum === rNum;
    }
    const x = truncatedBigInt(v);
    // mongod takes the dividend as a 64-bit integer; one that does not fit never matches.
    return x !== undefined && x % divisor === remainder && x >= LONG_MIN && x <= LONG_MAX;
  };
}

type BitsOp = '$bitsAllSet' | '$bitsAnySet' | '$bitsAllClear' | '$bitsAnyClear';

/** The bit positions a $bits* argument names: a bitmask number, BinData, or a list of positions. */
function bitPositions(op: string, arg: unknown): number[] {
  if (Array.isArray(arg)) {
    return arg.map((p) => {
      if (!isNumeric(p)) throw badValue(`bit positions must be an integer but got: ${String(p)}`);
      const n = toDouble(p);
      if (!Number.isInteger(n)) throw badValue(`bit positions must be an integer but got: ${String(p)}`);
      if (n < 0) throw badValue(`bit positions must be >= 0 but got: ${n}`);
      return n;
    });
  }
  if (bsonClassOf(arg) === 'Binary') {
    const bin = arg as Binary;
    const out: number[] = [];
    for (let byte = 0; byte < bin.position; byte++) {
      for (let bit = 0; bit < 8; bit++) if ((bin.buffer[byte] >> bit) & 1) out.push(byte * 8 + bit);
    }
    return out;
  }
  if (isNumeric(arg)) {
    const mask = bitmask(op, arg);
    const out: number[] = [];
    for (let i = 0; i < 64; i++) if ((mask >> BigInt(i)) & 1n) out.push(i);
    return out;
  }
  throw badValue(`${op} takes an Array, a number, or a BinData but received: ${String(arg)}`);
}

/** A numeric bitmask; anything but a non-negative 64-bit integer is refused as mongod refuses it. */
function bitmask(op: string, arg: unknown): bigint {
  const refuse = (why: string) => new EngineError(ErrorCode.FailedToParse, `${why}: ${op}: ${formatValue(arg)}`);
  const isDouble = numericKind(arg) === 'double';
  if (isDouble && Number.isNaN(toDouble(arg))) throw refuse('Expected an integer, but found NaN in');
  const mask = truncatedBigInt(arg);
  if (mask === undefined || mask < LONG_MIN || mask > LONG_MAX) throw refuse('Cannot represent as a 64-bit integer');
  // A fraction is named as such for a double only; a Decimal128 one fails mongod's exact conversion.
  if (compareNumbers(arg, Long.fromBigInt(mask)) !== 0)
    throw refuse(isDouble ? 'Expected an integer' : 'Cannot represent as a 64-bit integer');
  if (mask < 0n) throw refuse('Expected a non-negative number in');
  return mask;
}

/** Bit reader for a document value: integral numbers (two's complement, sign-extended) or BinData. */
function bitReader(v: unknown): ((pos: number) => boolean) | undefined {
  if (bsonClassOf(v) === 'Binary') {
    const bin = v as Binary;
    return (pos) => {
      const byte = pos >> 3;
      return byte < bin.position && ((bin.buffer[byte] >> (pos & 7)) & 1) === 1;
    };
  }
  // Stryker disable next-line ConditionalExpression: toDouble of a non-number is NaN, which the integer test below refuses all the same
  if (!isNumeric(v)) return undefined;
  const d = toDouble(v);
  // Only integral values representable as a 64-bit integer take part.
  if (bsonClassOf(v) !== 'Long' && (!Number.isInteger(d) || d < -(2 ** 63) || d >= 2 ** 63)) return undefined;
  const x = truncatedBigInt(v);
  if (x === undefined) return undefined;
  return (pos) => (pos >= 64 ? x < 0n : ((x >> BigInt(pos)) & 1n) === 1n);
}

function bitsPredicate(op: BitsOp, arg: unknown): ValuePredicate {
  const positions = bitPositions(op, arg);
  const wantSet = op === '$bitsAllSet' || op === '$bitsAnySet';
  const all = op === '$bitsAllSet' || op === '$bitsAllClear';
  return (v) => {
    const read = bitReader(v);
    if (!read) return false;
    for (const p of positions) {
      const ok = read(p) === wantSet;
      if (all && !ok) return false;
      if (!all && ok) return true;
    }
    return all;
  };
}

// ---------------------------------------------------------------------------------------------
// $geoWithin (legacy shapes on the plane; $geometry and $centerSphere on the sphere)
// ---------------------------------------------------------------------------------------------

type Point = [number, number];

function numberOrUndefined(v: unknown): number | undefined {
  return isNumeric(v) ? toDouble(v) : undefined;
}

/** A legacy coordinate pair: [x, y] or {anyName: x, anyName: y}. */
function legacyPoint(v: unknown): Point | undefined {
  let xs: unknown[];
  if (Array.isArray(v)) xs = v;
  else if (isPlainObject(v)) xs = Object.values(v);
  else return undefined;
  if (xs.length < 2) return undefined;
  const x = numberOrUndefined(xs[0]);
  const y = numberOrUndefined(xs[1]);
  return x === undefined || y === undefined ? undefined : [x, y];
}

/** Every vertex of a stored geometry, and whether it is a single point. */
function geometryPoints(v: unknown): { points: Point[]; isPoint: boolean } | undefined {
  if (isPlainObject(v) && typeof v.type === 'string' && 'coordinates' in v) {
    const points: Point[] = [];
    const collect = (c: unknown, depth: number): boolean => {
      if (depth === 0) {
        const p = legacyPoint(c);
        if (!p || !Array.isArray(c)) return false;
        points.push(p);
        return true;
      }
      return Array.isArray(c) && c.every((x) => collect(x, depth - 1));
    };
    const depth = { Point: 0, MultiPoint: 1, LineString: 1, MultiLineString: 2, Polygon: 2, MultiPolygon: 3 }[v.type];
    if (depth === undefined || !collect(v.coordinates, depth) || points.length === 0) return undefined;
    return { points, isPoint: v.type === 'Point' };
  }
  const p = legacyPoint(v);
  return p ? { points: [p], isPoint: true } : undefined;
}

function pointArg(v: unknown, what: string): Point {
  const p = legacyPoint(v);
  if (!p) throw badValue(`malformed ${what}: point must be a pair of numbers`);
  // MongoDB refuses an infinite or NaN corner of a shape; an edge through infinity has no crossing
  // point to count.
  if (!Number.isFinite(p[0]) || !Number.isFinite(p[1])) {
    throw badValue(`malformed ${what}: point coordinates must be finite numbers`);
  }
  return p;
}

/** Even-odd test with boundary points counted inside. */
function inPlanarPolygon(p: Point, poly: Point[]): boolean {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i];
    const [xj, yj] = poly[j];
    const cross = (xj - xi) * (p[1] - yi) - (yj - yi) * (p[0] - xi);
    if (
      cross === 0 &&
      p[0] >= Math.min(xi, xj) &&
      p[0] <= Math.max(xi, xj) &&
      p[1] >= Math.min(yi, yj) &&
      p[1] <= Math.max(yi, yj)
    ) {
      return true;
    }
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

type Vec3 = [number, number, number];

function toUnitVector([lng, lat]: Point): Vec3 {
  const phi = (lat * Math.PI) / 180;
  const lambda = (lng * Math.PI) / 180;
  return [Math.cos(phi) * Math.cos(lambda), Math.cos(phi) * Math.sin(lambda), Math.sin(phi)];
}

function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

/** Where v lies seen from p: its direction in p's tangent plane; none at p or at p's antipode. */
function tangent(p: Vec3, v: Vec3): Vec3 | undefined {
  const pv = dot(p, v);
  const t: Vec3 = [v[0] - pv * p[0], v[1] - pv * p[1], v[2] - pv * p[2]];
  return dot(t, t) < 1e-24 ? undefined : t;
}

function normalized(v: Vec3): Vec3 {
  const n = Math.sqrt(dot(v, v));
  return [v[0] / n, v[1] / n, v[2] / n];
}

/**
 * A ring of a GeoJSON polygon, ready for point tests: its distinct vertices in order (not closed),
 * and points beside two of its edges whose side of the ring is known.
 */
interface SphericalRing {
  vertices: Vec3[];
  refs: { at: Vec3; inside: boolean }[];
}

/**
 * A ring's inside is the smaller of the two regions it parts the sphere into, as MongoDB reads a
 * GeoJSON polygon (a big polygon needs its own CRS, which the engine does not take). Going along
 * an edge a→b, the region on the left is {x : x·(a×b) > 0}; its area is the sum of the ring's
 * left-hand angles less (n − 2)π (Girard), so the left is inside when that is at most 2π.
 */
function sphericalRing(closed: Vec3[]): SphericalRing {
  const vertices: Vec3[] = [];
  for (const v of closed.slice(0, -1)) {
    if (vertices.length === 0 || tangent(vertices[vertices.length - 1], v) !== undefined) vertices.push(v);
  }
  // Two lng/lat pairs for one place (a pole, ±180): the last may repeat the first.
  if (vertices.length > 1 && tangent(vertices[vertices.length - 1], vertices[0]) === undefined) vertices.pop();
  const n = vertices.length;
  let angles = 0;
  for (let i = 0; i < n; i++) {
    const v = vertices[i];
    const out = tangent(v, vertices[(i + 1) % n]);
    const back = tangent(v, vertices[(i + n - 1) % n]);
    if (out === undefined || back === undefined) continue;
    // The angle turned counter-clockwise about v (seen from outside the sphere) from out to back.
    const a = Math.atan2(dot(v, cross(out, back)), dot(out, back));
    angles += a < 0 ? a + 2 * Math.PI : a;
  }
  const leftInside = angles - (n - 2) * Math.PI <= 2 * Math.PI;
  // A point a hair (1e-10 rad, under a millimetre) to the left of an edge's middle is on its left.
  const refs: SphericalRing['refs'] = [];
  for (let i = 0; i < n && refs.length < 2; i++) {
    const a = vertices[i];
    const b = vertices[(i + 1) % n];
    const normal = cross(a, b);
    if (dot(normal, normal) < 1e-24) continue;
    const left = normalized(normal);
    const mid = normalized([a[0] + b[0], a[1] + b[1], a[2] + b[2]]);
    refs.push({
      at: normalized([mid[0] + 1e-10 * left[0], mid[1] + 1e-10 * left[1], mid[2] + 1e-10 * left[2]]),
      inside: leftInside,
    });
  }
  return { vertices, refs };
}

/**
 * Do the minor arcs a→b and c→d cross? They do when c and d lie on either side of a→b's great
 * circle, a and b on either side of c→d's, and the two circles meet at the same one of their two
 * meeting points, which holds when d is on a→b's left exactly when a is on c→d's left. A point
 * exactly on the other's great circle counts as on its left: an arc through a vertex then crosses
 * one of its two edges if the ring passes there, and both or neither if it only touches, so the
 * count keeps its parity.
 */
function arcsCross(a: Vec3, b: Vec3, c: Vec3, d: Vec3): boolean {
  const n1 = cross(a, b);
  const dLeft = dot(n1, d) >= 0;
  if (dot(n1, c) >= 0 === dLeft) return false;
  const n2 = cross(c, d);
  const aLeft = dot(n2, a) >= 0;
  if (dot(n2, b) >= 0 === aLeft) return false;
  return dLeft === aLeft;
}

/**
 * Point in a spherical polygon's ring (edges are great-circle arcs): from a reference point whose
 * side is known, each edge the arc to p crosses changes the side. On a vertex p is inside.
 */
function inSphericalRing(p: Vec3, ring: SphericalRing): boolean {
  const { vertices } = ring;
  for (const v of vertices) if (tangent(p, v) === undefined && dot(p, v) > 0) return true;
  // The arc to a reference point at p's antipode has no direction: the other one is far from it.
  const ref = ring.refs.find((r) => dot(p, r.at) > -1 + 1e-12);
  if (ref === undefined) return false;
  let inside = ref.inside;
  for (let i = 0; i < vertices.length; i++) {
    if (arcsCross(p, ref.at, vertices[i], vertices[(i + 1) % vertices.length])) inside = !inside;
  }
  return inside;
}

function samePoint(a: Point, b: Point): boolean {
  return a[0] === b[0] && a[1] === b[1];
}

/** A GeoJSON vertex is a longitude and a latitude: MongoDB refuses one off the globe. */
function sphericalVertex(p: Point): Point {
  if (Math.abs(p[0]) > 180 || Math.abs(p[1]) > 90) {
    throw badValue(
      `Longitude/latitude is out of bounds, lng: ${p[0]} lat: ${p[1]}: longitude is -180 to 180, latitude -90 to 90`,
    );
  }
  return p;
}

function parseRings(rings: unknown): SphericalRing[] {
  if (!Array.isArray(rings) || rings.length === 0) throw badValue('Polygon coordinates must be an array of rings');
  return rings.map((ring) => {
    if (!Array.isArray(ring)) {
      throw badValue(
        `GeoJSON coordinates must be an array of coordinates, instead got type ${bsonTypeOf(ring)}: write each ring as [[lng, lat], ...]`,
      );
    }
    const points = ring.map((c) => sphericalVertex(pointArg(c, 'Polygon')));
    if (points.length === 0)
      throw badValue('Loop has no vertices: give at least 3 different vertices, the first repeated last');
    if (!samePoint(points[0], points[points.length - 1])) {
      throw badValue('Loop is not closed, first vertex does not equal last vertex: repeat the first vertex at the end');
    }
    // MongoDB counts a vertex repeated in a row once, and the closing one not at all.
    const distinct = points.filter((q, i) => i > 0 && !samePoint(q, points[i - 1]));
    if (distinct.length < 3) throw badValue('Loop must have at least 3 different vertices');
    return sphericalRing(points.map(toUnitVector));
  });
}

function sphericalPolygonTest(geometry: unknown): (p: Point) => boolean {
  if (!isPlainObject(geometry)) throw badValue('$geometry must be an object');
  const polygons: SphericalRing[][] = [];
  if (geometry.type === 'Polygon') polygons.push(parseRings(geometry.coordinates));
  else if (geometry.type === 'MultiPolygon' && Array.isArray(geometry.coordinates)) {
    for (const poly of geometry.coordinates) polygons.push(parseRings(poly));
  } else {
    throw badValue(`$geoWithin not supported with provided geometry: ${JSON.stringify(geometry)}`);
  }
  return (pt) => {
    const v = toUnitVector(pt);
    return polygons.some(([outer, ...holes]) => inSphericalRing(v, outer) && !holes.some((h) => inSphericalRing(v, h)));
  };
}

function sphericalDistance(a: Point, b: Point): number {
  return Math.acos(Math.min(1, Math.max(-1, dot(toUnitVector(a), toUnitVector(b)))));
}

function geoWithinPredicate(arg: unknown): ValuePredicate {
  if (!isPlainObject(arg)) throw badValue('$geoWithin needs an object');
  const keys = Object.keys(arg);
  if (keys.length !== 1) throw badValue('$geoWithin needs exactly one shape');
  const shape = keys[0];
  const spec = arg[shape];
  let contains: (p: Point) => boolean;
  let flat = true;
  switch (shape) {
    case '$box': {
      if (!Array.isArray(spec) || spec.length !== 2) throw badValue('malformed $box: needs two corner points');
      const [a, b] = [pointArg(spec[0], '$box'), pointArg(spec[1], '$box')];
      const [minX, maxX] = [Math.min(a[0], b[0]), Math.max(a[0], b[0])];
      const [minY, maxY] = [Math.min(a[1], b[1]), Math.max(a[1], b[1])];
      contains = (p) => p[0] >= minX && p[0] <= maxX && p[1] >= minY && p[1] <= maxY;
      break;
    }
    case '$polygon': {
      if (!Array.isArray(spec) || spec.length < 3) throw badValue('Polygon must have at least 3 points');
      const poly = spec.map((c) => pointArg(c, '$polygon'));
      contains = (p) => inPlanarPolygon(p, poly);
      break;
    }
    case '$center':
    case '$centerSphere': {
      if (!Array.isArray(spec) || spec.length !== 2) throw badValue(`malformed ${shape}: needs [center, radius]`);
      const center = pointArg(spec[0], shape);
      const r = numberOrUndefined(spec[1]);
      if (r === undefined || !(r >= 0)) throw badValue(`malformed ${shape}: radius must be a non-negative number`);
      if (shape === '$center') {
        contains = (p) => Math.hypot(p[0] - center[0], p[1] - center[1]) <= r;
      } else {
        flat = false;
        contains = (p) => sphericalDistance(center, p) <= r;
      }
      break;
    }
    case '$geometry':
      flat = false;
      contains = sphericalPolygonTest(spec);
      break;
    default:
      throw badValue(`unknown geo specifier: ${shape}`);
  }
  return (v) => {
    if (v === MISSING) return false;
    const g = geometryPoints(v);
    if (!g) return false;
    // Planar shapes contain only points; spherical ones contain a geometry when they contain all
    // of its vertices (exact for points; an approximation for lines and polygons).
    if (flat && !g.isPoint) return false;
    return g.points.every(contains);
  };
}
