/**
 * The aggregation pipeline: stages compiled once (so a malformed stage fails before any document
 * is read, as on mongod), then chained as lazy iterables. $match, $project, $addFields, $unset,
 * $unwind, $replaceRoot, $skip and $limit stream; $sort, $group, $count, $sortByCount and $facet
 * collect their input first. $limit stops pulling from upstream once it has enough documents.
 *
 * Stages never mutate the documents they receive (those may be the stored records themselves);
 * runPipeline clones every output document, so results never share structure with the input.
 */
import { Int32, Long } from 'bson';
import { checkForInterrupt, interruptsInstalled } from '../interrupt';
import { cloneDocument } from '../values/clone';
import { formatValue } from '../values/format';
import { toDouble } from '../values/numbers';
import { isNumeric, isPlainObject, type Document } from '../values/types';
import {
  ACCUMULATORS,
  aggError,
  compileExpression,
  isTruthy,
  typeName,
  validateUserVariableName,
  valueKey,
  type Accumulator,
  type CompiledExpression,
  type Vars,
} from './expressions';
import { compileFilter } from './matcher';
import { compileSort } from './sort';
import { ONE, parseAccumulator, type AccumulatorSpec } from './stages/accumulators';
import { parseBucket, parseBucketAuto } from './stages/bucket';
import { parseDensify } from './stages/densify';
import { parseDocuments } from './stages/documents';
import { parseFill } from './stages/fill';
import {
  parseCollStats,
  parseCurrentOp,
  parseIndexStats,
  parseListLocalSessions,
  parseListSessions,
  parsePlanCacheStats,
} from './stages/introspection';
import { REFUSED_STAGES, refusalOf } from './stages/refused';
import { parseInternalSplitPipeline } from './stages/split-pipeline';
import { checkMatchFieldPaths } from './stages/match-dependencies';
import { parseRedact, parseSample } from './stages/sample-redact';
import { parseSetWindowFields } from './stages/window-fields';
import { parseGraphLookup } from './stages/graph-lookup';
import { parseLookup, parseUnionWith } from './stages/lookup';
import { parseMerge } from './stages/merge';
import { parseOut } from './stages/out';
import type { PipelineContext, Stage, StageEnv, StageParser } from './stages/types';

export type { PipelineCatalog, PipelineContext, PipelineIntrospection, WriteTargetInfo } from './stages/types';

const hasOwn = Object.prototype.hasOwnProperty;

function fail(code: number, message: string): never {
  throw aggError(code, message);
}

function show(v: unknown): string {
  return v === undefined ? 'MISSING' : formatValue(v);
}

