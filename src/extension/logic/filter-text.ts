/**
 * A filter typed into an input box, in mongosh syntax as well as JSON: `{status: "done"}`,
 * `{kind: {$in: ['a', 'b']}}`, `{at: {$lt: ISODate("2026-01-01")}}`, `{n: NumberLong(5)}`, or
 * extended JSON. The text is parsed as one expression and read by the source analysis's literal
 * reader (the same reading of mongosh literals the diagnostics use): nothing is executed, so a
 * value that is only known when code runs (`new Date()`, a variable) is refused with what to type
 * instead. No `vscode` import.
 */
import { parseExpression } from '@babel/parser';
import { EJSON } from 'bson';
import type { Document } from '../../engine';
import { Evaluator, type Lit } from '../../analysis/literals';

export type FilterText = { ok: true; filter: Document | undefined } | { ok: false; error: string };

const NO_BINDINGS = { bindingCount: () => undefined, constInit: () => undefined };

/** The first part of a literal whose value is only known at run time, in words. */
function unknownPart(lit: Lit, path: string): string | undefined {
  switch (lit.kind) {
    case 'unknown':
      return path || 'the value';
    case 'typed':
      return lit.type === 'date' && lit.date ? undefined : path || 'the value';
    case 'array':
      if (!lit.complete) return path || 'the array';
      for (const [i, item] of lit.items.entries()) {
        const u = unknownPart(item, `${path}[${i}]`);
        if (u) return u;
      }
      return undefined;
    case 'object':
      if (!lit.complete) return path || 'the document';
      for (const p of lit.props) {
        const u = unknownPart(p.value, path ? `${path}.${p.key}` : p.key);
        if (u) return u;
      }
      return undefined;
    default:
      return undefined;
  }
}

function plain(lit: Lit): unknown {
  switch (lit.kind) {
    case 'value':
      return lit.value;
    case 'typed':
      return lit.date;
    case 'array':
      return lit.items.map(plain);
    case 'object': {
      const out: Document = {};
      // Field names are data: defineProperty, never `out[key] =` (a `__proto__` key stays a field).
      for (const p of lit.props)
        Object.defineProperty(out, p.key, {
          value: plain(p.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      // Extended JSON ({"$date": …}, {"$oid": …}) becomes the BSON value, as mongosh reads it.
      const keys = Object.keys(out);
      if (keys.length >= 1 && keys.length <= 2 && keys.every((k) => EJSON_KEYS.has(k))) {
        try {
          return EJSON.deserialize(out, { relaxed: true }) as unknown;
        } catch {
          return out;
        }
      }
      return out;
    }
    default:
      return undefined;
  }
}

const EJSON_KEYS = new Set([
  '$date',
  '$oid',
  '$numberLong',
  '$numberInt',
  '$numberDouble',
  '$numberDecimal',
  '$binary',
  '$uuid',
  '$regularExpression',
  '$timestamp',
  '$minKey',
  '$maxKey',
]);

const EXAMPLE = 'e.g. {status: "done"} or {kind: {$in: ["a", "b"]}}';

/** Reads the filter; empty text is no filter. */
export function parseFilterText(text: string): FilterText {
  const t = text.trim();
  if (!t) return { ok: true, filter: undefined };
  if (!t.startsWith('{'))
    return { ok: false, error: `A filter is a document in braces, ${EXAMPLE}; leave the box empty for none.` };
  let lit: Lit;
  try {
    const node = parseExpression(t, { plugins: ['typescript'] });
    lit = new Evaluator(NO_BINDINGS).eval(node);
  } catch (err) {
    return {
      ok: false,
      error: `Cannot read the filter: ${(err as Error).message.replace(/ \(\d+:\d+\)$/, '')}. Type a document, ${EXAMPLE}.`,
    };
  }
  if (lit.kind !== 'object') return { ok: false, error: `A filter is a document, ${EXAMPLE}.` };
  const unknown = unknownPart(lit, '');
  if (unknown)
    return {
      ok: false,
      error: `${unknown} is only known when code runs: type a fixed value (a date as ISODate("2026-01-01T00:00:00Z")).`,
    };
  return { ok: true, filter: plain(lit) as Document };
}
