/**
 * Stages that read a second collection of the same database: $lookup (equality, pipeline with
 * `let`, and both combined) and $unionWith. The foreign side is read through the catalog, whose
 * queries go through the planner: an equality $lookup on an indexed foreignField looks each value
 * up in the index instead of scanning the collection once per input document.
 */
import { isPlainObject, type Document } from '../../values/types';
import { compileExpression, valueKey, type CompiledExpression, type Vars } from '../expressions';
import { compileFilter } from '../matcher';
import { ForeignHashTable, hashJoinApplies, probeAnswers } from './hash-join';
import {
  checkUserVariableName,
  fail,
  fieldPathParts,
  hasOwn,
  setPath,
  show,
  typeName,
  usesExpr,
  valuesAtPath,
} from './shared';
import type { Stage, StageEnv, StageParser } from './types';

/** Stages a $lookup or $unionWith sub-pipeline may not contain, with mongod's codes. */
const WRITE_STAGES = new Set(['$out', '$merge']);

function checkSubPipeline(pipeline: unknown, container: '$lookup' | '$unionWith'): Document[] {
  if (!Array.isArray(pipeline))
    fail(
      14,
      container === '$lookup'
        ? `'pipeline' option must be specified as an array: give $lookup a list of stages, not a ${typeName(pipeline)}`
        : `BSON field '$unionWith.pipeline' is the wrong type '${typeName(pipeline)}', expected type 'array'`,
    );
  for (const [i, stage] of pipeline.entries()) {
    if (!isPlainObject(stage)) fail(14, "Each element of the 'pipeline' array must be an object");
    for (const name of Object.keys(stage)) {
      if (WRITE_STAGES.has(name)) {
        // mongod checks a stage's place in its pipeline before where the pipeline sits.
        if (i !== pipeline.length - 1) fail(40601, `${name} can only be the final stage in the pipeline`);
        if (container === '$lookup') fail(51047, `${name} is not allowed within a $lookup's sub-pipeline`);
        fail(31441, `${name} is not allowed within a $unionWith's sub-pipeline`);
      }
    }
  }
  return pipeline as Document[];
}

function startsWithDocuments(pipeline: Document[] | undefined): boolean {
  return pipeline !== undefined && pipeline.length > 0 && hasOwn.call(pipeline[0], '$documents');
}

/**
 * The reading side of a sub-pipeline: the foreign collection (or the pipeline's own $documents),
 * with a leading filter pushed into the catalog's query so that indexes apply.
 */
interface SubPipeline {
  /** How many sub-pipelines enclose its stages, this one included. */
  depth: number;
  /** Compiles the pipeline's stages after the source part, for the given variables. */
  compileTail(vars: Vars): Stage;
  /** Runs it: `filter` (the equality part of a $lookup) is applied right after the source. */
  run(vars: Vars, filter: Document | undefined): Iterable<Document>;
  /** Runs it on foreign documents already chosen (a hash join's), in place of reading `from`. */
  runOn(vars: Vars, chosen: Iterable<Document>): Iterable<Document>;
}

/** mongod's limit on nested $lookup/$unionWith sub-pipelines, the pipelines of views they read included. */
const MAX_SUB_PIPELINE_DEPTH = 20;