/** Assign a field whose name comes from user data ("__proto__" must stay an ordinary field). */
function put(obj: Document, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

// ---------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------

/** Runs `pipeline` over `input`; the result documents are fresh copies. */
export function runPipeline(input: Iterable<Document>, pipeline: Document[], ctx: PipelineContext): Document[] {
  const run = compilePipeline(pipeline, ctx);
  const out: Document[] = [];
  for (const doc of run(input)) {
    checkForInterrupt();
    out.push(cloneDocument(doc));
  }
  return out;
}

/** Validates and compiles a pipeline into a function from input documents to output documents. */
export function compilePipeline(pipeline: Document[], ctx: PipelineContext): Stage {
  return compileStages(pipeline, {
    vars: pipelineVariables(ctx),
    inFacet: false,
    place: 'top',
    ctx,
    compile: compileStages,
    depth: ctx.subPipelineDepth ?? 0,
  });
}

function pipelineVariables(ctx: PipelineContext): Vars {
  const vars: Record<string, unknown> = { NOW: ctx.now };
  if (ctx.clusterTime !== undefined) vars.CLUSTER_TIME = ctx.clusterTime;
  if (ctx.let !== undefined) {
    if (!isPlainObject(ctx.let))
      fail(14, `BSON field 'let' is the wrong type '${typeName(ctx.let)}', expected type 'object'`);
    for (const [name, expr] of Object.entries(ctx.let)) {
      validateUserVariableName(name);
      // Each definition sees $$NOW and the definitions before it, never a document.
      vars[name] = compileExpression(expr)({}, vars);
    }
  }
  return Object.freeze(vars);
}

function compileStages(pipeline: unknown, env: StageEnv): Stage {
  if (!Array.isArray(pipeline)) fail(14, "'pipeline' option must be specified as an array");
  checkStagePositions(pipeline);
  checkMatchFieldPaths(pipeline);
  const stages = pipeline.map((spec) => compileStage(spec, env));
  // Under a time limit or an interrupt flag, every document between two stages is a safe point
  // (a pipeline only reads: stopping anywhere leaves nothing half done).
  if (interruptsInstalled())
    return (input) => stages.reduce<Iterable<Document>>((stream, stage) => checked(stage(stream)), input);
  return (input) => stages.reduce<Iterable<Document>>((stream, stage) => stage(stream), input);
}

/**
 * Stages that must come first or last are where they must be. Callers that run a leading $match
 * through the planner check the whole pipeline before they take it off.
 */
export function checkStagePositions(pipeline: unknown[]): void {
  pipeline.forEach((spec, i) => {
    const name = stageName(spec);
    // $out and $merge write the pipeline's results: nothing may follow them.
    if (WRITE_STAGES.has(name) && i !== pipeline.length - 1)
      fail(40601, `${name} can only be the final stage in the pipeline`);
    if (FIRST_STAGE_ONLY.has(name) && i !== 0) fail(40602, `${name} is only valid as the first stage in a pipeline`);
  });
}

function* checked(stream: Iterable<Document>): Iterable<Document> {
  for (const doc of stream) {
    checkForInterrupt();
    yield doc;
  }
}

function stageName(spec: unknown): string {
  if (!isPlainObject(spec)) fail(14, "Each element of the 'pipeline' array must be an object");
  const keys = Object.keys(spec);
  if (keys.length !== 1) fail(40323, 'A pipeline stage specification object must contain exactly one field.');
  return keys[0];
}

function compileStage(spec: unknown, env: StageEnv): Stage {
  const name = stageName(spec);
  const refused = refusalOf(name);
  if (refused) throw refused;
  const parser = hasOwn.call(STAGES, name) ? STAGES[name] : undefined;
  if (!parser) fail(40324, `Unrecognized pipeline stage name: '${name}'`);
  return parser((spec as Document)[name], env, name);
}

const WRITE_STAGES = new Set(['$out', '$merge']);

/** Stages that produce the pipeline's input instead of reading it. */
const FIRST_STAGE_ONLY = new Set([
  '$documents',
  '$collStats',
  '$indexStats',
  '$planCacheStats',
  '$currentOp',
  '$listLocalSessions',
  '$listSessions',
  '$changeStream',
]);

/**
 * The first stage (searching $facet sub-pipelines too) the engine refuses; undefined when it
 * runs every stage of the pipeline.
 */
export function unsupportedPipelineStage(pipeline: unknown): string | undefined {
  if (!Array.isArray(pipeline)) return undefined;
  for (const spec of pipeline) {
    if (!isPlainObject(spec)) continue;
    for (const name of Object.keys(spec)) {
      if (hasOwn.call(REFUSED_STAGES, name)) return name;
      if (name === '$facet' && isPlainObject(spec.$facet)) {
        for (const sub of Object.values(spec.$facet)) {
          const found = unsupportedPipelineStage(sub);
          if (found) return found;
        }
      }
    }
  }
  return undefined;
}

/** True when the pipeline ends with $out or $merge (it writes). */
export function pipelineWrites(pipeline: unknown): boolean {
  if (!Array.isArray(pipeline) || pipeline.length === 0) return false;
  const last: unknown = pipeline[pipeline.length - 1];
  return isPlainObject(last) && Object.keys(last).some((name) => WRITE_STAGES.has(name));
}

// ---------------------------------------------------------------------------------------------
// Small streaming stages
// ---------------------------------------------------------------------------------------------

function mapStage(f: (doc: Document) => Document): Stage {
  return function* (input) {
    for (const doc of input) yield f(doc);
  };
}

const parseMatch: StageParser = (spec, env) => {
  if (!isPlainObject(spec)) fail(15959, 'the match filter must be an expression in an object');
  const matches = compileFilter(spec, env.vars);
  return function* (input) {
    for (const doc of input) if (matches(doc)) yield doc;
  };
};

/** $limit / $skip argument: mongod's parseIntegerElementToNonNegativeLong. */
function nonNegativeInteger(stage: string, v: unknown, code: number): number {
  const prefix = `invalid argument to ${stage} stage: `;
  if (!isNumeric(v)) fail(code, `${prefix}Expected a number in: ${stage}: ${show(v)}`);
  const d = toDouble(v);
  if (Number.isNaN(d)) fail(code, `${prefix}Expected an integer, but found NaN in: ${stage}: ${show(v)}`);
  if (!Number.isInteger(d) || Math.abs(d) >= 2 ** 63)
    fail(code, `${prefix}Cannot represent as a 64-bit integer: ${stage}: ${show(v)}`);
  if (d < 0) fail(code, `${prefix}Expected a non-negative number in: ${stage}: ${show(v)}`);
  return d;
}

const parseLimit: StageParser = (spec, _env, name) => {
  const limit = nonNegativeInteger(name, spec, 5107201);
  if (limit === 0) fail(15958, 'the limit must be positive');
  return function* (input) {
    let n = 0;
    for (const doc of input) {
      yield doc;
      if (++n >= limit) return;
    }
  };
};

const parseSkip: StageParser = (spec, _env, name) => {
  const skip = nonNegativeInteger(name, spec, 5107200);
  return function* (input) {
    let n = 0;
    for (const doc of input) {
      if (n < skip) n++;
      else yield doc;
    }
  };
};

/**
 * mongod's $_internalInhibitOptimization: passes documents through unchanged, and keeps the stages
 * after it from being pushed into the query layer (explain shows them as pipeline stages).
 */
const parseInhibitOptimization: StageParser = (spec, _env, name) => {
  if (!isPlainObject(spec)) fail(9, `${name} takes an empty object: {${name}: {}}.`);
  return (input) => input;
};

const parseSort: StageParser = (spec) => {
  if (!isPlainObject(spec)) fail(15973, 'the $sort key specification must be an object');
  if (Object.keys(spec).length === 0) fail(15976, '$sort stage must have at least one sort key');
  const cmp = compileSort(spec);
  if (!cmp) fail(15976, '$sort stage must have at least one sort key');
  if (!interruptsInstalled()) return (input) => Array.from(input).sort(cmp);
  return (input) =>
    Array.from(input).sort((a, b) => {
      checkForInterrupt();
      return cmp(a, b);
    });
};

const parseReplaceRoot: StageParser = (spec, env, name) => {
  let expr: unknown;
  let what: string;
  if (name === '$replaceWith') {
    expr = spec;
    what = 'replacement document';
  } else {
    if (!isPlainObject(spec))
      fail(40229, `expected an object as specification for $replaceRoot stage, got ${typeName(spec)}`);
    for (const k of Object.keys(spec))
      if (k !== 'newRoot') fail(40415, `BSON field '$replaceRoot.${k}' is an unknown field.`);
    if (!hasOwn.call(spec, 'newRoot')) fail(40414, "BSON field '$replaceRoot.newRoot' is missing but a required field");
    expr = spec.newRoot;
    what = "'newRoot' expression";
  }
  const fn = compileExpression(expr);
  return mapStage((doc) => {
    const root = fn(doc, env.vars);
    if (!isPlainObject(root)) {
      fail(
        40228,
        `${what} must evaluate to an object, but resulting value was: ${show(root)}. Type of resulting value: '${typeName(root)}'. Input document: ${show(doc)}`,
      );
    }
    return root;
  });
};

// ---------------------------------------------------------------------------------------------
// $project, $addFields / $set, $unset: a tree of per-field actions
// ---------------------------------------------------------------------------------------------

type FieldAction =
  | { kind: 'include' }
  | { kind: 'exclude' }
  | { kind: 'compute'; fn: CompiledExpression }
  | { kind: 'nested'; node: ProjectionNode };

class ProjectionNode {
  readonly fields = new Map<string, FieldAction>();
  /** Whether this subtree computes any field (then it also creates missing subdocuments). */
  computes = false;
}

interface ParsedProjection {
  root: ProjectionNode;
  mode: 'inclusion' | 'exclusion';
}

/** Adds the action at a dotted path, creating nested nodes; a path met twice is a collision. */
function addPath(root: ProjectionNode, path: string, action: FieldAction, errPrefix: string): void {
  const parts = path.split('.');
  for (const p of parts) {
    if (p === '') fail(15998, `${errPrefix}FieldPath field names may not be empty strings.`);
    if (p.startsWith('$'))
      fail(16410, `${errPrefix}FieldPath field names may not start with '$'. Consider using $getField or $setField.`);
  }
  let node = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const existing = node.fields.get(parts[i]);
    if (!existing) {
      const child = new ProjectionNode();
      node.fields.set(parts[i], { kind: 'nested', node: child });
      node = child;
    } else if (existing.kind === 'nested') {
      node = existing.node;
    } else {
      // mongod names the path past its first field (FieldPath::tail), wherever the collision is.
      fail(31249, `${errPrefix}Path collision at ${path} remaining portion ${parts.slice(1).join('.')}`);
    }
  }
  const last = parts[parts.length - 1];
  if (node.fields.has(last)) fail(31250, `${errPrefix}Path collision at ${path}`);
  node.fields.set(last, action);
}

