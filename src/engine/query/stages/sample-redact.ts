/** $sample (a random subset without repeats) and $redact (keep, prune or descend into each level). */
import { toDouble } from '../../values/numbers';
import { isNumeric, isPlainObject, type Document } from '../../values/types';
import { compileExpression, type Vars } from '../expressions';
import { fail, put, show } from './shared';
import type { StageParser } from './types';

/** A small seedable generator (mulberry32), so tests and replays can fix the draw. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const parseSample: StageParser = (spec) => {
  if (!isPlainObject(spec)) fail(28745, 'the $sample stage specification must be an object');
  let size: number | undefined;
  for (const [k, v] of Object.entries(spec)) {
    if (k !== 'size') fail(28748, `unrecognized option to $sample: ${k}`);
    if (!isNumeric(v)) fail(28746, 'size argument to $sample must be a number');
    size = toDouble(v);
    if (size < 0) fail(28747, 'size argument to $sample must not be negative');
  }
  if (size === undefined) fail(28749, '$sample stage must specify a size');
  const n = Math.trunc(size);
  const random = samplingSource.next;
  return function* (input) {
    // Reservoir sampling: every subset of n documents is equally likely, in random order.
    const chosen: Document[] = [];
    let seen = 0;
    for (const doc of input) {
      seen++;
      if (chosen.length < n) chosen.push(doc);
      else {
        const j = Math.floor(random() * seen);
        if (j < n) chosen[j] = doc;
      }
    }
    for (let i = chosen.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [chosen[i], chosen[j]] = [chosen[j], chosen[i]];
    }
    yield* chosen;
  };
};

/** Where $sample draws from: Math.random unless a test seeds it. */
export const samplingSource: { next: () => number } = { next: Math.random };

const KEEP = '$$KEEP';
const PRUNE = '$$PRUNE';
const DESCEND = '$$DESCEND';

export const parseRedact: StageParser = (spec, env) => {
  const expr = compileExpression(spec);
  const vars: Vars = Object.freeze({ ...env.vars, KEEP, PRUNE, DESCEND });
  const redact = (doc: Document, root: Document): Document | undefined => {
    const scope: Vars = Object.freeze({ ...vars, CURRENT: doc });
    const decision = expr(root, scope);
    if (decision === KEEP) return doc;
    if (decision === PRUNE) return undefined;
    if (decision !== DESCEND)
      fail(
        17053,
        `$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned ${show(decision)}`,
      );
    const out: Document = {};
    for (const [k, v] of Object.entries(doc)) {
      if (isPlainObject(v)) {
        const sub = redact(v, root);
        if (sub !== undefined) put(out, k, sub);
      } else if (Array.isArray(v)) {
        put(out, k, redactArray(v, root));
      } else put(out, k, v);
    }
    return out;
  };
  const redactArray = (arr: unknown[], root: Document): unknown[] => {
    const out: unknown[] = [];
    for (const el of arr) {
      if (isPlainObject(el)) {
        const sub = redact(el, root);
        if (sub !== undefined) out.push(sub);
      } else if (Array.isArray(el)) out.push(redactArray(el, root));
      else out.push(el);
    }
    return out;
  };
  return function* (input) {
    for (const doc of input) {
      const out = redact(doc, doc);
      if (out !== undefined) yield out;
    }
  };
};
