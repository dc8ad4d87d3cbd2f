/**
 * mongod's dependency analysis of a pipeline: the fields read by the stages before the first one
 * that names every field it outputs ($project, $group, …) become a projection of the documents the
 * query layer returns, and a path in that projection may not have a part starting with '$'
 * (16410). A $match the query layer cannot take (one after $limit, $skip or $sample) is read that
 * way, so `{"a.$c": 4}`, a legal query, fails there.
 */
import { isPlainObject, type Document } from '../../values/types';
import { fail } from './shared';

/** Stages a $match cannot move ahead of, so it stays in the pipeline. */
const BARRIERS = new Set(['$limit', '$skip', '$sample']);

/** Stages whose output fields are all named in their spec: the analysis stops there. */
const EXHAUSTIVE = new Set([
  '$group',
  '$count',
  '$replaceRoot',
  '$replaceWith',
  '$bucket',
  '$bucketAuto',
  '$sortByCount',
  '$facet',
]);

function isExhaustive(name: string, spec: unknown): boolean {
  if (EXHAUSTIVE.has(name)) return true;
  if (name !== '$project' || !isPlainObject(spec)) return false;
  // An exclusion keeps every other field; anything else lists what it outputs.
  return Object.entries(spec).some(([k, v]) => k !== '_id' && v !== 0 && v !== false);
}

function collectPaths(filter: Document, out: string[]): void {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or' || key === '$nor') {
      if (Array.isArray(value)) for (const f of value) if (isPlainObject(f)) collectPaths(f, out);
    } else if (!key.startsWith('$')) {
      out.push(key);
    }
  }
}

export function checkMatchFieldPaths(pipeline: unknown[]): void {
  let barrier = false;
  const paths: string[] = [];
  for (const spec of pipeline) {
    if (!isPlainObject(spec)) return;
    const name = Object.keys(spec)[0];
    if (name === '$match' && barrier && isPlainObject(spec.$match)) collectPaths(spec.$match, paths);
    if (BARRIERS.has(name)) barrier = true;
    if (isExhaustive(name, spec[name])) {
      const bad = paths.find((p) => p.split('.').some((part) => part.startsWith('$')));
      if (bad !== undefined)
        fail(
          16410,
          `FieldPath field names may not start with '$'. Consider using $getField or $setField. ('${bad}' in a $match after $limit, $skip or $sample: move the $match first or rename the field.)`,
        );
      return;
    }
  }
}