function markComputes(node: ProjectionNode): boolean {
  let computes = false;
  for (const action of node.fields.values()) {
    if (action.kind === 'compute') computes = true;
    else if (action.kind === 'nested' && markComputes(action.node)) computes = true;
  }
  node.computes = computes;
  return computes;
}

/** An object value that is a sub-projection (not an operator expression such as {$add: ...}). */
function isSubProjection(v: unknown): v is Document {
  if (!isPlainObject(v)) return false;
  const first = Object.keys(v)[0];
  return first !== undefined && !first.startsWith('$');
}

/** Flattens nested specs into (dotted path, value) pairs, stopping at expressions and flags. */
function flattenSpec(
  spec: Document,
  prefix: string,
  out: [string, unknown][],
  errPrefix: string,
  emptyIsLiteral: boolean,
): void {
  for (const key of Object.keys(spec)) {
    if (key === '') fail(40352, `${errPrefix}FieldPath cannot be constructed with empty string`);
    const path = prefix ? `${prefix}.${key}` : key;
    const value = spec[key];
    if (isPlainObject(value) && Object.keys(value).length === 0 && !emptyIsLiteral) {
      fail(51270, `${errPrefix}An empty sub-projection is not a valid value. Found empty object at path`);
    }
    if (isSubProjection(value)) flattenSpec(value, path, out, errPrefix, emptyIsLiteral);
    else out.push([path, value]);
  }
}

