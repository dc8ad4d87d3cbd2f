/**
 * Values as mongosh 2.x prints them. mongosh formats with Node's util.inspect (depth 6, line width
 * 80, compact 3; cursor batches and explain output at full depth) after giving BSON values a
 * constructor-call form; this module does the same without touching any shared prototype: it copies
 * the value into a printable tree (BSON values and dates become fixed text) and inspects that.
 *
 * Forms: ObjectId('…'), ISODate('…'), Long('…'), Int32(…), Double(…), Decimal128('…'),
 * Timestamp({ t: …, i: … }), UUID('…'), MD5('…'), Binary.createFromBase64('…', n), MinKey(),
 * MaxKey(), BSONRegExp('…', '…'), Code('…'), BSONSymbol('…'), DBRef('…', …). A top-level string
 * prints as is (no quotes), `undefined` prints nothing.
 */
import { inspect } from 'node:util';
import { EJSON } from 'bson';

/** Shell objects (database, collection) print as a name: they implement this. */
export const shellDisplay = Symbol('ttlWorkbench.shellDisplay');

/**
 * Shell objects that print as a value of their own (a session prints as its id document, as in
 * mongosh): they implement this, returning that value.
 */
export const shellPrintable = Symbol('ttlWorkbench.shellPrintable');

export interface RenderOptions {
  /** Full depth and every array element (mongosh does this for cursor batches and explain). */
  full?: boolean;
  /** printjson's form: full, and every object and array member on its own line. */
  expanded?: boolean;
}

/** Values printed at full depth however deep they nest (explain output, as in mongosh). */
export const fullDepth = new WeakSet<object>();

const DEPTH = 6;
const MAX_ARRAY = 100;
const INSPECT_CUSTOM = Symbol.for('nodejs.util.inspect.custom');

/** Text that util.inspect prints verbatim. */
class Printable {
  constructor(private readonly text: string) {}
  [inspect.custom](): string {
    return this.text;
  }
}

const quote = (s: string): string => inspect(s);

function isDate(value: object): value is Date {
  return value instanceof Date || Object.prototype.toString.call(value) === '[object Date]';
}

export function formatDate(date: Date): string {
  const t = date.getTime();
  return Number.isNaN(t) ? 'Invalid Date' : `ISODate('${date.toISOString()}')`;
}

function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** The constructor-call text of a bson value, or undefined when `value` is not one. */
export function formatBson(value: object): string | undefined {
  const v = value as Record<string, unknown> & { _bsontype?: string; toString(enc?: string): string };
  switch (v._bsontype) {
    case undefined:
      return undefined;
    case 'ObjectId':
    case 'ObjectID':
      return `ObjectId('${(v as unknown as { toHexString(): string }).toHexString()}')`;
    case 'Long':
      return `Long('${v.toString()}'${v.unsigned ? ', true' : ''})`;
    case 'Int32':
      return `Int32(${inspect(v.value)})`;
    case 'Double':
      return `Double(${inspect(v.value)})`;
    case 'Decimal128':
      return `Decimal128('${v.toString()}')`;
    case 'Timestamp':
      return `Timestamp({ t: ${String(v.t)}, i: ${String(v.i)} })`;
    case 'MinKey':
      return 'MinKey()';
    case 'MaxKey':
      return 'MaxKey()';
    case 'Binary': {
      const bin = v as unknown as { sub_type: number; position: number; buffer: Uint8Array };
      const bytes = bin.buffer.subarray(0, bin.position);
      if (bin.sub_type === 4 && bytes.length === 16) {
        const hex = hexOf(bytes);
        return `UUID('${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}')`;
      }
      if (bin.sub_type === 5) return `MD5('${hexOf(bytes)}')`;
      return `Binary.createFromBase64('${Buffer.from(bytes).toString('base64')}', ${bin.sub_type})`;
    }
    case 'BSONRegExp':
      return `BSONRegExp(${quote(String(v.pattern))}, ${quote(String(v.options))})`;
    case 'BSONSymbol':
      return `BSONSymbol(${quote(String(v.value))})`;
    case 'Code': {
      const scope = v.scope as object | null | undefined;
      return `Code(${quote(String(v.code))}${scope ? `, ${inspectTree(scope, {})}` : ''})`;
    }
    case 'DBRef': {
      const oid = v.oid;
      const oidText = oid !== null && typeof oid === 'object' ? inspectTree(oid, {}) : inspect(oid);
      return `DBRef(${quote(String(v.collection))}, ${oidText}${v.db ? `, ${quote(String(v.db))}` : ''})`;
    }
    default:
      return undefined;
  }
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  // Object.prototype of either realm (its own prototype is null), or a null-prototype object.
  return proto === null || Object.getPrototypeOf(proto) === null;
}

