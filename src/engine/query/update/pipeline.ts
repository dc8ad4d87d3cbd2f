/**
 * Pipeline-style updates (`update: [{$set: ...}, {$unset: ...}]`): the aggregation stages that
 * reshape one document ($addFields/$set, $project/$unset, $replaceRoot/$replaceWith), run by the
 * aggregation code over the one document, whose result replaces it as a replacement does (the
 * `_id` kept, and unchangeable). $$NOW and $$CLUSTER_TIME are read from the engine's clock once per
 * statement, so every document of an updateMany sees the same values, as on mongod.
 */
import { EngineError, ErrorCode } from '../../errors';
import type { Document } from '../../values/types';
import { compilePipeline } from '../aggregate';
import { nextTimestamp, type UpdateResult } from './operators';
import { replaceDocument } from './replace';
import { sameBson } from './same-bson';

/** The stages mongod allows in an update pipeline (their isAllowedWithinUpdatePipeline). */
const UPDATE_STAGES = new Set(['$addFields', '$set', '$project', '$unset', '$replaceRoot', '$replaceWith']);

/** A parsed update pipeline: from a document to its replacement. */
export type PipelineUpdate = (doc: Document) => UpdateResult;

/**
 * Parse an update pipeline as mongod does before reading documents: an unknown stage is 40324,
 * a known stage that cannot run in an update is InvalidOptions (72), malformed stages give their
 * own codes. `constants` is the statement's `c` option, read as $$<name>.
 */
export function compilePipelineUpdate(pipeline: unknown[], now: Date, constants?: Document): PipelineUpdate {
  const letVars: Document | undefined = constants
    ? Object.fromEntries(Object.entries(constants).map(([k, v]) => [k, { $literal: v }]))
    : undefined;
  const ctx = { now, let: letVars, clusterTime: nextTimestamp(now) };
  for (const stage of pipeline) {
    const name = stageNameOf(stage);
    if (name !== undefined && !UPDATE_STAGES.has(name)) {
      try {
        compilePipeline([stage as Document], ctx);
      } catch (err) {
        // An unknown stage name is reported as such; any stage mongod knows is refused here.
        if (err instanceof EngineError && err.code === 40324) throw err;
      }
      throw new EngineError(ErrorCode.InvalidOptions, `${name} is not allowed to be used within an update`);
    }
  }
  const run = compilePipeline(pipeline as Document[], ctx);
  return (doc) => {
    const out = [...run([doc])];
    if (out.length !== 1) {
      throw new EngineError(ErrorCode.InternalError, `An update pipeline must produce one document, got ${out.length}`);
    }
    const next = replaceDocument(doc, out[0], { allowDollarFields: true });
    return sameBson(next, doc) ? { doc, changed: false } : { doc: next, changed: true };
  };
}

function stageNameOf(stage: unknown): string | undefined {
  if (stage === null || typeof stage !== 'object' || Array.isArray(stage)) return undefined;
  const keys = Object.keys(stage);
  return keys.length === 1 ? keys[0] : undefined;
}