function parseProjection(spec: unknown): ParsedProjection {
  const errPrefix = 'Invalid $project :: caused by :: ';
  if (!isPlainObject(spec)) fail(15969, '$project specification must be an object');
  if (Object.keys(spec).length === 0) fail(51272, `${errPrefix}projection specification must have at least one field`);
  const entries: [string, unknown][] = [];
  flattenSpec(spec, '', entries, errPrefix, false);

  const root = new ProjectionNode();
  let mode: 'inclusion' | 'exclusion' | undefined;
  let idAction: FieldAction | undefined;
  for (const [path, value] of entries) {
    const isFlag = typeof value === 'boolean' || isNumeric(value);
    const action: FieldAction = isFlag
      ? { kind: isTruthy(value) ? 'include' : 'exclude' }
      : { kind: 'compute', fn: compileExpression(value) };
    // `_id` may be included or excluded in either kind of projection.
    if (path === '_id' && action.kind !== 'compute') {
      idAction = action;
      continue;
    }
    if (action.kind === 'exclude') {
      if (mode === 'inclusion') fail(31254, `${errPrefix}Cannot do exclusion on field ${path} in inclusion projection`);
      mode = 'exclusion';
    } else if (mode === 'exclusion') {
      if (action.kind === 'include')
        fail(31253, `${errPrefix}Cannot do inclusion on field ${path} in exclusion projection`);
      fail(31252, `${errPrefix}Cannot use expression other than $meta in exclusion projection`);
    } else {
      mode = 'inclusion';
    }
    addPath(root, path, action, errPrefix);
  }
  if (!mode) mode = idAction?.kind === 'exclude' ? 'exclusion' : 'inclusion';
  if (mode === 'inclusion' && idAction?.kind !== 'exclude' && !root.fields.has('_id')) {
    addPath(root, '_id', { kind: 'include' }, errPrefix);
  }
  if (mode === 'exclusion' && idAction?.kind === 'exclude') addPath(root, '_id', idAction, errPrefix);
  markComputes(root);
  return { root, mode };
}

