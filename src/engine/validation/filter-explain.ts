/**
 * Why a document fails a query-language validator, in the shape of mongod's document validation
 * errors: `{operatorName: "$gt", specifiedAs: {a: {$gt: 5}}, reason: "comparison failed",
 * consideredValue: 3}`, `$or`/`$and` with `clausesNotSatisfied`, `$not` with its child's details
 * inverted. Whether a clause holds is always asked of the matcher itself (compileFilter), so the
 * explanation can never disagree with the decision; this module only describes.
 */
import { Int32 } from 'bson';
import { compileExpression } from '../query/expressions';
import { compileFilter } from '../query/matcher';
import { bsonTypeOf, isNumeric, isPlainObject, type Document } from '../values/types';
import { compileJsonSchema } from './json-schema';

/** One clause of an implicit or explicit $and: a top-level operator, or one operator on one path. */
interface Clause {
  filter: Document;
  explain(doc: Document, inverted: boolean): Document;
}

const NUMBER_TYPES = ['decimal', 'double', 'int', 'long'];

/** Details for a document `filter` does not match (or, `inverted`, does match). */
export function explainFilter(filter: Document, doc: Document, inverted = false): Document {
  const clauses = clausesOf(filter);
  if (clauses.length === 1) return clauses[0].explain(doc, inverted);
  return explainList('$and', clauses, doc, inverted);
}

function matches(filter: Document, doc: Document): boolean {
  return compileFilter(filter)(doc);
}

function clausesOf(filter: Document): Clause[] {
  const out: Clause[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$comment') continue;
    if (key.startsWith('$')) out.push(topLevelClause(key, value));
    else out.push(...fieldClauses(key, value));
  }
  return out;
}

/**
 * $and needs its failing clauses (matching ones when inverted), $or and $nor all of theirs: the
 * clause list says which of them made the difference.
 */
function explainList(op: '$and' | '$or' | '$nor', clauses: Clause[], doc: Document, inverted: boolean): Document {
  // $nor is an $or seen inverted.
  const flips = op === '$nor';
  const childInverted = flips ? !inverted : inverted;
  // In a normal context $and lists what failed; $or fails only when every clause failed.
  // Inverted, $and matched (every clause did), $or matched through the clauses that matched.
  const wantMatching = childInverted;
  const listed: Document[] = [];
  clauses.forEach((clause, index) => {
    if (matches(clause.filter, doc) === wantMatching)
      listed.push({ index: new Int32(index), details: clause.explain(doc, childInverted) });
  });
  const field = childInverted ? 'clausesSatisfied' : 'clausesNotSatisfied';
  return { operatorName: op, [field]: listed };
}

function topLevelClause(op: string, value: unknown): Clause {
  const filter = { [op]: value };
  switch (op) {
    case '$and':
    case '$or':
    case '$nor': {
      const children = (value as Document[]).map((c) => {
        const inner = clausesOf(c);
        const clause: Clause = {
          filter: c,
          explain: (doc, inv) =>
            inner.length === 1 ? inner[0].explain(doc, inv) : explainList('$and', inner, doc, inv),
        };
        return clause;
      });
      return { filter, explain: (doc, inv) => explainList(op, children, doc, inv) };
    }
    case '$expr':
      return {
        filter,
        explain(doc, inv) {
          const out: Document = { operatorName: '$expr', specifiedAs: filter };
          try {
            const result = compileExpression(value)(doc);
            out.reason = inv ? 'expression did match' : 'expression did not match';
            out.expressionResult = result === undefined ? null : result;
          } catch (err) {
            out.reason = 'failed to evaluate aggregation expression';
            const e = err as { code?: number; codeName?: string; message?: string };
            out.details = { code: e.code, codeName: e.codeName, errmsg: e.message };
          }
          return out;
        },
      };
    case '$jsonSchema': {
      const schema = compileJsonSchema(value);
      return {
        filter,
        explain: (doc, inv) => (inv ? { operatorName: '$jsonSchema', reason: 'schema matched' } : schema.explain(doc)),
      };
    }
    default:
      // $alwaysTrue / $alwaysFalse.
      return {
        filter,
        explain: (_doc, inv) => ({
          operatorName: op,
          specifiedAs: filter,
          reason: inv ? 'expression always evaluates to true' : 'expression always evaluates to false',
        }),
      };
  }
}

function isRegex(value: unknown): boolean {
  return value instanceof RegExp || bsonTypeOf(value) === 'regex';
}

function isOperatorObject(value: unknown): value is Document {
  if (!isPlainObject(value)) return false;
  const first = Object.keys(value)[0];
  return first !== undefined && first.startsWith('$');
}

function fieldClauses(path: string, condition: unknown): Clause[] {
  if (!isOperatorObject(condition)) {
    const filter = { [path]: condition };
    const op = isRegex(condition) ? '$regex' : '$eq';
    return [{ filter, explain: (doc, inv) => leafDetails(op, filter, path, doc, inv) }];
  }
  const out: Clause[] = [];
  for (const [op, arg] of Object.entries(condition)) {
    if (op === '$options') continue;
    const operand: Document = { [op]: arg };
    if (op === '$regex' && condition.$options !== undefined) operand.$options = condition.$options;
    const filter = { [path]: operand };
    if (op === '$not') {
      const inner = fieldClauses(path, arg);
      out.push({
        filter,
        explain: (doc, inv) => ({
          operatorName: '$not',
          details: inner.length === 1 ? inner[0].explain(doc, !inv) : explainList('$and', inner, doc, !inv),
        }),
      });
      continue;
    }
    out.push({ filter, explain: (doc, inv) => leafDetails(op, filter, path, doc, inv) });
  }
  return out;
}

