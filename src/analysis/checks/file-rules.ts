/**
 * Rules about definitions relative to each other in one input:
 * TTL015 the same key or name defined twice with different options (rules 2.3–2.5, decided by the
 * engine's `compareSpecs` / `conflictError`), and TTL016 options split across arguments: the
 * third argument of `createIndex` is mongosh's `commitQuorum` (the Node driver ignores it), so
 * options written there never reach the index.
 */
import { compareSpecs, conflictError } from '../../engine/indexes/index-spec';
import type { IndexDef } from '../definitions';
import { nodeText, removeRange, insertAt, spanOf, textBetween } from '../edits';
import type { Lit } from '../literals';
import type { Fix } from '../types';
import { nsText, type CheckContext } from './context';

const INDEX_OPTIONS = new Set([
  'expireAfterSeconds',
  'partialFilterExpression',
  'unique',
  'sparse',
  'name',
  'hidden',
  'collation',
  'background',
  'weights',
  'wildcardProjection',
]);

export function checkDuplicates(ctx: CheckContext): void {
  // Only definitions of the same collection can clash: group first, so the work stays linear in
  // the number of collections a file touches.
  const groups = new Map<string, IndexDef[]>();
  for (const d of ctx.defs.indexes) {
    if (!d.spec || !d.ns || d.via === 'indexOptions') continue;
    // Strict about the database here: `db.x` and `db.getSiblingDB('other').x` may well differ.
    const key = `${d.ns.db ?? ''}\u0000${d.ns.collection}`;
    const list = groups.get(key) ?? [];
    list.push(d);
    groups.set(key, list);
  }
  for (const defs of groups.values()) {
    for (let j = 1; j < defs.length; j++) {
      const later = defs[j];
      for (let i = 0; i < j; i++) {
        const earlier = defs[i];
        if (ctx.failed.has(earlier)) continue;
        const kind = compareSpecs(later.spec!, earlier.spec!);
        const err = conflictError(kind, later.spec!, earlier.spec!, later.ns!.collection);
        if (!err) continue;
        ctx.report(
          'TTL015',
          later.unit,
          later.ttl?.node ?? later.key?.at ?? later.site,
          `${nsText(later.ns!)} gets this index twice with different options in this file: run after the first definition, this one fails with ${err.codeName} (${err.code}): ${err.message}`,
          [],
          { related: [{ ...spanOf(earlier.unit, firstSite(earlier, later)), message: 'first defined here' }] },
        );
        break;
      }
    }
  }
}

export function checkSplitOptions(ctx: CheckContext): void {
  for (const { def, extra } of ctx.defs.splitOptions) {
    if (extra.kind !== 'object') continue;
    const misplaced = extra.props.filter((p) => INDEX_OPTIONS.has(p.key)).map((p) => p.key);
    if (misplaced.length === 0) continue;
    const lost = misplaced.includes('expireAfterSeconds')
      ? ' This index is created without a TTL: nothing ever expires through it.'
      : '';
    ctx.report(
      'TTL016',
      def.unit,
      extra.at,
      `${misplaced.join(', ')} ${misplaced.length === 1 ? 'is' : 'are'} in the third argument of ${def.via}, which is not index options: mongosh reads it as commitQuorum and the Node driver ignores it, so ${misplaced.length === 1 ? 'it is' : 'they are'} silently lost.${lost} Put every option in the second argument.`,
      mergeFix(def, extra),
    );
  }
}

/** Move the third argument's properties into the second argument (an object literal). */
function mergeFix(def: IndexDef, extra: Lit & { kind: 'object' }): Fix[] {
  const call = def.call?.node;
  const options = def.options;
  if (
    !call ||
    options?.kind !== 'object' ||
    options.node !== options.at ||
    extra.node !== extra.at ||
    options.node.type !== 'ObjectExpression' ||
    extra.node.type !== 'ObjectExpression'
  )
    return [];
  const { unit } = def;
  const extraProps = extra.node.properties;
  if (extraProps.length === 0) return [];
  const moved = textBetween(unit, extraProps[0].start ?? 0, extraProps[extraProps.length - 1].end ?? 0);
  const target = options.node.properties;
  const insert = target.length
    ? insertAt(unit, target[target.length - 1].end ?? 0, `, ${moved}`)
    : insertAt(unit, (options.node.end ?? 1) - 1, ` ${moved} `);
  const args = call.arguments;
  // Stryker disable next-line MethodExpression,ArrowFunction: @babel/parser's error recovery drops holes from call arguments, so none is ever missing
  if (args.some((a) => !a)) return [];
  const thirdIndex = args.findIndex((a) => a === extra.node);
  if (thirdIndex < 1) return [];
  const removeEnd = args[args.length - 1].end ?? 0;
  return [
    {
      title: `Move ${nodeText(unit, extra.node).length > 40 ? 'the options' : nodeText(unit, extra.node)} into the index options`,
      edits: [insert, removeRange(unit, args[thirdIndex - 1].end ?? 0, removeEnd)],
      preferred: true,
    },
  ];
}

/**
 * Where the first definition is pointed at: its key, unless both calls take their keys from one
 * constant (`createIndexes(KEYS, ...)` twice), where the key cannot tell them apart: then its call.
 * A definition with a spec has a key, and keys are shared only by items of a constant array, which
 * a call reads.
 */
function firstSite(earlier: IndexDef, later: IndexDef): IndexDef['site'] {
  const key = earlier.key!.at;
  return key === later.key!.at ? earlier.call!.node : key;
}