/** Inclusion, first pass: keep included fields in the input's order; scalars under a nested spec drop out. */
function includeFields(node: ProjectionNode, doc: Document): Document {
  const out: Document = {};
  for (const key of Object.keys(doc)) {
    const action = node.fields.get(key);
    if (!action) continue;
    if (action.kind === 'include') {
      put(out, key, doc[key]);
    } else if (action.kind === 'nested') {
      const v = includeInValue(action.node, doc[key]);
      if (v !== undefined) put(out, key, v);
    }
  }
  return out;
}

function includeInValue(node: ProjectionNode, v: unknown): unknown {
  if (isPlainObject(v)) return includeFields(node, v);
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const el of v) if (isPlainObject(el) || Array.isArray(el)) out.push(includeInValue(node, el));
    return out;
  }
  return undefined;
}

/**
 * Second pass: computed fields, in spec order. An existing field keeps its position; a missing
 * result removes the field ($$REMOVE); a computed path through a scalar replaces the scalar with a
 * subdocument, and through an array applies to each element (mongod's rules).
 */
function computeFields(node: ProjectionNode, out: Document, root: Document, vars: Vars): void {
  for (const [key, action] of node.fields) {
    if (action.kind === 'compute') {
      const v = action.fn(root, vars);
      if (v === undefined) delete out[key];
      else put(out, key, v);
    } else if (action.kind === 'nested' && action.node.computes) {
      put(out, key, computeInValue(action.node, hasOwn.call(out, key) ? out[key] : undefined, root, vars));
    }
  }
}

function computeInValue(node: ProjectionNode, v: unknown, root: Document, vars: Vars): unknown {
  if (Array.isArray(v)) return v.map((el) => computeInValue(node, el, root, vars));
  const out: Document = isPlainObject(v) ? { ...v } : {};
  computeFields(node, out, root, vars);
  return out;
}

function excludeFields(node: ProjectionNode, doc: Document): Document {
  const out: Document = {};
  for (const key of Object.keys(doc)) {
    const action = node.fields.get(key);
    if (action?.kind === 'exclude') continue;
    put(out, key, action?.kind === 'nested' ? excludeInValue(action.node, doc[key]) : doc[key]);
  }
  return out;
}

function excludeInValue(node: ProjectionNode, v: unknown): unknown {
  if (isPlainObject(v)) return excludeFields(node, v);
  if (Array.isArray(v)) return v.map((el) => excludeInValue(node, el));
  return v;
}

const parseProject: StageParser = (spec, env) => {
  const { root, mode } = parseProjection(spec);
  if (mode === 'exclusion') return mapStage((doc) => excludeFields(root, doc));
  return mapStage((doc) => {
    const out = includeFields(root, doc);
    if (root.computes) computeFields(root, out, doc, env.vars);
    return out;
  });
};

const parseAddFields: StageParser = (spec, env, name) => {
  const errPrefix = `Invalid ${name} :: caused by :: `;
  if (!isPlainObject(spec)) fail(40272, `${name} specification stage must be an object, got ${typeName(spec)}`);
  const entries: [string, unknown][] = [];
  // Nested objects merge into existing subdocuments; an empty object is the literal {}.
  flattenSpec(spec, '', entries, errPrefix, true);
  const root = new ProjectionNode();
  for (const [path, value] of entries)
    addPath(root, path, { kind: 'compute', fn: compileExpression(value) }, errPrefix);
  markComputes(root);
  return mapStage((doc) => {
    const out: Document = { ...doc };
    computeFields(root, out, doc, env.vars);
    return out;
  });
};