function subPipeline(
  env: StageEnv,
  from: string | undefined,
  pipeline: Document[],
  place: 'lookup' | 'unionWith',
  correlated: boolean,
): SubPipeline {
  const hasDocuments = startsWithDocuments(pipeline);
  const head = hasDocuments ? pipeline.slice(0, 1) : [];
  let tail = hasDocuments ? pipeline.slice(1) : pipeline;
  // A leading $match without $expr is the query itself (it may use an index).
  let pushed: Document | undefined;
  if (!hasDocuments && from !== undefined && tail.length > 0) {
    const first = tail[0];
    if (isPlainObject(first.$match) && Object.keys(first).length === 1 && !usesExpr(first.$match)) {
      pushed = first.$match;
      tail = tail.slice(1);
    }
  }
  const depth = (env.depth ?? 0) + 1;
  if (depth > MAX_SUB_PIPELINE_DEPTH)
    fail(
      232,
      `Maximum number of nested sub-pipelines exceeded. Limit is ${MAX_SUB_PIPELINE_DEPTH}: flatten the nested $lookup or $unionWith stages (views read by them count too).`,
    );
  const subEnv = (vars: Vars): StageEnv => ({ ...env, vars, inFacet: false, place, depth });
  // Compiled once up front so a malformed sub-pipeline fails before any document is read.
  const headStage = head.length ? env.compile(head, subEnv(env.vars)) : undefined;
  const tailOnce = env.compile(tail, subEnv(env.vars));
  // mongod resolves a view while parsing, so its nesting counts even when no document is read.
  const viewPipeline = from !== undefined ? env.ctx.catalog?.viewPipeline?.(env.ctx.catalog.dbName, from) : undefined;
  if (viewPipeline) env.compile(viewPipeline, subEnv(env.vars));
  const pushedFilter = pushed ? compileFilter(pushed) : undefined;
  const cache = new Map<string, Stage>();
  const compileTail = (vars: Vars): Stage => {
    if (!correlated) return tailOnce;
    const key = valueKey(vars);
    let stage = cache.get(key);
    if (!stage) {
      if (cache.size >= 256) cache.clear();
      stage = env.compile(tail, subEnv(vars));
      cache.set(key, stage);
    }
    return stage;
  };
  const catalog = env.ctx.catalog;
  return {
    depth,
    compileTail,
    run(vars, filter) {
      let source: Iterable<Document>;
      if (headStage) {
        source = headStage([]);
        if (filter) source = filtered(source, compileFilter(filter));
      } else if (from !== undefined && catalog) {
        const query = filter && pushed ? { $and: [filter, pushed] } : (filter ?? pushed);
        source = catalog.find(catalog.dbName, from, query, depth);
      } else {
        source = [];
      }
      return compileTail(vars)(source);
    },
    runOn(vars, chosen) {
      return compileTail(vars)(pushedFilter ? filtered(chosen, pushedFilter) : chosen);
    },
  };
}

function* filtered(input: Iterable<Document>, matches: (doc: Document) => boolean): Iterable<Document> {
  for (const doc of input) if (matches(doc)) yield doc;
}

/**
 * The $match a $lookup runs for one local document: every value at localField (arrays expanded;
 * none counts as null) compared for equality with foreignField, so null finds missing and null,
 * and an array on either side matches by its elements. A regex is compared as a value, never as
 * a pattern (mongod builds an $or of $eq then).
 */
export function equalityFilter(doc: Document, localParts: readonly string[], foreignField: string): Document {
  const values = valuesAtPath(doc, localParts);
  if (values.length === 0) values.push(null);
  if (values.length === 1) return { [foreignField]: { $eq: values[0] } };
  if (values.some((v) => typeName(v) === 'regex')) return { $or: values.map((v) => ({ [foreignField]: { $eq: v } })) };
  return { [foreignField]: { $in: values } };
}

