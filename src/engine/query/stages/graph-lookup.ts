/**
 * $graphLookup: a breadth-first search over a collection of the same database. Each round looks
 * up every value of the frontier in connectToField (through the catalog, so an index on it is
 * used), keeps the documents not seen before, and takes their connectFromField values as the next
 * frontier, until nothing new is found or maxDepth is reached.
 */
import { withCollator } from '../../collation/active';
import { Long } from 'bson';
import { toDouble } from '../../values/numbers';
import { isNumeric, isPlainObject, type Document } from '../../values/types';
import { compileExpression, valueKey, type CompiledExpression } from '../expressions';
import { compileFilter } from '../matcher';
import { fail, fieldPathParts, setPath, show, typeName, valuesAtPath } from './shared';
import type { StageParser } from './types';

const REQUIRED = ['from', 'as', 'startWith', 'connectFromField', 'connectToField'] as const;

export const parseGraphLookup: StageParser = (spec, env) => {
  if (!isPlainObject(spec))
    fail(40327, `the $graphLookup stage specification must be an object, but found ${typeName(spec)}`);
  let from: string | undefined;
  let as: string | undefined;
  let connectFrom: string | undefined;
  let connectTo: string | undefined;
  let depthField: string | undefined;
  let startWith: CompiledExpression | undefined;
  let maxDepth: number | undefined;
  let restrict: Document | undefined;
  for (const [k, v] of Object.entries(spec)) {
    switch (k) {
      case 'startWith':
        startWith = compileExpression(v);
        break;
      case 'maxDepth': {
        if (!isNumeric(v)) fail(40100, `Argument 'maxDepth' to $graphLookup must be a number, is type ${typeName(v)}`);
        const d = toDouble(v);
        if (!Number.isInteger(d))
          fail(40102, `Argument 'maxDepth' to $graphLookup must be representable as a long long, is ${show(v)}`);
        if (d < 0) fail(40101, `Argument 'maxDepth' to $graphLookup must be nonnegative, is ${show(v)}`);
        maxDepth = d;
        break;
      }
      case 'restrictSearchWithMatch':
        if (!isPlainObject(v)) fail(40185, `'restrictSearchWithMatch' must be an object, found ${typeName(v)}`);
        compileFilter(v, env.vars);
        restrict = v;
        break;
      case 'from':
      case 'as':
      case 'connectFromField':
      case 'connectToField':
      case 'depthField':
        if (typeof v !== 'string') fail(40103, `expected string as argument for ${k}, found: ${show(v)}`);
        if (k === 'from') from = v;
        else if (k === 'as') as = v;
        else if (k === 'connectFromField') connectFrom = v;
        else if (k === 'connectToField') connectTo = v;
        else depthField = v;
        break;
      default:
        fail(40104, `Unknown argument to $graphLookup: ${k}`);
    }
  }
  const given = { from, as, startWith, connectFromField: connectFrom, connectToField: connectTo };
  if (REQUIRED.some((k) => given[k] === undefined)) fail(40105, `${REQUIRED.join(', ')} must all be specified`);
  if (from === '' || from!.includes('\0')) fail(73, `invalid $graphLookup namespace: ${from}`);
  const asParts = fieldPathParts(as!);
  const fromParts = fieldPathParts(connectFrom!);
  fieldPathParts(connectTo!);
  const depthParts = depthField !== undefined ? fieldPathParts(depthField) : undefined;
  const catalog = env.ctx.catalog;

  const search = (doc: Document): Document[] => {
    const start = startWith!(doc, env.vars);
    let frontier = Array.isArray(start) ? start : start === undefined ? [] : [start];
    const seen = new Set<string>();
    const found: Document[] = [];
    for (let depth = 0; frontier.length > 0 && (maxDepth === undefined || depth <= maxDepth); depth++) {
      if (!catalog) break;
      const query: Document = { [connectTo!]: { $in: dedupe(frontier) } };
      const next: unknown[] = [];
      for (const match of catalog.find(catalog.dbName, from!, restrict ? { $and: [query, restrict] } : query)) {
        // Documents are told apart by _id as bytes: "foo" and "FOO" are two nodes under any collation.
        const key = withCollator(null, () => valueKey(match._id));
        if (seen.has(key)) continue;
        seen.add(key);
        found.push(depthParts ? setPath(match, depthParts, Long.fromNumber(depth)) : match);
        next.push(...valuesAtPath(match, fromParts));
      }
      frontier = next;
    }
    return found;
  };
  return function* (input) {
    for (const doc of input) yield setPath(doc, asParts, search(doc));
  };
};

function dedupe(values: unknown[]): unknown[] {
  const keys = new Set<string>();
  const out: unknown[] = [];
  for (const v of values) {
    const k = valueKey(v);
    if (!keys.has(k)) {
      keys.add(k);
      out.push(v);
    }
  }
  return out;
}
