/**
 * The shape a journal frame must have before any of its ops is applied (see journal-records.ts).
 * A frame passes its checksum when its bytes are the ones written; this asks whether they are
 * bytes an engine wrote: a frame rewritten with wrong types and a fresh checksum (or written by
 * something else) is refused whole, so a commit is applied entirely or not at all and the
 * recovery reports it as damage instead of failing inside the engine.
 */
import { bsonClassOf, bsonTypeOf, type Document } from '../values/types';

function isDocument(v: unknown): v is Document {
  return bsonTypeOf(v) === 'object' && bsonClassOf(v) === undefined;
}

const typeOf = (v: unknown) => bsonTypeOf(v);

function isNs(v: unknown): v is string {
  return typeof v === 'string' && v.indexOf('.') > 0 && v.indexOf('.') < v.length - 1;
}

/** Why `op` is not an op the recorder writes, or undefined when it is one. */
function opProblem(op: unknown, i: number): string | undefined {
  if (!isDocument(op)) return `op ${i} is not a document`;
  if (op.put !== undefined) {
    if (!isNs(op.put)) return `op ${i} puts into "${String(op.put)}", not a namespace`;
    if (!isDocument(op.d)) return `op ${i} puts a ${typeOf(op.d)}, not a document`;
    if (!('_id' in op.d) || Array.isArray(op.d._id)) return `op ${i} puts a document without a valid _id`;
    if (op.ts !== undefined && !['double', 'int', 'long'].includes(typeOf(op.ts)))
      return `op ${i} has a _ts that is no number`;
    return undefined;
  }
  if (op.del !== undefined)
    return isNs(op.del)
      ? 'id' in op && !Array.isArray(op.id)
        ? undefined
        : `op ${i} deletes without a valid _id`
      : `op ${i} deletes from "${String(op.del)}", not a namespace`;
  if (op.cat !== undefined) {
    if (!isNs(op.cat)) return `op ${i} describes "${String(op.cat)}", not a namespace`;
    if (!isDocument(op.o)) return `op ${i}'s collection options are a ${typeOf(op.o)}`;
    if (!Array.isArray(op.ix)) return `op ${i}'s index list is a ${typeOf(op.ix)}`;
    for (const spec of op.ix as unknown[])
      if (!isDocument(spec) || !isDocument(spec.key) || typeof spec.name !== 'string')
        return `op ${i} holds an index spec without key and name`;
    return undefined;
  }
  if (op.drop !== undefined) return isNs(op.drop) ? undefined : `op ${i} drops "${String(op.drop)}", not a namespace`;
  if (op.ren !== undefined)
    return isNs(op.ren) && isNs(op.to) ? undefined : `op ${i} renames "${String(op.ren)}" to "${String(op.to)}"`;
  if (op.param !== undefined)
    return typeof op.param === 'string' ? undefined : `op ${i} sets a parameter whose name is a ${typeOf(op.param)}`;
  return `op ${i} is of no known kind (${Object.keys(op).slice(0, 3).join(', ')})`;
}

/** Why a decoded journal frame cannot be applied, or undefined when every op has its shape. */
export function journalFrameProblem(frame: Document): string | undefined {
  if (frame.t !== undefined && !(frame.t instanceof Date)) return `its time is a ${typeOf(frame.t)}, not a date`;
  if (frame.m !== undefined && !isDocument(frame.m)) return `its metrics are a ${typeOf(frame.m)}`;
  if (frame.ops === undefined) return frame.clock === true ? undefined : 'it holds no ops';
  if (!Array.isArray(frame.ops)) return `its op list is a ${typeOf(frame.ops)}`;
  const ops = frame.ops as unknown[];
  for (let i = 0; i < ops.length; i++) {
    const problem = opProblem(ops[i], i);
    if (problem) return problem;
  }
  return undefined;
}
