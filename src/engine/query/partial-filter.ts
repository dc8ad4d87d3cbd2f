/**
 * Validation of an index's partialFilterExpression (docs/ttl-rules.md section 8).
 *
 * mongod parses the filter like any query (so parse errors and banned features such as $expr
 * surface with the matcher's codes, rule 8.2) and then walks the parsed expression tree, accepting
 * only a small set of node types (rule 8.1) down to a maximum depth (rule 8.3). This module mirrors
 * that tree: it rebuilds the shape mongod's parser produces (an implicit top-level AND with one
 * child collapses to the child; several operators on one field become siblings in the enclosing
 * AND) so depth counts the same way.
 */
import { EngineError, ErrorCode } from '../errors';
import { toDouble } from '../values/numbers';
import { bsonTypeOf, isNumeric, isPlainObject, type Document } from '../values/types';
import { compileFilter } from './matcher';

/** mongod's internalPartialFilterExpressionMaxDepth default (rule 8.3). */
export const PARTIAL_FILTER_MAX_DEPTH = 4;

/** Leaf operators a partial filter may use (rule 8.1); $exists only with a true argument. */
const ALLOWED_FIELD_OPERATORS = new Set(['$eq', '$gt', '$gte', '$lt', '$lte', '$in', '$type', '$geoWithin', '$within']);

type FilterNode =
  { kind: 'and' | 'or'; children: FilterNode[] } | { kind: 'allowed' } | { kind: 'unsupported'; text: string };

/**
 * Throws EngineError unless `filter` is a valid partialFilterExpression: 14 TypeMismatch for a
 * non-object (rule 8.4), the matcher's error for a filter that does not parse (rule 8.2), and 67
 * CannotCreateIndex for an unsupported expression (rule 8.1) or one nested too deep (rule 8.3).
 */
export function validatePartialFilterExpression(filter: unknown): void {
  if (!isPlainObject(filter)) {
    throw new EngineError(
      ErrorCode.TypeMismatch,
      `The field 'partialFilterExpression' must be an object, but got ${bsonTypeOf(filter)}`,
    );
  }
  rejectSpecialFeatures(filter);
  compileFilter(filter);
  checkNode(collapse(parseDocument(filter)), 0);
}

/** Index filters ban $expr like mongod's parser does for them (rule 8.2), at any depth. */
function rejectSpecialFeatures(value: unknown): void {
  if (Array.isArray(value)) {
    value.forEach(rejectSpecialFeatures);
    return;
  }
  if (!isPlainObject(value)) return;
  for (const [key, sub] of Object.entries(value)) {
    if (key === '$expr')
      throw new EngineError(
        ErrorCode.QueryFeatureNotAllowed,
        '$expr is not allowed in this context: a partialFilterExpression cannot use aggregation expressions.',
      );
    rejectSpecialFeatures(sub);
  }
}

function checkNode(node: FilterNode, level: number): void {
  if (level + 1 > PARTIAL_FILTER_MAX_DEPTH) {
    throw new EngineError(
      ErrorCode.CannotCreateIndex,
      `partialFilterExpression depth may not exceed ${PARTIAL_FILTER_MAX_DEPTH}`,
    );
  }
  switch (node.kind) {
    case 'and':
    case 'or':
      for (const child of node.children) checkNode(child, level + 1);
      return;
    case 'allowed':
      return;
    case 'unsupported':
      throw new EngineError(ErrorCode.CannotCreateIndex, `Expression not supported in partial index: ${node.text}`);
  }
}

/** A document's conditions as parsed: one AND, unless it holds exactly one condition. */
function collapse(nodes: FilterNode[]): FilterNode {
  return nodes.length === 1 ? nodes[0] : { kind: 'and', children: nodes };
}

function parseDocument(filter: Document): FilterNode[] {
  const nodes: FilterNode[] = [];
  for (const key of Object.keys(filter)) {
    const value = filter[key];
    switch (key) {
      case '$and':
      case '$or':
        // compileFilter has already checked these are non-empty arrays of objects.
        nodes.push({
          kind: key === '$and' ? 'and' : 'or',
          children: (value as Document[]).map((clause) => collapse(parseDocument(clause))),
        });
        break;
      case '$comment':
        break; // constrains nothing and leaves no node in the tree
      default:
        if (key.startsWith('$')) nodes.push(unsupported(`${key}: ${describe(value)}`));
        else parseField(key, value, nodes);
    }
  }
  return nodes;
}

function parseField(path: string, value: unknown, nodes: FilterNode[]): void {
  if (value instanceof RegExp || bsonTypeOf(value) === 'regex') {
    nodes.push(unsupported(`${path} regex ${describe(value)}`));
    return;
  }
  if (!isOperatorObject(value)) {
    nodes.push({ kind: 'allowed' }); // implicit equality
    return;
  }
  for (const op of Object.keys(value)) {
    const arg = value[op];
    if (op === '$options') continue; // belongs to $regex, which is reported instead
    const allowed = ALLOWED_FIELD_OPERATORS.has(op) || (op === '$exists' && truthy(arg));
    nodes.push(allowed ? { kind: 'allowed' } : unsupported(`${path} ${op} ${describe(arg)}`));
  }
}

function unsupported(text: string): FilterNode {
  return { kind: 'unsupported', text };
}

function isOperatorObject(value: unknown): value is Document {
  if (!isPlainObject(value)) return false;
  const first = Object.keys(value)[0];
  return first !== undefined && first.startsWith('$') && !('$ref' in value && '$id' in value);
}

/** $exists: false (or 0, null) parses to NOT(exists), which a partial filter may not hold. */
function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false;
  return isNumeric(v) ? toDouble(v) !== 0 : true;
}

/** Readable rendering of an operand for the error message (bson values by their string form). */
function describe(value: unknown): string {
  if (value instanceof RegExp) return String(value);
  try {
    return (
      JSON.stringify(value, (_key, v: unknown) => {
        if (typeof v === 'bigint') return v.toString();
        if (v !== null && typeof v === 'object' && '_bsontype' in v) return String(v);
        return v;
      }) ?? String(value)
    );
  } catch {
    return String(value);
  }
}