export const parseLookup: StageParser = (spec, env) => {
  if (!isPlainObject(spec)) fail(9, 'the $lookup specification must be an Object');
  let from: string | undefined;
  let as: string | undefined;
  let localField: string | undefined;
  let foreignField: string | undefined;
  let pipeline: Document[] | undefined;
  let letSpec: Document | undefined;
  for (const [k, v] of Object.entries(spec)) {
    if (k === 'pipeline') {
      pipeline = checkSubPipeline(v, '$lookup');
    } else if (k === 'let') {
      if (!isPlainObject(v)) fail(9, `$lookup argument 'let: ${show(v)}' must be an object, is type ${typeName(v)}`);
      letSpec = v;
    } else if (k === 'from') {
      if (typeof v !== 'string') fail(9, `$lookup 'from' field must be a string, but found ${typeName(v)}`);
      if (v === '' || v.includes('\0') || v.startsWith('system.'))
        fail(73, `invalid $lookup namespace: ${env.ctx.catalog?.dbName ?? 'test'}.${v}`);
      from = v;
    } else {
      if (typeof v !== 'string') fail(9, `$lookup argument '${k}: ${show(v)}' must be a string, found ${typeName(v)}`);
      if (k === 'as') as = v;
      else if (k === 'localField') localField = v;
      else if (k === 'foreignField') foreignField = v;
      else fail(9, `unknown argument to $lookup: ${k}`);
    }
  }
  if (from === undefined) {
    if (!pipeline) fail(9, "must specify 'pipeline' when 'from' is empty");
    if (!startsWithDocuments(pipeline))
      fail(9, '$lookup stage without explicit collection must have a pipeline with $documents as first stage');
  }
  if (!as) fail(9, "must specify 'as' field for a $lookup");
  const asParts = fieldPathParts(as);
  const hasEquality = !!localField || !!foreignField;
  if (pipeline) {
    if (hasEquality && (!localField || !foreignField))
      fail(9, "$lookup requires both or neither of 'localField' and 'foreignField' to be specified");
  } else {
    if (!localField || !foreignField)
      fail(9, "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified");
    if (letSpec) fail(9, "$lookup with a 'let' argument must also specify 'pipeline'");
  }
  const localParts = localField ? fieldPathParts(localField) : undefined;
  const foreignParts = foreignField ? fieldPathParts(foreignField) : undefined;
  const catalog = env.ctx.catalog;
  // The equality part from a hash table of the foreign collection, unless an index answers it.
  const hashable =
    localParts !== undefined &&
    foreignParts !== undefined &&
    from !== undefined &&
    catalog !== undefined &&
    !startsWithDocuments(pipeline) &&
    hashJoinApplies(localParts, foreignParts);

  const lets: Array<[string, CompiledExpression]> = Object.entries(letSpec ?? {}).map(([name, expr]) => {
    checkUserVariableName(name);
    return [name, compileExpression(expr)];
  });
  const sub = subPipeline(env, from, pipeline ?? [], 'lookup', lets.length > 0);

  return function* (input) {
    // Decided and built on the first document, per run: the data may change between runs.
    let table: ForeignHashTable | null | undefined = hashable ? undefined : null;
    for (const doc of input) {
      let vars = env.vars;
      if (lets.length) {
        const scope: Record<string, unknown> = { ...env.vars };
        for (const [name, fn] of lets) {
          const v = fn(doc, env.vars);
          scope[name] = v === undefined ? null : v;
        }
        vars = Object.freeze(scope);
      }
      if (table !== null && localParts) {
        const values = valuesAtPath(doc, localParts);
        if (probeAnswers(values)) {
          if (table === undefined) {
            table = catalog!.indexedFields(catalog!.dbName, from!).includes(foreignField!)
              ? null
              : new ForeignHashTable(catalog!.find(catalog!.dbName, from!, undefined, sub.depth), foreignParts!);
          }
          if (table) {
            yield setPath(doc, asParts, Array.from(sub.runOn(vars, table.lookup(values))));
            continue;
          }
        }
      }
      const filter = localParts ? equalityFilter(doc, localParts, foreignField!) : undefined;
      yield setPath(doc, asParts, Array.from(sub.run(vars, filter)));
    }
  };
};

export const parseUnionWith: StageParser = (spec, env) => {
  let coll: string | undefined;
  let pipeline: Document[] = [];
  if (typeof spec === 'string') {
    coll = spec;
  } else if (isPlainObject(spec)) {
    for (const [k, v] of Object.entries(spec)) {
      if (k === 'coll') {
        if (typeof v !== 'string')
          fail(14, `BSON field '$unionWith.coll' is the wrong type '${typeName(v)}', expected type 'string'`);
        coll = v;
      } else if (k === 'pipeline') {
        pipeline = checkSubPipeline(v, '$unionWith');
      } else {
        fail(40415, `BSON field '$unionWith.${k}' is an unknown field.`);
      }
    }
    if (coll === undefined && !startsWithDocuments(pipeline))
      fail(9, '$unionWith stage without explicit collection must have a pipeline with $documents as first stage');
  } else {
    fail(9, `the $unionWith stage specification must be an object or string, but found ${typeName(spec)}`);
  }
  if (coll !== undefined && (coll === '' || coll.includes('\0')))
    fail(73, `Invalid $unionWith namespace: ${env.ctx.catalog?.dbName ?? 'test'}.${coll}`);
  const sub = subPipeline(env, coll, pipeline, 'unionWith', false);
  return function* (input) {
    yield* input;
    yield* sub.run(env.vars, undefined);
  };
};