interface LeafKind {
  reason: string;
  invertedReason: string;
  expected?: string[];
  /** Operators that look at an array itself ($size, $all, $elemMatch) rather than its elements. */
  wholeArrays?: boolean;
  /** $ne, $nin and $exists: false are the inverted form of $eq, $in, $exists: true. */
  negation?: boolean;
}

const COMPARISON: LeafKind = { reason: 'comparison failed', invertedReason: 'comparison succeeded' };

function leafKind(op: string, arg: unknown): LeafKind {
  switch (op) {
    case '$eq':
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return COMPARISON;
    case '$ne':
      return { ...COMPARISON, negation: true };
    case '$in':
      return { reason: 'no matching value found in array', invertedReason: 'matching value found in array' };
    case '$nin':
      return {
        reason: 'no matching value found in array',
        invertedReason: 'matching value found in array',
        negation: true,
      };
    case '$exists': {
      const wanted = arg === true || (isNumeric(arg) && Number(arg) !== 0);
      return { reason: 'path does not exist', invertedReason: 'path does exist', negation: !wanted };
    }
    case '$type':
      return { reason: 'type did not match', invertedReason: 'type did match' };
    case '$regex':
      return {
        reason: 'regular expression did not match',
        invertedReason: 'regular expression did match',
        expected: ['regex', 'string', 'symbol'],
      };
    case '$mod':
      return {
        reason: '$mod did not evaluate to expected remainder',
        invertedReason: '$mod did evaluate to expected remainder',
        expected: NUMBER_TYPES,
      };
    case '$size':
      return {
        reason: 'array length was not equal to given size',
        invertedReason: 'array length was equal to given size',
        expected: ['array'],
        wholeArrays: true,
      };
    case '$all':
      return {
        reason: 'array did not contain all specified values',
        invertedReason: 'array did contain all specified values',
        wholeArrays: true,
      };
    case '$elemMatch':
      return {
        reason: 'array did not satisfy the child predicate',
        invertedReason: 'array did satisfy the child predicate',
        expected: ['array'],
        wholeArrays: true,
      };
    case '$bitsAllSet':
    case '$bitsAllClear':
    case '$bitsAnySet':
    case '$bitsAnyClear':
      return {
        reason: 'bitwise operator failed to match',
        invertedReason: 'bitwise operator matched successfully',
        expected: ['binData', ...NUMBER_TYPES],
      };
    case '$geoWithin':
      return {
        reason: 'none of the considered geometries were contained within the expression’s geometry',
        invertedReason: 'at least one of considered geometries was contained within the expression’s geometry',
      };
    case '$geoIntersects':
      return {
        reason: 'none of the considered geometries intersected the expression’s geometry',
        invertedReason: 'at least one of considered geometries intersected the expression’s geometry',
      };
    default:
      return COMPARISON;
  }
}

function leafDetails(op: string, specifiedAs: Document, path: string, doc: Document, inverted: boolean): Document {
  const kind = leafKind(op, (specifiedAs[path] as Document | undefined)?.[op]);
  const out: Document = { operatorName: op, specifiedAs };
  // A negation is its positive form seen inverted: "$ne failed" means "$eq succeeded".
  const invertedHere = kind.negation ? !inverted : inverted;
  const values = valuesAt(doc, path, kind.wholeArrays === true);
  if (values === undefined) {
    out.reason = op === '$exists' ? (invertedHere ? kind.invertedReason : kind.reason) : 'field was missing';
    return out;
  }
  if (kind.expected && !invertedHere && !values.some((v) => kind.expected!.includes(bsonTypeOf(v)))) {
    out.reason = 'type did not match';
    appendTypes(out, values);
    if (kind.expected.length === 1) out.expectedType = kind.expected[0];
    else out.expectedTypes = kind.expected;
    appendValues(out, values);
    return out;
  }
  out.reason = invertedHere ? kind.invertedReason : kind.reason;
  appendValues(out, values);
  if (op === '$type') appendTypes(out, values);
  return out;
}

function appendValues(out: Document, values: unknown[]): void {
  if (values.length === 1) out.consideredValue = values[0];
  else out.consideredValues = values;
}

function appendTypes(out: Document, values: unknown[]): void {
  if (values.length === 0) return;
  const types = [...new Set(values.map((v) => bsonTypeOf(v)))].sort();
  if (types.length === 1) out.consideredType = types[0];
  else out.consideredTypes = types;
}

/**
 * The values a path reaches, arrays on the way traversed; a leaf array gives its elements (or
 * itself, for operators on whole arrays). Undefined when the path reaches nothing at all.
 */
function valuesAt(doc: Document, path: string, wholeArrays: boolean): unknown[] | undefined {
  const out: unknown[] = [];
  let found = false;
  const walk = (value: unknown, parts: string[], i: number): void => {
    if (i === parts.length) {
      found = true;
      if (Array.isArray(value) && !wholeArrays) out.push(...value);
      else out.push(value);
      return;
    }
    if (Array.isArray(value)) {
      const index = /^\d+$/.test(parts[i]) ? Number(parts[i]) : -1;
      if (index >= 0 && index < value.length) walk(value[index], parts, i + 1);
      for (const element of value) if (isPlainObject(element)) walk(element, parts, i);
      return;
    }
    if (isPlainObject(value) && Object.hasOwn(value, parts[i])) walk(value[parts[i]], parts, i + 1);
  };
  walk(doc, path.split('.'), 0);
  return found ? out : undefined;
}
