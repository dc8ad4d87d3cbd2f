/**
 * find() and findAndModify projections compiled into functions that build the projected copy of a
 * document.
 *
 * The specification is parsed once, with mongod's (4.4+) rules, into a tree of paths:
 * - `1`/`true` (any non-zero number) includes, `0`/`false` excludes; a projection is either an
 *   inclusion or an exclusion, except that `_id` may be excluded from an inclusion (and included in
 *   an exclusion, where it changes nothing). `_id` is included unless excluded or given a value.
 * - `{a: {b: 1}}` means `{"a.b": 1}`; a path may not be projected twice or under another projected
 *   path ("Path collision").
 * - Any other value is an aggregation expression evaluated against the whole document: a literal
 *   (`{a: "x"}`, `{a: null}`, an array), a field path (`{a: "$b"}`), an operator (`{a: {$add: ...}}`,
 *   `{$literal: ...}`). It makes the projection an inclusion.
 * - `{a: {$slice: n | [skip, limit]}}`, `{a: {$elemMatch: {...}}}` and the positional `"a.$": 1`
 *   are find-only operators; `$slice` alone keeps the projection an exclusion, `$elemMatch`
 *   (top-level fields only) makes it an inclusion. A `$slice` that is not of the find form is the
 *   aggregation operator (`{$slice: ["$a", 1, 2]}`).
 * - `$meta` is refused: this engine computes no text or search metadata.
 *
 * Applying an inclusion takes three passes, as mongod does: the included fields in the document's
 * own order; then the computed fields ($elemMatch among them) in the specification's order, each
 * keeping its place when the field is already there; then the positional operator on the result.
 * Through arrays, an inclusion keeps only the documents (and nested arrays) of the array,
 * projected; an exclusion keeps every element and projects the documents. The result never shares
 * a mutable value with the input.
 */
import { EngineError, ErrorCode } from '../errors';
import { cloneValue } from '../values/clone';
import { formatValue } from '../values/format';
import { toDouble } from '../values/numbers';
import { bsonTypeOf, isNumeric, isPlainObject, type Document } from '../values/types';
import { compileExpression, isExpressionOperator, type CompiledExpression, type Vars } from './expressions';
import { compileFilter, compileMatchedPosition } from './matcher';
import { validateFieldPath } from './sort';

export type Projector = (doc: Document) => Document;

export interface ProjectionOptions {
  /** The query filter of the find: the positional operator projects the element it matched. */
  query?: Document;
  /** Variables the projection's expressions see ($$NOW). */
  vars?: Vars;
}

type Leaf =
  | { kind: 'include' }
  | { kind: 'exclude' }
  | { kind: 'slice'; skip: number | undefined; limit: number }
  | { kind: 'elemMatch'; field: string; test: (doc: Document) => boolean }
  | { kind: 'compute'; fn: CompiledExpression };

class PathNode {
  readonly children = new Map<string, PathNode | Leaf>();
  /** Whether a computed field ($elemMatch included) lies below: the second pass visits only those. */
  computes = false;
}

