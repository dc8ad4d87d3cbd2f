/**
 * Pipeline-style updates (`update: [{$set: ...}, {$unset: ...}]`): the aggregation stages that
 * reshape one document ($addFields/$set, $project/$unset, $replaceRoot/$replaceWith), run by the
 * aggregation code over the one document, whose result replaces it as a replacement does (the
 * `_id` kept, and unchangeable). $$NOW and $$CLUSTER_TIME are read from the engine's clock once per
 * statement, so every document of an updateMany sees the same values, as on mongod.
 */
import { EngineError, ErrorCode } from '../../errors';
import type { Document } from '../../values/types';
import { checkStagePositions, compilePipeline } from '../aggregate';
import { nextTimestamp, type UpdateResult } from './operators';
import { replaceDocument } from './replace';
import { sameBson } from './same-bson';

/** The stages mongod allows in an update pipeline (their isAllowedWithinUpdatePipeline). */
const UPDATE_STAGES = new Set(['$addFields', '$set', '$project', '$unset', '$replaceRoot', '$replaceWith']);

/** A parsed update pipeline: from a document to its replacement. */
export type PipelineUpdate = (doc: Document) => UpdateResult;

/**
 * Errors that only say this engine cannot run a stage outside the aggregate command (it needs the
 * engine's state, or an index the embedded engine does not have): mongod parses those stages
 * without them, so in an update they are refused like any other stage (72).
 */
const ENGINE_LIMITS: ReadonlySet<number> = new Set([ErrorCode.NotImplemented, ErrorCode.IndexNotFound]);

/**
 * Parse an update pipeline in mongod's order (pipeline_executor.cpp): every stage is parsed first,
 * so a malformed or unknown stage (40324) reports its own error wherever it stands; then the stage
 * positions are checked; then a known stage that cannot run in an update is InvalidOptions (72).
 * `constants` is the statement's `c` option, read as $$<name>.
 */
export function compilePipelineUpdate(pipeline: unknown[], now: Date, constants?: Document): PipelineUpdate {
  const letVars: Document | undefined = constants
    ? Object.fromEntries(Object.entries(constants).map(([k, v]) => [k, { $literal: v }]))
    : undefined;
  const ctx = { now, let: letVars, clusterTime: nextTimestamp(now) };
  let refused: string | undefined;
  for (const stage of pipeline) {
    try {
      compilePipeline([stage as Document], ctx);
    } catch (err) {
      // What compilePipeline throws is an Error; only an EngineError has a numeric code.
      if (!ENGINE_LIMITS.has((err as EngineError).code)) throw err;
    }
    // It parsed (or is a known stage): an object with one field, the stage's name.
    const name = Object.keys(stage as Document)[0];
    if (!UPDATE_STAGES.has(name)) refused ??= name;
  }
  checkStagePositions(pipeline);
  if (refused !== undefined)
    throw new EngineError(ErrorCode.InvalidOptions, `${refused} is not allowed to be used within an update`);
  const run = compilePipeline(pipeline as Document[], ctx);
  return (doc) => {
    const out = [...run([doc])];
    // Stryker disable next-line BlockStatement: unreachable, the update stages turn one document into exactly one (or throw)
    if (out.length !== 1) {
      // Stryker disable next-line StringLiteral: unreachable, see the guard above
      throw new EngineError(ErrorCode.InternalError, `An update pipeline must produce one document, got ${out.length}`);
    }
    const next = replaceDocument(doc, out[0], { allowDollarFields: true });
    return sameBson(next, doc) ? { doc, changed: false } : { doc: next, changed: true };
  };
}
