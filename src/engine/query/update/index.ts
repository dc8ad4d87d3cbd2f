/**
 * Update documents: operator updates ($set, $inc, $push, ... with the positional `$`, `$[]` and
 * `$[<id>]` parts and arrayFilters), whole-document replacements, pipeline-style updates, and the
 * seed document an upsert starts from.
 *
 * An operator update is parsed once (compileUpdate; applyUpdate caches the compiled form per update
 * object, so updateMany over many documents parses once) into mongod's update tree
 * (update-tree.ts): parsing rejects unknown modifiers, malformed arguments (operators.ts) and
 * conflicting paths, whether or not any document matches. Applying expands the tree against the
 * document into concrete paths, in field-name order, which is why new fields appear in
 * lexicographic order whatever order the update listed them in.
 *
 * Applying never mutates the input: containers on a written path are copied the first time they are
 * written (copy-on-write), untouched subtrees are shared with the input, and every value taken from
 * the update is cloned. `changed` is false when every operation was a no-op in mongod's sense (the
 * new value is binary-identical to the old one: same type, same bytes), which is what nModified
 * counts.
 */
import { EngineError, ErrorCode } from '../../errors';
import type { Document } from '../../values/types';
import { NO_ARRAY_FILTERS, type ArrayFilters } from './array-filters';
import { runOps, type UpdateContext, type UpdateResult } from './operators';
import { checkTopLevelFields, replaceDocument } from './replace';
import { expandTree, parseUpdateTree } from './update-tree';

export { NO_ARRAY_FILTERS, parseArrayFilters, type ArrayFilters } from './array-filters';
export type { UpdateContext, UpdateResult } from './operators';
export { compilePipelineUpdate, type PipelineUpdate } from './pipeline';
export { sameBson } from './same-bson';
export { upsertSeed } from './upsert-seed';

/** A parsed operator update, reusable across documents. */
export interface CompiledUpdate {
  /** The update has a `$` part: apply needs the position the query matched (ctx.matchedField). */
  readonly usesMatchedPosition: boolean;
  apply(doc: Document, ctx: UpdateContext): UpdateResult;
}

const compiledCache = new WeakMap<Document, CompiledUpdate>();

/**
 * Whether `update` is an operator update ({$set: ...}) rather than a replacement document. mongod
 * decides by the first field; a mix is an error either way: a non-`$` field after operators is an
 * unknown modifier (9), a `$` field in a replacement is not storable (52).
 */
export function isOperatorUpdate(update: Document): boolean {
  const keys = Object.keys(update);
  if (keys.length === 0 || !keys[0].startsWith('$')) {
    checkReplacementFields(update);
    return false;
  }
  for (const key of keys) {
    if (!key.startsWith('$')) throw unknownModifier(key);
  }
  return true;
}

/**
 * Apply an operator update to `doc` (not mutated). The parsed update is cached per update object
 * when it has no array filters.
 */
export function applyUpdate(
  doc: Document,
  update: Document,
  ctx: UpdateContext,
  arrayFilters: ArrayFilters = NO_ARRAY_FILTERS,
): UpdateResult {
  if (arrayFilters !== NO_ARRAY_FILTERS) return compileUpdate(update, arrayFilters).apply(doc, ctx);
  let compiled = compiledCache.get(update);
  if (!compiled) {
    compiled = compileUpdate(update);
    compiledCache.set(update, compiled);
  }
  return compiled.apply(doc, ctx);
}

/**
 * Parse an operator update with its array filters, throwing what mongod answers for a malformed
 * one. Call it before matching documents: the error must surface even if nothing matches.
 */
export function compileUpdate(update: Document, arrayFilters: ArrayFilters = NO_ARRAY_FILTERS): CompiledUpdate {
  const tree = parseUpdateTree(update, arrayFilters);
  const usesMatchedPosition = treeUsesDollar(update);
  // Stryker disable next-line BlockStatement: a tree without $, $[] or $[<id>] parts expands to the same operations for every document; expanding it once only saves time
  if (!tree.dynamic) {
    // The paths do not depend on the document: expand once.
    const ops = expandTree(tree, undefined, { filters: arrayFilters });
    return { usesMatchedPosition, apply: (doc, ctx) => runOps(ops, doc, ctx) };
  }
  return {
    usesMatchedPosition,
    apply: (doc, ctx) =>
      runOps(expandTree(tree, doc, { filters: arrayFilters, matchedField: ctx.matchedField }), doc, ctx),
  };
}

function treeUsesDollar(update: Document): boolean {
  for (const name of Object.keys(update)) {
    const args = update[name] as Document;
    for (const field of Object.keys(args)) if (field.split('.').includes('$')) return true;
  }
  return false;
}

/**
 * Replace `doc` with `replacement`, `_id` first: doc's, or the replacement's own when it repeats it
 * (equal in value, of any type: that one is stored). Changing its value is refused (66), and so are
 * top-level `$` fields, as mongod does (52).
 */
export function applyReplacement(doc: Document, replacement: Document): Document {
  return replaceDocument(doc, replacement, { allowDollarFields: false });
}

function unknownModifier(name: string): EngineError {
  return new EngineError(
    ErrorCode.FailedToParse,
    `Unknown modifier: ${name}. Expected a valid update modifier or pipeline-style update specified as an array`,
  );
}

function checkReplacementFields(replacement: Document): void {
  checkTopLevelFields(replacement);
}