interface ParseContext {
  query: Document | undefined;
  type?: 'inclusion' | 'exclusion';
  idSpecified: boolean;
  idIncluded: boolean;
  idExcluded: boolean;
  hasSlice: boolean;
  hasElemMatch: boolean;
  /** The full path of the positional projection, without its `.$`. */
  positional?: string[];
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Compile a projection; undefined (or {}) means "the whole document". */
export function compileProjection(
  projection: Document | undefined,
  options: ProjectionOptions = {},
): Projector | undefined {
  if (projection === undefined || projection === null) return undefined;
  if (!isPlainObject(projection)) {
    throw new EngineError(ErrorCode.TypeMismatch, `projection must be an object, not ${bsonTypeOf(projection)}`);
  }
  if (Object.keys(projection).length === 0) return undefined;
  const root = new PathNode();
  const ctx: ParseContext = {
    query: options.query,
    idSpecified: false,
    idIncluded: false,
    idExcluded: false,
    hasSlice: false,
    hasElemMatch: false,
  };
  for (const key of Object.keys(projection)) {
    if (key === '_id' || key.startsWith('_id.')) ctx.idSpecified = true;
    parseElement(ctx, key, projection[key], root, '');
  }
  const type = ctx.type ?? defaultType(ctx);
  if (type === 'exclusion') {
    if (ctx.idIncluded) root.children.delete('_id');
    return (doc) => projectExclusion(doc, root);
  }
  if (!ctx.idSpecified) addAtPath(root, '_id', { kind: 'include' });
  markComputes(root);
  const vars = options.vars ?? {};
  const positional = ctx.positional;
  const matchedPosition = positional && compileMatchedPosition(ctx.query ?? {});
  return (doc) => {
    const out = projectInclusion(doc, root);
    if (root.computes) computeFields(root, out, doc, vars);
    if (positional && matchedPosition) applyPositional(out, positional, matchedPosition(doc));
    return out;
  };
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/**
 * The type of a projection with no plain inclusion, exclusion or expression (mongod's
 * compatibility rules): a $slice makes it an exclusion unless `_id: 1` is given, an $elemMatch makes
 * it an inclusion, a lone `_id: 1` is an inclusion, anything else an exclusion.
 */
function defaultType(ctx: ParseContext): 'inclusion' | 'exclusion' {
  if (ctx.hasSlice) return ctx.idIncluded ? 'inclusion' : 'exclusion';
  if (ctx.hasElemMatch) return 'inclusion';
  return ctx.idIncluded ? 'inclusion' : 'exclusion';
}

/** Where the first positional operator of a key is: `a.$` (at the end), `a.$.b`, or a bare `$`. */
function positionalAt(key: string): number | undefined {
  const middle = key.indexOf('.$.');
  if (middle >= 0) return middle;
  if (key.endsWith('.$')) return key.length - 2;
  if (key === '$') return 0;
  return undefined;
}

function parseElement(ctx: ParseContext, key: string, value: unknown, parent: PathNode, prefix: string): void {
  const positional = positionalAt(key);
  if (positional !== undefined && key.includes('.$.')) {
    throw new EngineError(
      31394,
      "As of 4.4, it's illegal to specify positional operator in the middle of a path.Positional projection may only be used at the end, for example: a.b.$. If the query previously used a form like a.b.$.d, remove the parts following the '$' and the results will be equivalent.",
    );
  }
  if (isPlainObject(value)) {
    if (positional !== undefined)
      throw new EngineError(31271, 'positional projection cannot be used with an expression or sub object');
    parseSubObject(ctx, key, value, parent, prefix);
    return;
  }
  if (typeof value === 'boolean' || isNumeric(value)) {
    const include = typeof value === 'boolean' ? value : toDouble(value) !== 0;
    if (include) parseInclusion(ctx, key, parent, prefix, positional);
    else parseExclusion(ctx, key, parent, prefix);
    return;
  }
  if (positional !== undefined) throw new EngineError(31308, 'positional projection cannot be used with a literal');
  // Anything else is a literal, a field path or an array, which mongod evaluates as an expression.
  addAtPath(parent, key, { kind: 'compute', fn: compileExpression(value) });
  if (ctx.type === 'exclusion') {
    throw new EngineError(31310, `Cannot use an expression ${key}: ${formatValue(value)} in an exclusion projection`);
  }
  ctx.type = 'inclusion';
}

function parseInclusion(
  ctx: ParseContext,
  key: string,
  parent: PathNode,
  prefix: string,
  positional: number | undefined,
): void {
  const isTopLevelId = prefix === '' && key === '_id';
  if (positional === undefined) {
    addAtPath(parent, key, { kind: 'include' });
    if (isTopLevelId) ctx.idIncluded = true;
  } else {
    if (ctx.positional) throw new EngineError(31276, 'Cannot specify more than one positional projection per query.');
    if (ctx.hasElemMatch) throw new EngineError(31256, 'Cannot specify positional operator and $elemMatch.');
    const fullKey = prefix ? `${prefix}.${key}` : key;
    const matchField = fullKey.split('.')[0];
    if (!ctx.query) throw new EngineError(51050, 'Projections with a positional operator require a matcher');
    if (!queryTestsField(ctx.query, matchField)) {
      throw new EngineError(
        31277,
        `Positional projection '${key}' does not match the query document: the query needs a condition on ${matchField}, whose matching element the projection returns.`,
      );
    }
    const path = key.slice(0, positional);
    if (positionalAt(key.slice(positional + 2)) !== undefined || key.slice(positional + 2) === '$')
      throw new EngineError(31287, `Cannot use positional operator twice: ${key}`);
    addAtPath(parent, path, { kind: 'include' });
    ctx.positional = validateFieldPath(prefix ? `${prefix}.${path}` : path);
  }
  if (!isTopLevelId) {
    if (ctx.type === 'exclusion')
      throw new EngineError(ErrorCode.Location31253, `Cannot do inclusion on field ${key} in exclusion projection`);
    ctx.type = 'inclusion';
  }
}

function parseExclusion(ctx: ParseContext, key: string, parent: PathNode, prefix: string): void {
  addAtPath(parent, key, { kind: 'exclude' });
  if (prefix === '' && key === '_id') {
    ctx.idExcluded = true;
    return;
  }
  if (ctx.type === 'inclusion')
    throw new EngineError(ErrorCode.Location31254, `Cannot do exclusion on field ${key} in inclusion projection`);
  ctx.type = 'exclusion';
}

/** Whether the query has a condition (under $and/$or/$nor too) on `field` or a path below it. */
function queryTestsField(query: Document, field: string): boolean {
  for (const key of Object.keys(query)) {
    const value = query[key];
    if (key === '$and' || key === '$or' || key === '$nor') {
      if (Array.isArray(value) && value.some((c) => isPlainObject(c) && queryTestsField(c, field))) return true;
    } else if (!key.startsWith('$') && key.split('.')[0] === field) {
      return true;
    }
  }
  return false;
}

function parseSubObject(ctx: ParseContext, key: string, spec: Document, parent: PathNode, prefix: string): void {
  const keys = Object.keys(spec);
  if (keys.length === 1 && keys[0].startsWith('$')) {
    parseOperator(ctx, key, keys[0], spec, parent, prefix);
    return;
  }
  if (keys.length === 0) {
    throw new EngineError(51270, `An empty sub-projection is not a valid value. Found empty object at path ${key}`);
  }
  // A nested projection: {a: {b: 1}} is {"a.b": 1}.
  const node = internalNodeAt(parent, key);
  const path = prefix ? `${prefix}.${key}` : key;
  for (const subKey of keys) parseElement(ctx, subKey, spec[subKey], node, path);
}

function parseOperator(
  ctx: ParseContext,
  key: string,
  op: string,
  spec: Document,
  parent: PathNode,
  prefix: string,
): void {
  const arg = spec[op];
  switch (op) {
    case '$slice': {
      let leaf: Leaf;
      try {
        leaf = parseSlice(arg);
      } catch (findSyntax) {
        // Not the find form: it may be the aggregation operator ({$slice: ["$a", 1, 2]}), when the
        // engine has it; if not, the find syntax error is the whole story.
        if (!isExpressionOperator(op)) throw findSyntax;
        parseExpression(ctx, key, spec, parent, findSyntax);
        return;
      }
      addAtPath(parent, key, leaf);
      ctx.hasSlice = true;
      return;
    }
    case '$elemMatch': {
      if (!isPlainObject(arg)) {
        throw new EngineError(31274, `elemMatch: Invalid argument, object required, but got ${bsonTypeOf(arg)}`);
      }
      if (ctx.positional) throw new EngineError(31255, 'Cannot specify positional operator and $elemMatch.');
      if (prefix !== '' || key.includes('.')) {
        throw new EngineError(31275, 'Cannot use $elemMatch projection on a nested field.');
      }
      const test = compileFilter({ [key]: { $elemMatch: arg } });
      addAtPath(parent, key, { kind: 'elemMatch', field: key, test });
      ctx.hasElemMatch = true;
      return;
    }
    case '$meta':
      throw new EngineError(
        ErrorCode.BadValue,
        `The projection ${key}: {$meta: ${formatValue(arg)}} is not supported: this engine computes no text or search metadata.`,
      );
    default:
      // mongod reads {$name: ...} as an expression when $name is one, else as a field name, which
      // may not start with '$'.
      if (!isExpressionOperator(op)) throw new EngineError(31325, `Unknown expression ${op}`);
      parseExpression(ctx, key, spec, parent, undefined);
  }
}

function parseExpression(
  ctx: ParseContext,
  key: string,
  spec: Document,
  parent: PathNode,
  findSliceError: unknown,
): void {
  if (ctx.type === 'exclusion')
    throw new EngineError(31252, 'Cannot use expression other than $meta in exclusion projection');
  let fn: CompiledExpression;
  try {
    fn = compileExpression(spec);
  } catch (err) {
    if (findSliceError instanceof EngineError && err instanceof EngineError) {
      throw new EngineError(
        err.code,
        `Invalid $slice syntax. The given syntax ${formatValue(spec)} did not match the find() syntax because :: ${findSliceError.codeName}: ${findSliceError.message} :: The given syntax did not match the expression $slice syntax. :: caused by :: ${err.message}`,
      );
    }
    throw err;
  }
  ctx.type = 'inclusion';
  addAtPath(parent, key, { kind: 'compute', fn });
}

/** mongod truncates $slice arguments to 32-bit integers. */
function toInt32(value: unknown): number {
  const n = Math.trunc(toDouble(value));
  if (Number.isNaN(n)) return 0;
  return Math.max(-2147483648, Math.min(2147483647, n));
}

function parseSlice(arg: unknown): Leaf {
  if (isNumeric(arg)) return { kind: 'slice', skip: undefined, limit: toInt32(arg) };
  if (!Array.isArray(arg)) {
    throw new EngineError(31273, '$slice only supports numbers and [skip, limit] arrays');
  }
  if (arg.length !== 2) throw new EngineError(31272, '$slice array argument should be of form [skip, limit]');
  const [skip, limit] = arg;
  if (!isNumeric(skip)) {
    throw new EngineError(31257, `$slice expects the skip argument to be a number, got ${bsonTypeOf(skip)}`);
  }
  if (!isNumeric(limit)) {
    throw new EngineError(31258, `$slice expects the limit argument to be a number, got ${bsonTypeOf(limit)}`);
  }
  const n = toInt32(limit);
  if (n <= 0) throw new EngineError(31259, `$slice limit must be positive, got ${n}`);
  return { kind: 'slice', skip: toInt32(skip), limit: n };
}

/** Add a leaf at a (possibly dotted) path below `parent`, refusing collisions as mongod does. */
function addAtPath(parent: PathNode, key: string, leaf: Leaf): void {
  const parts = validateFieldPath(key);
  let node = parent;
  for (let i = 0; i < parts.length - 1; i++) {
    const child = node.children.get(parts[i]);
    if (child === undefined) {
      const created = new PathNode();
      node.children.set(parts[i], created);
      node = created;
    } else if (child instanceof PathNode) {
      node = child;
    } else {
      throw new EngineError(31249, `Path collision at ${key} remaining portion ${parts.slice(1).join('.')}`);
    }
  }
  const last = parts[parts.length - 1];
  if (node.children.has(last)) throw new EngineError(31250, `Path collision at ${key}`);
  node.children.set(last, leaf);
}

/** The internal node for a (possibly dotted) sub-projection key, created if needed. */
function internalNodeAt(parent: PathNode, key: string): PathNode {
  const parts = validateFieldPath(key);
  let node = parent;
  for (const part of parts) {
    const child = node.children.get(part);
    if (child === undefined) {
      const created = new PathNode();
      node.children.set(part, created);
      node = created;
    } else if (child instanceof PathNode) {
      node = child;
    } else {
      throw new EngineError(31250, `Path collision at ${key}`);
    }
  }
  return node;
}

// ---------------------------------------------------------------------------------------------
// Applying
// ---------------------------------------------------------------------------------------------

function setOwn(obj: Document, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

function projectInclusion(doc: Document, node: PathNode): Document {
  const out: Document = {};
  for (const key of Object.keys(doc)) {
    const spec = node.children.get(key);
    if (spec === undefined) continue;
    const value = doc[key];
    if (value === undefined) continue;
    if (spec instanceof PathNode) {
      if (isPlainObject(value)) setOwn(out, key, projectInclusion(value, spec));
      else if (Array.isArray(value)) setOwn(out, key, projectInclusionArray(value, spec));
      // A scalar cannot hold the projected sub-fields: the field is left out.
      continue;
    }
    switch (spec.kind) {
      case 'include':
        setOwn(out, key, cloneValue(value));
        break;
      case 'slice':
        setOwn(out, key, sliceValue(value, spec));
        break;
      case 'exclude':
      case 'elemMatch':
      case 'compute':
        break; // _id: 0, or computed in the second pass
    }
  }
  return out;
}

/** Inclusion through an array keeps its documents (projected) and nested arrays, drops scalars. */
function projectInclusionArray(arr: unknown[], node: PathNode): unknown[] {
  const out: unknown[] = [];
  for (const el of arr) {
    if (isPlainObject(el)) out.push(projectInclusion(el, node));
    else if (Array.isArray(el)) out.push(projectInclusionArray(el, node));
  }
  return out;
}

function projectExclusion(doc: Document, node: PathNode): Document {
  const out: Document = {};
  for (const key of Object.keys(doc)) {
    const value = doc[key];
    if (value === undefined) continue;
    const spec = node.children.get(key);
    if (spec === undefined) {
      setOwn(out, key, cloneValue(value));
      continue;
    }
    if (spec instanceof PathNode) {
      if (isPlainObject(value)) setOwn(out, key, projectExclusion(value, spec));
      else if (Array.isArray(value)) setOwn(out, key, projectExclusionArray(value, spec));
      else setOwn(out, key, cloneValue(value));
      continue;
    }
    switch (spec.kind) {
      case 'exclude':
        break;
      case 'include':
        setOwn(out, key, cloneValue(value));
        break;
      case 'slice':
        setOwn(out, key, sliceValue(value, spec));
        break;
      case 'elemMatch': {
        const match = firstMatch(doc, spec);
        if (match !== undefined) setOwn(out, key, [cloneValue(match)]);
        break;
      }
      case 'compute':
        break; // an exclusion has no computed fields (refused when parsed)
    }
  }
  return out;
}

/** Exclusion through an array keeps every element, projecting the documents. */
function projectExclusionArray(arr: unknown[], node: PathNode): unknown[] {
  return arr.map((el) => {
    if (isPlainObject(el)) return projectExclusion(el, node);
    if (Array.isArray(el)) return projectExclusionArray(el, node);
    return cloneValue(el);
  });
}

/** $slice: n first (negative: last) elements, or [skip, limit]; non-arrays are left as they are. */
function sliceValue(value: unknown, spec: Extract<Leaf, { kind: 'slice' }>): unknown {
  if (!Array.isArray(value)) return cloneValue(value);
  const len = value.length;
  let start: number;
  let end: number;
  if (spec.skip === undefined) {
    if (spec.limit >= 0) {
      start = 0;
      end = Math.min(spec.limit, len);
    } else {
      start = Math.max(0, len + spec.limit);
      end = len;
    }
  } else {
    start = spec.skip >= 0 ? Math.min(spec.skip, len) : Math.max(0, len + spec.skip);
    end = Math.min(len, start + spec.limit);
  }
  const out = new Array<unknown>(end - start);
  for (let i = start; i < end; i++) out[i - start] = cloneValue(value[i]);
  return out;
}

/** The first element of the array field that satisfies the $elemMatch (projected as a one-element array). */
function firstMatch(doc: Document, leaf: Extract<Leaf, { kind: 'elemMatch' }>): unknown {
  const value = hasOwn.call(doc, leaf.field) ? doc[leaf.field] : undefined;
  if (!Array.isArray(value)) return undefined;
  for (const el of value) {
    const probe: Document = {};
    setOwn(probe, leaf.field, [el]);
    if (leaf.test(probe)) return el;
  }
  return undefined;
}

function markComputes(node: PathNode): boolean {
  let computes = false;
  for (const child of node.children.values()) {
    if (child instanceof PathNode) {
      if (markComputes(child)) computes = true;
    } else if (child.kind === 'compute' || child.kind === 'elemMatch') {
      computes = true;
    }
  }
  node.computes = computes;
  return computes;
}

/**
 * The second pass of an inclusion, in specification order: a field already there keeps its place;
 * a missing result ($$REMOVE, a missing path) removes the field; a computed path through a scalar
 * replaces it with a subdocument, and through an array applies to each element. Expressions always
 * read the whole input document. `out` is the projection's own copy, so it is changed in place.
 */
function computeFields(node: PathNode, out: Document, root: Document, vars: Vars): void {
  for (const [key, child] of node.children) {
    if (child instanceof PathNode) {
      if (child.computes)
        setOwn(out, key, computeInValue(child, hasOwn.call(out, key) ? out[key] : undefined, root, vars));
      continue;
    }
    let value: unknown;
    if (child.kind === 'compute') value = child.fn(root, vars);
    else if (child.kind === 'elemMatch') {
      const match = firstMatch(root, child);
      value = match === undefined ? undefined : [match];
    } else continue;
    if (value === undefined) delete out[key];
    else setOwn(out, key, cloneValue(value));
  }
}

function computeInValue(node: PathNode, value: unknown, root: Document, vars: Vars): unknown {
  if (Array.isArray(value)) return value.map((el) => computeInValue(node, el, root, vars));
  const out: Document = isPlainObject(value) ? value : {};
  computeFields(node, out, root, vars);
  return out;
}

/**
 * The positional operator: the first array on the path (in the projected document) becomes the
 * one-element array of the element the query matched (mongod's order of passes: it comes last).
 */
function applyPositional(out: Document, parts: readonly string[], matched: string | undefined): void {
  let sub: Document = out;
  for (const part of parts) {
    const value = hasOwn.call(sub, part) ? sub[part] : undefined;
    if (Array.isArray(value)) {
      if (matched === undefined)
        throw new EngineError(51246, "positional operator '.$' couldn't find a matching element in the array");
      const index = Number(matched);
      if (index >= value.length) throw new EngineError(51247, "positional operator '.$' element mismatch");
      setOwn(sub, part, [value[index]]);
      return;
    }
    if (isPlainObject(value)) sub = value;
  }
}
