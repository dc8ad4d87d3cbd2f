/**
 * find() projections compiled into functions that build the projected copy of a document.
 *
 * The specification is parsed once, with mongod's (4.4+) rules, into a tree of paths:
 * - `1`/`true` (any non-zero number) includes, `0`/`false` excludes; a projection is either an
 *   inclusion or an exclusion, except that `_id` may be excluded from an inclusion (and included in
 *   an exclusion, where it changes nothing). `_id` is included unless excluded.
 * - `{a: {b: 1}}` means `{"a.b": 1}`; a path may not be projected twice or under another projected
 *   path ("Path collision").
 * - `{a: {$slice: n | [skip, limit]}}` and `{a: {$elemMatch: {...}}}` are find-only operators;
 *   `$slice` alone keeps the projection an exclusion, `$elemMatch` (top-level fields only) makes it
 *   an inclusion and its field comes after the other included fields.
 * - Literal and expression values (`{a: "x"}`, `{a: {$add: ...}}`), `$meta` and the positional
 *   `a.$` are refused with a clear BadValue: this engine does not evaluate them.
 *
 * Applying walks the document in its own field order. Through arrays, an inclusion keeps only the
 * documents (and nested arrays) of the array, projected; an exclusion keeps every element and
 * projects the documents. The result never shares a mutable value with the input.
 */
import { EngineError, ErrorCode } from '../errors';
import { cloneValue } from '../values/clone';
import { formatValue } from '../values/format';
import { toDouble } from '../values/numbers';
import { bsonTypeOf, isNumeric, isPlainObject, type Document } from '../values/types';
import { compileFilter } from './matcher';
import { validateFieldPath } from './sort';

export type Projector = (doc: Document) => Document;

type Leaf =
  | { kind: 'include' }
  | { kind: 'exclude' }
  | { kind: 'slice'; skip: number | undefined; limit: number }
  | { kind: 'elemMatch'; field: string; test: (doc: Document) => boolean };

class PathNode {
  readonly children = new Map<string, PathNode | Leaf>();
}