function printable(value: unknown, level: number, options: RenderOptions, seen: Set<object>): unknown {
  if (value === null || typeof value !== 'object') return value;
  const bsonText = formatBson(value);
  if (bsonText !== undefined) return new Printable(bsonText);
  if (isDate(value)) return new Printable(formatDate(value));
  const display = (value as { [shellDisplay]?: unknown })[shellDisplay];
  if (typeof display === 'function') return new Printable(String(display.call(value)));
  const asValue = (value as { [shellPrintable]?: unknown })[shellPrintable];
  if (typeof asValue === 'function') return printable(asValue.call(value), level, options, seen);
  const array = Array.isArray(value);
  if (!array && !isPlainObject(value)) return value; // Map, Set, errors, class instances: util.inspect's own form
  // An object that says how it prints (inspect.custom, of either realm's Symbol.for) prints that way.
  if (typeof (value as { [INSPECT_CUSTOM]?: unknown })[INSPECT_CUSTOM] === 'function') return value;
  if (!options.full && level > DEPTH) return new Printable(array ? '[Array]' : '[Object]');
  if (seen.has(value)) return new Printable('[Circular]');
  seen.add(value);
  try {
    if (array) {
      const items = value as unknown[];
      const shown = options.full ? items.length : Math.min(items.length, MAX_ARRAY);
      // Holes stay holes (util.inspect says "<1 empty item>"), past the shown part too, where
      // util.inspect says "... n more items".
      const out: unknown[] = new Array(items.length);
      for (let i = 0; i < shown; i++) if (i in items) out[i] = printable(items[i], level + 1, options, seen);
      // util.inspect aligns a long array of numbers to the right only when the first hidden item
      // is a number too: that one item is kept as it is.
      if (shown < items.length && shown in items) out[shown] = items[shown];
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const item = printable((value as Record<string, unknown>)[key], level + 1, options, seen);
      if (key === '__proto__')
        Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
      else out[key] = item;
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

function inspectTree(value: unknown, options: RenderOptions): string {
  if (options.expanded) options = { ...options, full: true };
  return inspect(printable(value, 0, options, new Set()), {
    depth: options.full ? Infinity : DEPTH,
    maxArrayLength: options.full ? Infinity : MAX_ARRAY,
    ...(options.expanded ? { maxStringLength: Infinity } : {}),
    breakLength: 80,
    compact: options.expanded ? false : 3,
    colors: false,
    customInspect: true,
    showProxy: false,
  });
}

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\x00-\x08\x0B-\x1F\x7F-\x9F]/;

/**
 * mongosh's text for a value: strings as they are (unless they hold control characters),
 * everything else inspected. Returns undefined for `undefined` (mongosh prints nothing).
 */
export function render(value: unknown, options: RenderOptions = {}): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && !CONTROL_CHARS.test(value)) return value;
  if (value !== null && typeof value === 'object' && fullDepth.has(value))
    return inspectTree(value, { ...options, full: true });
  return inspectTree(value, options);
}

/** The text `print()` shows for one argument: strings raw (control characters too), undefined as nothing. */
export function renderForPrint(value: unknown, options: RenderOptions = {}): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  if (value !== null && typeof value === 'object' && fullDepth.has(value))
    return inspectTree(value, { ...options, full: true });
  return inspectTree(value, options);
}

/** printjson's text: print's, with every member on its own line, at full depth and length. */
export function renderForPrintjson(value: unknown): string {
  return renderForPrint(value, { expanded: true });
}

/** A value as mongosh code shows it: like render, but a string shows quoted. */
export function renderAsValue(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  return render(value) ?? 'undefined';
}

/** Relaxed extended JSON of a value, or undefined when it has none (functions, cycles). */
export function toRelaxedEjson(value: unknown): unknown {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value !== null && typeof value === 'object') {
    const display = (value as { [shellDisplay]?: unknown })[shellDisplay];
    if (typeof display === 'function') return String(display.call(value));
    const asValue = (value as { [shellPrintable]?: unknown })[shellPrintable];
    if (typeof asValue === 'function') return toRelaxedEjson(asValue.call(value));
  }
  try {
    return EJSON.serialize(value, { relaxed: true });
  } catch {
    return undefined;
  }
}