const parseUnset: StageParser = (spec) => {
  const paths = typeof spec === 'string' ? [spec] : spec;
  if (!Array.isArray(paths) || paths.length === 0)
    fail(31119, '$unset specification must be a string or an array with at least one field');
  const root = new ProjectionNode();
  for (const p of paths) {
    if (typeof p !== 'string')
      fail(31120, '$unset specification must be a string or an array containing only string values');
    addPath(root, p, { kind: 'exclude' }, 'Invalid $unset :: caused by :: ');
  }
  return mapStage((doc) => excludeFields(root, doc));
};

// ---------------------------------------------------------------------------------------------
// $unwind
// ---------------------------------------------------------------------------------------------

/** A field path as $unwind reads it: through embedded documents only, never through arrays. */
function getPath(doc: Document, parts: readonly string[]): unknown {
  let v: unknown = doc;
  for (const p of parts) {
    if (!isPlainObject(v) || !hasOwn.call(v, p)) return undefined;
    v = v[p];
  }
  return v;
}

/** Copy of `doc` with `value` at `parts` (copying only the documents on the path; undefined removes). */
function withPath(doc: Document, parts: readonly string[], value: unknown, i = 0): Document {
  const out: Document = { ...doc };
  const key = parts[i];
  if (i === parts.length - 1) {
    if (value === undefined) delete out[key];
    else put(out, key, value);
    return out;
  }
  const child = hasOwn.call(doc, key) ? doc[key] : undefined;
  if (value === undefined && !isPlainObject(child)) return out;
  put(out, key, withPath(isPlainObject(child) ? child : {}, parts, value, i + 1));
  return out;
}

