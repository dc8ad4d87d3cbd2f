/**
 * The table the notebook renderer draws for a list of documents: columns are the top-level fields
 * in the order they first appear (`_id` first), cells are short mongosh-like text of relaxed
 * extended JSON values. Pure and DOM-free: the renderer (a browser bundle) only builds elements
 * from this, and the unit tests check it in Node.
 */

export interface DocumentTable {
  columns: string[];
  /** One row per document; `undefined` where a document lacks the field (distinct from null). */
  rows: Array<Array<string | undefined>>;
  /** The cursor had more documents than shown ("Type "it" for more"). */
  hasMore: boolean;
}

/** Cap the columns so a wide document does not produce an unreadable table. */
export const MAX_COLUMNS = 24;
const MAX_CELL = 120;

const IDENT = /^[A-Za-z_$][\w$]*$/;

/** A field name as mongosh shows it: `__proto__` as `['__proto__']` (in a literal it would set the prototype). */
function keyText(k: string): string {
  if (k === '__proto__') return "['__proto__']";
  return IDENT.test(k) ? k : quote(k);
}

function quote(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

/** One relaxed extended JSON value as mongosh-like text (`ISODate('…')`, `ObjectId('…')`, `{ a: 1 }`). */
export function formatEjsonValue(v: unknown, depth = 0): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return depth === 0 ? v : quote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v))
    return depth > 2
      ? '[Array]'
      : `[ ${v.map((x) => formatEjsonValue(x, depth + 1)).join(', ')} ]`.replace('[  ]', '[]');
  if (typeof v !== 'object') return String(v);
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1 || (keys.length === 2 && '$binary' in o)) {
    const k = keys[0];
    const x = o[k];
    switch (k) {
      case '$oid':
        return `ObjectId('${String(x)}')`;
      case '$date': {
        if (typeof x === 'string') return `ISODate('${Number.isNaN(Date.parse(x)) ? x : new Date(x).toISOString()}')`;
        const ms = (x as { $numberLong?: string }).$numberLong;
        return ms !== undefined && Number.isFinite(Number(ms))
          ? `ISODate('${new Date(Number(ms)).toISOString()}')`
          : `ISODate(${JSON.stringify(x)})`;
      }
      case '$numberLong':
        return `Long('${String(x)}')`;
      case '$numberDecimal':
        return `Decimal128('${String(x)}')`;
      case '$numberDouble':
        return String(x);
      case '$numberInt':
        return String(x);
      case '$timestamp': {
        const t = x as { t: number; i: number };
        return `Timestamp({ t: ${t.t}, i: ${t.i} })`;
      }
      case '$regularExpression': {
        const r = x as { pattern: string; options: string };
        return `/${r.pattern}/${r.options}`;
      }
      case '$binary': {
        const b = x as { base64?: string; subType?: string };
        return `Binary.createFromBase64('${b.base64 ?? ''}', ${parseInt(b.subType ?? '0', 16)})`;
      }
      case '$minKey':
        return 'MinKey()';
      case '$maxKey':
        return 'MaxKey()';
      default:
        break;
    }
  }
  if (depth > 2) return '[Object]';
  if (keys.length === 0) return '{}';
  return `{ ${keys.map((k) => `${keyText(k)}: ${formatEjsonValue(o[k], depth + 1)}`).join(', ')} }`;
}

function clip(text: string): string {
  return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text;
}

export function tableOf(payload: unknown): DocumentTable {
  const p = payload as { documents?: unknown; hasMore?: unknown } | unknown[] | null;
  const docs = Array.isArray(p) ? p : Array.isArray(p?.documents) ? p.documents : [];
  const hasMore = !Array.isArray(p) && p?.hasMore === true;
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const d of docs) {
    if (d === null || typeof d !== 'object' || Array.isArray(d)) continue;
    for (const k of Object.keys(d)) {
      if (!seen.has(k)) {
        seen.add(k);
        columns.push(k);
      }
    }
  }
  const id = columns.indexOf('_id');
  if (id > 0) columns.unshift(...columns.splice(id, 1));
  const shown = columns.slice(0, MAX_COLUMNS);
  const rows = docs.map((d) => {
    const o = (d !== null && typeof d === 'object' && !Array.isArray(d) ? d : {}) as Record<string, unknown>;
    return shown.map((c) => (Object.prototype.hasOwnProperty.call(o, c) ? clip(formatEjsonValue(o[c])) : undefined));
  });
  return { columns: shown, rows, hasMore };
}
