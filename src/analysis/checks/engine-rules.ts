/**
 * TTL011: a createIndex whose index the connected engine already has with another
 * expireAfterSeconds fails with IndexOptionsConflict (85, rules 2.3–2.4; the engine's
 * `compareSpecs` / `conflictError` decide). The fix rewrites the call into the collMod that does
 * change the value.
 */
import type { Document } from '../../engine';
import { compareSpecs, conflictError } from '../../engine/indexes/index-spec';
import { valuesEqual } from '../../engine/values/compare';
import type { IndexDef } from '../definitions';
import { nodeText, replace } from '../edits';
import type { Fix } from '../types';
import type { CheckContext } from './context';

const REWRITABLE = new Set(['createIndex', 'ensureIndex']);

export function checkAgainstEngine(ctx: CheckContext, def: IndexDef): void {
  const engine = ctx.options.engine;
  if (
    !engine ||
    !def.ns ||
    !def.spec ||
    !def.ttl ||
    // Stryker disable next-line ConditionalExpression: these definitions never get a namespace (definitions.ts), so !def.ns returned already
    def.via === 'indexOptions' ||
    // Stryker disable next-line ConditionalExpression: as above, a Mongoose path's definition has no namespace
    def.via === 'mongooseField' ||
    // Stryker disable next-line ConditionalExpression: as above, a Mongoose schema.index has no namespace
    def.via === 'mongooseIndex'
  )
    return;
  const known = engine.collection(def.ns);
  if (!known) return;
  for (const existing of known.indexes) {
    const kind = compareSpecs(def.spec, existing);
    if (kind !== 'sameNameDifferentOptions' && kind !== 'equivalentOtherNameAndOptions') continue;
    if (
      existing.expireAfterSeconds !== undefined &&
      valuesEqual(existing.expireAfterSeconds, def.spec.expireAfterSeconds)
    )
      continue;
    const err = conflictError(kind, def.spec, existing, def.ns.collection)!;
    const before =
      existing.expireAfterSeconds === undefined
        ? 'no expireAfterSeconds'
        : `expireAfterSeconds ${String(existing.expireAfterSeconds)}`;
    ctx.report(
      'TTL011',
      def.unit,
      def.ttl.value.at,
      `${known.db}.${known.name} already has index '${String(existing.name)}' with ${before}: this createIndex fails with IndexOptionsConflict (85) instead of changing it. ${err.message}`,
      collModFix(def, existing),
    );
    return;
  }
}

function collModFix(def: IndexDef, existing: Document): Fix[] {
  const call = def.call;
  if (!call || !REWRITABLE.has(def.via) || !def.dbRef || !def.key || def.key.node !== def.key.at || !def.ns) return [];
  const { unit } = def;
  const keyText = nodeText(unit, def.key.node);
  const valueText = nodeText(unit, def.ttl!.value.at);
  const method = def.dbRef.driver ? 'command' : 'runCommand';
  const text = `${def.dbRef.text}.${method}({ collMod: ${JSON.stringify(def.ns.collection)}, index: { keyPattern: ${keyText}, expireAfterSeconds: ${valueText} } })`;
  return [
    {
      title: `Change '${String(existing.name)}' with collMod instead`,
      edits: [replace(unit, call.node, text)],
      preferred: true,
    },
  ];
}
