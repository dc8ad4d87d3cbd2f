/**
 * The stages an explained aggregate lists after its $cursor, as mongod serializes them: a stage
 * shows its whole parsed spec, defaults included, not the text the user sent. Explain also refuses
 * to run a writing stage: any verbosity past queryPlanner would execute it.
 */
import { fail } from '../errors';
import { serializedProjection } from './explain-expression';
import { optimizedMatch } from './explain-match';
import { isPlainObject, type Document } from '../values/types';

/** The stage as explain prints it (`dbName` is the database the aggregate runs on). */
export function explainedStage(stage: unknown, dbName: string): unknown {
  if (!isPlainObject(stage) || Object.keys(stage).length !== 1) return stage;
  if ('$merge' in stage) return { $merge: mergeSpec(stage.$merge, dbName) };
  if (isPlainObject(stage.$match)) return { $match: optimizedMatch(stage.$match) };
  if (isPlainObject(stage.$project)) return { $project: serializedProjection(stage.$project) };
  return stage;
}

/**
 * $merge's spec with its defaults: the target as {db, coll}, `on` ("_id" unless given; one field
 * as a string), whenMatched "merge" and whenNotMatched "insert", and a pipeline's `let` with its
 * implicit `new: "$$ROOT"`.
 */
function mergeSpec(spec: unknown, dbName: string): Document {
  if (typeof spec === 'string') spec = { into: spec };
  if (!isPlainObject(spec)) return {};
  const into = spec.into;
  const target = typeof into === 'string' ? { db: dbName, coll: into } : { db: dbName, ...(into as Document) };
  const on = spec.on ?? '_id';
  const whenMatched = spec.whenMatched ?? 'merge';
  const out: Document = {
    into: target,
    on: Array.isArray(on) && on.length === 1 ? on[0] : on,
  };
  if (Array.isArray(whenMatched)) out.let = { new: '$$ROOT', ...(spec.let ?? {}) };
  out.whenMatched = whenMatched;
  out.whenNotMatched = spec.whenNotMatched ?? 'insert';
  return out;
}

/**
 * $out and $merge write as they run, and explain at executionStats or allPlansExecution runs the
 * pipeline: mongod refuses it ($merge 51184, $out 51029) rather than write.
 */
export function refuseExecutedWrite(pipeline: unknown, verbosity: unknown): void {
  if (verbosity === 'queryPlanner' || !Array.isArray(pipeline) || pipeline.length === 0) return;
  const last = pipeline[pipeline.length - 1];
  if (!isPlainObject(last)) return;
  const name = '$merge' in last ? '$merge' : '$out' in last ? '$out' : undefined;
  if (name === undefined) return;
  fail(
    name === '$merge' ? 51184 : 51029,
    `explain of ${name} is not allowed with verbosity ${String(verbosity)}: explain it with verbosity "queryPlanner", which writes nothing.`,
  );
}
