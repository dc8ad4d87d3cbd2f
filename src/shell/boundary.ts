/**
 * Values crossing between the script realm and the engine.
 *
 * Into the engine: the engine recognises dates and regexes with `instanceof Date` / `instanceof
 * RegExp` of the host realm, but a regex literal (and any date not made through the injected
 * `Date`) belongs to the script's realm. `toEngine` replaces those, copying only the containers on
 * the path to a replaced value, so an ordinary document costs one walk and no allocation.
 *
 * Out of the engine: `fromEngine` copies replies (so a script never holds the engine's own objects),
 * makes their dates with the script's `Date` prototype, and turns Int32 into plain numbers, as
 * mongosh's driver does when it reads documents; Long, Decimal128 and the other BSON classes stay.
 */
import type { Document } from '../engine';

/** Deeper than any BSON document may nest (100); beyond it values pass unchanged (cycles). */
const MAX_DEPTH = 200;

export class Boundary {
  /**
   * @param RealmDate, RealmRegExp the script realm's own constructors (regex literals, stray dates)
   * @param ScriptDate the `Date` scripts see: dates handed to them are made with its prototype
   */
  constructor(
    private readonly RealmDate: DateConstructor,
    private readonly RealmRegExp: RegExpConstructor,
    private readonly ScriptDate: DateConstructor = Date,
  ) {}

  /** BSON types whose values the script gets with its own prototype (by `_bsontype`). */
  private readonly scriptPrototypes = new Map<string, object>();

  /**
   * Values of `bsontype` leave the engine with `proto` (which inherits the bson class's), so
   * `value.constructor` is the shell's global and `instanceof` holds for both.
   */
  useScriptPrototype(bsontype: string, proto: object): void {
    this.scriptPrototypes.set(bsontype, proto);
  }

  /** A date for the script (host realm, the script's Date prototype). */
  date(ms: number): Date {
    return Reflect.construct<[number], Date>(Date, [ms], this.ScriptDate);
  }

  toEngine<T>(value: T): T {
    if (value === null || typeof value !== 'object') return value;
    return this.convert(value, 0) as T;
  }

  private convert(value: object, depth: number): unknown {
    if (depth > MAX_DEPTH) return value;
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (item === null || typeof item !== 'object') continue;
        const next = this.convert(item, depth + 1);
        if (next !== item) {
          out ??= value.slice();
          out[i] = next;
        }
      }
      return out ?? value;
    }
    if (value instanceof Date || value instanceof RegExp) return value;
    if ((value as { _bsontype?: unknown })._bsontype !== undefined) return value;
    if (value instanceof this.RealmDate) return new Date(value.getTime());
    if (value instanceof this.RealmRegExp) return new RegExp(value.source, value.flags);
    let out: Document | undefined;
    const doc = value as Document;
    for (const key in doc) {
      if (!Object.prototype.hasOwnProperty.call(doc, key)) continue;
      const item = doc[key];
      if (item === null || typeof item !== 'object') continue;
      const next = this.convert(item, depth + 1);
      if (next !== item) {
        out ??= copyOwn(doc);
        out[key] = next;
      }
    }
    return out ?? value;
  }

  fromEngine<T>(value: T): T {
    return this.copyOut(value, 0) as T;
  }

  private copyOut(value: unknown, depth: number): unknown {
    if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
    if (Array.isArray(value)) {
      const out = new Array(value.length);
      for (let i = 0; i < value.length; i++) out[i] = this.copyOut(value[i], depth + 1);
      return out;
    }
    if (value instanceof Date) return this.date(value.getTime());
    if (value instanceof RegExp) return new RegExp(value.source, value.flags);
    const type = (value as { _bsontype?: unknown })._bsontype;
    if (type !== undefined) {
      if (type === 'Int32' || type === 'Double') return (value as { value: number }).value;
      // A stored BSON undefined reaches scripts as a present field holding undefined, as mongosh's
      // driver decodes type 6.
      if (type === 'Undefined') return undefined;
      const scriptProto = this.scriptPrototypes.get(type as string);
      if (scriptProto && Object.getPrototypeOf(value) !== scriptProto)
        return Object.assign(Object.create(scriptProto) as object, value);
      return value;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== null && proto !== Object.prototype) return value; // class instances (Map, …) as they are
    const out: Document = {};
    const doc = value as Document;
    for (const key in doc) {
      if (Object.prototype.hasOwnProperty.call(doc, key)) defineValue(out, key, this.copyOut(doc[key], depth + 1));
    }
    return out;
  }
}

function copyOwn(doc: Document): Document {
  const out: Document = {};
  for (const key in doc) {
    if (Object.prototype.hasOwnProperty.call(doc, key)) defineValue(out, key, doc[key]);
  }
  return out;
}

/** Plain assignment would call the `__proto__` setter for a field named "__proto__". */
function defineValue(out: Document, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}