interface ParseContext {
  type?: 'inclusion' | 'exclusion';
  idSpecified: boolean;
  idIncluded: boolean;
  idExcluded: boolean;
  hasSlice: boolean;
  hasElemMatch: boolean;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Compile a projection; undefined (or {}) means "the whole document". */
export function compileProjection(projection: Document | undefined): Projector | undefined {
  if (projection === undefined || projection === null) return undefined;
  if (!isPlainObject(projection)) {
    throw new EngineError(ErrorCode.TypeMismatch, `projection must be an object, not ${bsonTypeOf(projection)}`);
  }
  if (Object.keys(projection).length === 0) return undefined;
  const root = new PathNode();
  const ctx: ParseContext = {
    idSpecified: false,
    idIncluded: false,
    idExcluded: false,
    hasSlice: false,
    hasElemMatch: false,
  };
  for (const key of Object.keys(projection)) {
    if (key === '_id' || key.startsWith('_id.')) ctx.idSpecified = true;
    parseElement(ctx, key, projection[key], root, true);
  }
  const type = ctx.type ?? defaultType(ctx);
  if (type === 'inclusion' && !ctx.idSpecified) root.children.set('_id', { kind: 'include' });
  if (type === 'exclusion' && ctx.idIncluded) root.children.delete('_id');
  if (type === 'inclusion') {
    const deferred = [...root.children.values()].filter(
      (c): c is Extract<Leaf, { kind: 'elemMatch' }> => isLeaf(c) && c.kind === 'elemMatch',
    );
    return (doc) => {
      const out = projectInclusion(doc, root);
      // $elemMatch fields follow the other included fields (mongod 4.4+).
      for (const leaf of deferred) {
        const match = firstMatch(doc, leaf);
        if (match !== undefined) setOwn(out, leaf.field, [cloneValue(match)]);
      }
      return out;
    };
  }
  return (doc) => projectExclusion(doc, root);
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/**
 * The type of a projection with no plain inclusion or exclusion (mongod's compatibility rules): a
 * $slice makes it an exclusion unless `_id: 1` is given, an $elemMatch makes it an inclusion, a lone
 * `_id: 1` is an inclusion, anything else an exclusion.
 */
function defaultType(ctx: ParseContext): 'inclusion' | 'exclusion' {
  if (ctx.hasSlice) return ctx.idIncluded ? 'inclusion' : 'exclusion';
  if (ctx.hasElemMatch) return 'inclusion';
  return ctx.idIncluded ? 'inclusion' : 'exclusion';
}

function isLeaf(node: PathNode | Leaf | undefined): node is Leaf {
  return node !== undefined && !(node instanceof PathNode);
}

function isPositional(key: string): boolean {
  return key === '$' || key.endsWith('.$') || key.includes('.$.');
}

function parseElement(ctx: ParseContext, key: string, value: unknown, parent: PathNode, atRoot: boolean): void {
  if (isPositional(key)) {
    throw new EngineError(
      ErrorCode.BadValue,
      `The positional projection '${key}' is not supported yet: project the whole array or use $elemMatch.`,
    );
  }
  if (isPlainObject(value)) {
    parseSubObject(ctx, key, value, parent, atRoot);
    return;
  }
  if (typeof value === 'boolean' || isNumeric(value)) {
    const include = typeof value === 'boolean' ? value : toDouble(value) !== 0;
    const isTopLevelId = atRoot && key === '_id';
    addAtPath(parent, key, include ? { kind: 'include' } : { kind: 'exclude' });
    if (isTopLevelId) {
      if (include) ctx.idIncluded = true;
      else ctx.idExcluded = true;
      return;
    }
    if (include && ctx.type === 'exclusion') {
      throw new EngineError(ErrorCode.Location31253, `Cannot do inclusion on field ${key} in exclusion projection`);
    }
    if (!include && ctx.type === 'inclusion') {
      throw new EngineError(ErrorCode.Location31254, `Cannot do exclusion on field ${key} in inclusion projection`);
    }
    ctx.type = include ? 'inclusion' : 'exclusion';
    return;
  }
  // Anything else is a literal value, which mongod evaluates as an expression.
  if (ctx.type === 'exclusion') {
    throw new EngineError(31310, `Cannot use an expression ${key}: ${formatValue(value)} in an exclusion projection`);
  }
  throw new EngineError(
    ErrorCode.BadValue,
    `Projection value ${key}: ${formatValue(value)} is a literal or expression, which this engine does not support in find projections: use 1/true to include a field or 0/false to exclude it.`,
  );
}

function parseSubObject(ctx: ParseContext, key: string, spec: Document, parent: PathNode, atRoot: boolean): void {
  const keys = Object.keys(spec);
  if (keys.length === 1 && keys[0].startsWith('$')) {
    parseOperator(ctx, key, keys[0], spec[keys[0]], parent, atRoot);
    return;
  }
  if (keys.length === 0) {
    throw new EngineError(51270, `An empty sub-projection is not a valid value. Found empty object at path ${key}`);
  }
  // A nested projection: {a: {b: 1}} is {"a.b": 1}.
  const node = internalNodeAt(parent, key);
  for (const subKey of keys) parseElement(ctx, subKey, spec[subKey], node, false);
}

function parseOperator(
  ctx: ParseContext,
  key: string,
  op: string,
  arg: unknown,
  parent: PathNode,
  atRoot: boolean,
): void {
  switch (op) {
    case '$slice':
      addAtPath(parent, key, parseSlice(arg));
      ctx.hasSlice = true;
      return;
    case '$elemMatch': {
      if (!isPlainObject(arg)) {
        throw new EngineError(31274, `elemMatch: Invalid argument, object required, but got ${bsonTypeOf(arg)}`);
      }
      if (!atRoot || key.includes('.')) {
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
      if (ctx.type === 'exclusion') {
        throw new EngineError(31252, 'Cannot use expression other than $meta in exclusion projection');
      }
      throw new EngineError(
        ErrorCode.BadValue,
        `The projection ${key}: {${op}: ...} is an aggregation expression, which this engine does not support in find projections.`,
      );
  }
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
        break; // _id: 0, or applied after the other fields
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
