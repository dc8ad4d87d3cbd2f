/**
 * An aggregate asked for an empty first batch ({cursor: {batchSize: 0}}): mongod parses the pipeline
 * and answers at once, before its plan reads a document, so an error that depends on the data
 * (a $add of a string) comes from the first getMore instead, and kills the cursor there.
 */
import type { CursorGuard } from '../catalog/cursors';
import { compilePipeline, type PipelineContext } from '../query/aggregate';
import type { Document } from '../values/types';

/** Stages that write: their pipelines run in the aggregate itself, whatever the batch size. */
const WRITING_STAGES = ['$out', '$merge'];

/** Whether `pipeline` can wait for the first getMore (it writes nothing). */
export function canDefer(pipeline: Document[]): boolean {
  return !pipeline.some((stage) => WRITING_STAGES.some((name) => Object.prototype.hasOwnProperty.call(stage, name)));
}

/**
 * The documents array and guard of a cursor that runs `read` at its first getMore. The pipeline is
 * compiled now, so a parse error still fails the aggregate.
 */
export function deferredRead(
  pipeline: Document[],
  ctx: PipelineContext,
  read: () => Document[],
): { docs: Document[]; guard: CursorGuard } {
  compilePipeline(pipeline, ctx);
  const docs: Document[] = [];
  let pending = true;
  const guard: CursorGuard = () => {
    if (!pending) return;
    pending = false;
    // The cursor keeps this array: filling it hands the results to the getMore under way.
    for (const doc of read()) docs.push(doc);
  };
  return { docs, guard };
}