function unwindPath(v: unknown, what: string, code: number): string[] {
  if (typeof v !== 'string') fail(28808, `expected a string as the path for $unwind stage, got ${typeName(v)}`);
  if (!v.startsWith('$')) fail(code, `${what} option to $unwind stage should be prefixed with a '$': ${v}`);
  const parts = v.slice(1).split('.');
  if (parts.some((p) => p === '')) fail(15998, 'FieldPath field names may not be empty strings.');
  if (parts.some((p) => p.startsWith('$')))
    fail(16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.");
  return parts;
}

const parseUnwind: StageParser = (spec) => {
  let path: string[];
  let indexPath: string[] | undefined;
  let preserve = false;
  if (typeof spec === 'string') {
    path = unwindPath(spec, 'path', 28818);
  } else if (isPlainObject(spec)) {
    let rawPath: unknown;
    for (const [k, v] of Object.entries(spec)) {
      if (k === 'path') rawPath = v;
      else if (k === 'preserveNullAndEmptyArrays') {
        if (typeof v !== 'boolean')
          fail(
            28809,
            `expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage, got ${typeName(v)}`,
          );
        preserve = v;
      } else if (k === 'includeArrayIndex') {
        if (typeof v !== 'string')
          fail(
            28810,
            `expected a non-empty string for the includeArrayIndex  option to $unwind stage, got ${typeName(v)}`,
          );
        if (v === '')
          fail(28810, 'expected a non-empty string for the includeArrayIndex  option to $unwind stage, got string');
        if (v.startsWith('$'))
          fail(28822, `includeArrayIndex option to $unwind stage should not be prefixed with a '$': ${v}`);
        indexPath = v.split('.');
      } else {
        fail(28811, `unrecognized option to $unwind stage: ${k}`);
      }
    }
    if (rawPath === undefined) fail(28812, 'no path specified to $unwind stage');
    path = unwindPath(rawPath, 'path', 28818);
  } else {
    fail(15981, `expected either a string or an object as specification for $unwind stage, got ${typeName(spec)}`);
  }
  return function* (input) {
    for (const doc of input) yield* unwindOne(doc, path, indexPath, preserve);
  };
};

function* unwindOne(
  doc: Document,
  path: string[],
  indexPath: string[] | undefined,
  preserve: boolean,
): Iterable<Document> {
  const value = getPath(doc, path);
  const withIndex = (d: Document, i: unknown): Document => (indexPath ? withPath(d, indexPath, i) : d);
  if (Array.isArray(value)) {
    if (value.length === 0) {
      // An empty array preserved leaves the field out, unlike null, which stays null.
      if (preserve) yield withIndex(withPath(doc, path, undefined), null);
      return;
    }
    for (let i = 0; i < value.length; i++) yield withIndex(withPath(doc, path, value[i]), Long.fromNumber(i));
  } else if (value === undefined || value === null) {
    if (preserve) yield withIndex(doc, null);
  } else {
    // A non-array value unwinds as a one-element array, without an index.
    yield withIndex(doc, null);
  }
}

// ---------------------------------------------------------------------------------------------
// $group, $count, $sortByCount
// ---------------------------------------------------------------------------------------------

/** Groups by `idFn`; groups come out in order of first appearance. Missing values become null. */
function groupStage(idFn: CompiledExpression, accs: AccumulatorSpec[], vars: Vars): Stage {
  return function* (input) {
    const groups = new Map<string, { id: unknown; accs: Accumulator[] }>();
    for (const doc of input) {
      const raw = idFn(doc, vars);
      const id = raw === undefined ? null : raw;
      const key = valueKey(id);
      let group = groups.get(key);
      if (!group) {
        group = { id, accs: accs.map((a) => a.make()) };
        groups.set(key, group);
      }
      for (let i = 0; i < accs.length; i++) group.accs[i].add(accs[i].input(doc, vars));
    }
    for (const group of groups.values()) {
      const out: Document = { _id: group.id };
      for (let i = 0; i < accs.length; i++) {
        const v = group.accs[i].result();
        put(out, accs[i].field, v === undefined ? null : v);
      }
      yield out;
    }
  };
}

/**
 * mongod evaluates an `_id` document field by field, and a one-field document as its single value
 * (SERVER-21992): there a missing value becomes null, so `{a: null}` and `{}` meet in `{_id: {a: null}}`,
 * while with two fields or more a missing field is left out and the groups stay apart.
 */
function groupIdExpression(idSpec: unknown): CompiledExpression {
  const whole = compileExpression(idSpec); // validates the document as an expression
  if (isPlainObject(idSpec)) {
    const keys = Object.keys(idSpec);
    if (keys.length === 1 && !keys[0].startsWith('$')) {
      const field = keys[0];
      const valueFn = compileExpression(idSpec[field]);
      return (doc, vars) => {
        const value = valueFn(doc, vars);
        const id: Document = {};
        put(id, field, value === undefined ? null : value);
        return id;
      };
    }
  }
  return whole;
}

const parseGroup: StageParser = (spec, env) => {
  if (!isPlainObject(spec)) fail(15947, "a group's fields must be specified in an object");
  if (!hasOwn.call(spec, '_id')) fail(15955, 'a group specification must include an _id');
  const idFn = groupIdExpression(spec._id);
  const accs = Object.keys(spec)
    .filter((k) => k !== '_id')
    .map((k) => parseAccumulator(k, spec[k]));
  return groupStage(idFn, accs, env.vars);
};

const parseCount: StageParser = (spec) => {
  if (typeof spec !== 'string') fail(40156, 'the count field must be a non-empty string');
  if (spec === '') fail(40157, 'the count field must be a non-empty string');
  if (spec.startsWith('$')) fail(40158, 'the count field cannot be a $-prefixed path');
  if (spec.includes('\0')) fail(40159, 'the count field cannot contain a null byte');
  if (spec.includes('.')) fail(40160, "the count field cannot contain '.'");
  return function* (input) {
    let n = 0;
    for (const _ of input) n++;
    if (n > 0) {
      const out: Document = {};
      put(out, spec, n <= 2 ** 31 - 1 ? new Int32(n) : Long.fromNumber(n));
      yield out;
    }
  };
};

const parseSortByCount: StageParser = (spec, env) => {
  if (typeof spec === 'string') {
    if (!spec.startsWith('$'))
      fail(40148, 'the sortByCount field must be defined as a $-prefixed path or an expression');
  } else if (isPlainObject(spec)) {
    const keys = Object.keys(spec);
    if (keys.length !== 1 || !keys[0].startsWith('$'))
      fail(40147, 'the sortByCount field must be defined as a $-prefixed path or an expression');
  } else {
    fail(40149, 'the sortByCount field must be specified as a string or as an object');
  }
  const group = groupStage(
    compileExpression(spec),
    [{ field: 'count', make: ACCUMULATORS.$sum, input: () => ONE }],
    env.vars,
  );
  const byCountDesc = (a: Document, b: Document): number => (b.count as Int32).value - (a.count as Int32).value;
  return (input) => Array.from(group(input)).sort(byCountDesc);
};

// ---------------------------------------------------------------------------------------------
// $facet
// ---------------------------------------------------------------------------------------------

const NOT_IN_FACET = new Set([
  '$facet',
  '$out',
  '$merge',
  '$changeStream',
  '$collStats',
  '$indexStats',
  '$geoNear',
  '$search',
  '$searchMeta',
]);

const parseFacet: StageParser = (spec, env, name) => {
  if (env.inFacet) fail(40600, `${name} is not allowed to be used within a $facet stage`);
  if (!isPlainObject(spec) || Object.keys(spec).length === 0)
    fail(40169, 'the $facet specification must be a non-empty object');
  const facets = Object.keys(spec).map((field): [string, Stage] => {
    if (field.startsWith('$'))
      fail(40174, `Invalid $facet :: caused by :: FieldPath field names may not start with '$'.`);
    if (field.includes('.')) fail(40174, "Invalid $facet :: caused by :: FieldPath field names may not contain '.'.");
    const sub = spec[field];
    if (!Array.isArray(sub)) fail(40170, `arguments to $facet must be arrays, ${field} is type ${typeName(sub)}`);
    if (sub.length === 0) fail(40171, 'sub-pipeline in $facet stage cannot be empty');
    for (const stage of sub) {
      const stageNameInFacet = stageName(stage);
      if (NOT_IN_FACET.has(stageNameInFacet))
        fail(40600, `${stageNameInFacet} is not allowed to be used within a $facet stage`);
    }
    return [field, compileStages(sub, { ...env, inFacet: true, place: 'facet' })];
  });
  return function* (input) {
    const docs = Array.from(input);
    const out: Document = {};
    for (const [field, run] of facets) put(out, field, Array.from(run(docs)));
    yield out;
  };
};

// ---------------------------------------------------------------------------------------------
// The stage table
// ---------------------------------------------------------------------------------------------

const STAGES: Readonly<Record<string, StageParser>> = {
  $match: parseMatch,
  $project: parseProject,
  $addFields: parseAddFields,
  $set: parseAddFields,
  $unset: parseUnset,
  $sort: parseSort,
  $limit: parseLimit,
  $skip: parseSkip,
  $_internalInhibitOptimization: parseInhibitOptimization,
  $group: parseGroup,
  $count: parseCount,
  $unwind: parseUnwind,
  $sortByCount: parseSortByCount,
  $replaceRoot: parseReplaceRoot,
  $replaceWith: parseReplaceRoot,
  $facet: parseFacet,
  $lookup: parseLookup,
  $unionWith: parseUnionWith,
  $graphLookup: parseGraphLookup,
  $out: parseOut,
  $merge: parseMerge,
  $documents: parseDocuments,
  $bucket: parseBucket,
  $bucketAuto: parseBucketAuto,
  $sample: parseSample,
  $redact: parseRedact,
  $setWindowFields: parseSetWindowFields,
  $densify: parseDensify,
  $fill: parseFill,
  $collStats: parseCollStats,
  $indexStats: parseIndexStats,
  $planCacheStats: parsePlanCacheStats,
  $currentOp: parseCurrentOp,
  $listLocalSessions: parseListLocalSessions,
  $listSessions: parseListSessions,
  $_internalSplitPipeline: parseInternalSplitPipeline,
};

/** The stages the engine runs, in alphabetical order (for docs/compatibility.md and listings). */
export const STAGE_NAMES: readonly string[] = Object.freeze(Object.keys(STAGES).sort());

export { REFUSED_STAGES, type RefusedStage } from './stages/refused';
