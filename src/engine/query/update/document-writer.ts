/**
 * Update paths and the working copy of a document during one update: reading and writing by
 * path with copy-on-write, padding arrays, and the path errors mongod gives (56, 34, 28).
 */
import { DBRef, type ObjectId } from 'bson';
import { EngineError, ErrorCode } from '../../errors';
import { compareStrings } from '../../values/compare';
import { formatValue } from '../../values/format';
import { bsonTypeOf, isPlainObject, type Document } from '../../values/types';

const hasOwn = Object.prototype.hasOwnProperty;

// mongod's pathsupport::kMaxPaddingAllowed and the CannotBackfillArray code.
const MAX_PADDING = 1_500_000;
const CANNOT_BACKFILL_ARRAY = 34;
const EMPTY_FIELD_NAME = 56;
/** Assign an own property even for the key "__proto__" (plain assignment would set the prototype). */
export function setOwn(obj: Document, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

export function ownField(obj: Document, key: string): unknown {
  return hasOwn.call(obj, key) ? obj[key] : undefined;
}

export interface Path {
  dotted: string;
  parts: string[];
  /** parts[i] as an array index (digits only, as mongod's update path code reads them), else -1. */
  indexes: number[];
}

export const DIGITS = /^[0-9]+$/;

/** A concrete path (no positional parts): the dotted form, its parts and their array indexes. */
export function pathOf(parts: string[]): Path {
  const indexes = parts.map((p) => (DIGITS.test(p) && p.length <= 15 ? Number(p) : -1));
  return { dotted: parts.join('.'), parts, indexes };
}

/** `$`, `$[]` and `$[<id>]`: the parts an update path may hold that stand for array elements. */
export function isPositionalPart(part: string): boolean {
  return part === '$' || isArrayFilterPart(part);
}

/** `$[]` or `$[<id>]` (mongod's fieldchecker: at least 3 characters, `$[` ... `]`). */
export function isArrayFilterPart(part: string): boolean {
  return part.length >= 3 && part.startsWith('$[') && part.endsWith(']');
}

const DBREF_FIELDS = new Set(['$ref', '$id', '$db']);

/**
 * The parts of an update path, checked as mongod checks them when parsing: no empty path or empty
 * part (56), and no `$`-prefixed name other than the positional ones and a DBRef's fields below the
 * top (52).
 */
export function splitUpdatePath(dotted: string): string[] {
  if (dotted === '') throw new EngineError(EMPTY_FIELD_NAME, 'An empty update path is not valid.');
  const parts = dotted.split('.');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part === '') {
      throw new EngineError(
        EMPTY_FIELD_NAME,
        `The update path '${dotted}' contains an empty field name, which is not allowed.`,
      );
    }
    // A DBRef's own fields may be updated in place ("a.$id"), never at the top of the document.
    if (part.startsWith('$') && !isPositionalPart(part) && !(i > 0 && DBREF_FIELDS.has(part))) {
      throw new EngineError(
        ErrorCode.DollarPrefixedFieldName,
        `The dollar ($) prefixed field '${part}' in '${dotted}' is not valid for storage.`,
      );
    }
  }
  return parts;
}

/** Field-name order of mongod's update tree: component by component, as UTF-8 bytes. */
export function comparePaths(a: string[], b: string[]): number {
  // Stryker disable next-line MethodExpression: the one caller's paths always differ before the shorter ends (see below)
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareStrings(a[i], b[i]);
    if (c !== 0) return c;
  }
  // Stryker disable next-line ArithmeticOperator: unreachable, the only caller (upsertSeed) has refused equal and prefix paths
  return a.length - b.length;
}
/** "{_id: 1.0}" as mongod writes the document's identity into messages. */
export function idText(doc: Document): string {
  return hasOwn.call(doc, '_id') ? `{_id: ${formatValue(doc._id)}}` : '{no id}';
}

export function idElementText(doc: Document): string {
  return hasOwn.call(doc, '_id') ? `_id: ${formatValue(doc._id)}` : 'no id';
}

// ---------------------------------------------------------------------------------------------
// Reading and writing a document by path (copy-on-write)
// ---------------------------------------------------------------------------------------------

export type Lookup =
  | { kind: 'found'; value: unknown }
  | { kind: 'missing' }
  /** parts[at] cannot exist inside `holder` (a scalar, or an array with a non-numeric name). */
  | { kind: 'blocked'; at: number; holder: unknown };

const MISSING_LOOKUP: Lookup = { kind: 'missing' };

/** The working copy of one document during one update. */
export class DocWriter {
  root: Document;
  /** Containers created or copied during this update, which may be written in place. */
  private readonly owned = new Set<object>();

  constructor(readonly original: Document) {
    this.root = original;
  }

  read(path: Path): Lookup {
    let cur: unknown = this.root;
    const { parts, indexes } = path;
    for (let i = 0; i < parts.length; i++) {
      if (Array.isArray(cur)) {
        const idx = indexes[i];
        if (idx < 0) return { kind: 'blocked', at: i, holder: cur };
        if (idx >= cur.length) return MISSING_LOOKUP;
        cur = cur[idx];
      } else if (isPlainObject(cur)) {
        const next = ownField(cur, parts[i]);
        if (next === undefined) return MISSING_LOOKUP;
        cur = next;
      } else if (isDBRef(cur) && DBREF_FIELDS.has(parts[i])) {
        const next = dbrefField(cur, parts[i]);
        if (next === undefined) return MISSING_LOOKUP;
        cur = next;
      } else {
        return { kind: 'blocked', at: i, holder: cur };
      }
    }
    return { kind: 'found', value: cur };
  }

  /** Set the value at `path`, creating embedded documents and padding arrays with null on the way. */
  write(path: Path, value: unknown): void {
    const { parts, indexes } = path;
    let cur: Document | unknown[] = this.ownRoot();
    const last = parts.length - 1;
    for (let i = 0; i < last; i++) {
      const ref = dbrefOnPath(cur, path, i);
      if (ref) {
        // A DBRef is a value, not a container: it is replaced by one with the write made.
        attach(
          cur,
          parts[i],
          indexes[i],
          changedDBRef(ref, path, i + 1, (w, rest) => w.write(rest, value)),
        );
        return;
      }
      cur = this.ownChild(cur, parts[i], indexes[i]);
    }
    if (Array.isArray(cur)) {
      padArray(cur, indexes[last]);
      cur[indexes[last]] = value;
    } else {
      setOwn(cur, parts[last], value);
      if (DBREF_FIELDS.has(parts[last])) checkDBRefShape(cur);
    }
  }

  /** Remove the value at an existing path; an array element becomes null, as mongod's $unset does. */
  remove(path: Path): void {
    const { parts, indexes } = path;
    let cur: Document | unknown[] = this.ownRoot();
    const last = parts.length - 1;
    for (let i = 0; i < last; i++) {
      const ref = dbrefOnPath(cur, path, i);
      if (ref) {
        const changed =
          i + 1 === last
            ? withoutDBRefField(ref, parts[last])
            : changedDBRef(ref, path, i + 1, (w, rest) => w.remove(rest));
        attach(cur, parts[i], indexes[i], changed);
        return;
      }
      cur = this.ownChild(cur, parts[i], indexes[i]);
    }
    if (Array.isArray(cur)) cur[indexes[last]] = null;
    else delete cur[parts[last]];
  }

  private ownRoot(): Document {
    if (!this.owned.has(this.root)) {
      this.root = copyContainer(this.root) as Document;
      this.owned.add(this.root);
    }
    return this.root;
  }

  /** The child container at `part`, copied if still shared with the input, created if absent. */
  private ownChild(parent: Document | unknown[], part: string, index: number): Document | unknown[] {
    let child: unknown;
    if (Array.isArray(parent)) {
      padArray(parent, index);
      child = parent[index];
    } else {
      child = ownField(parent, part);
    }
    if (Array.isArray(child) || isPlainObject(child)) {
      if (this.owned.has(child)) return child;
      const copy = copyContainer(child);
      this.owned.add(copy);
      attach(parent, part, index, copy);
      return copy;
    }
    // Absent (or a null array slot being filled): create an embedded document.
    const created: Document = {};
    this.owned.add(created);
    attach(parent, part, index, created);
    return created;
  }
}

interface DBRefValue {
  _bsontype: 'DBRef';
  collection: string;
  oid: unknown;
  db?: string;
  fields: Document;
}

function isDBRef(v: unknown): v is DBRefValue {
  return (v as { _bsontype?: unknown } | null)?._bsontype === 'DBRef';
}

function dbrefField(ref: DBRefValue, part: string): unknown {
  if (part === '$ref') return ref.collection;
  if (part === '$id') return ref.oid;
  return ref.db;
}

/** A document holding $ref, $id or $db must be a DBRef: $ref (a string), then $id, then $db (a string). */
function checkDBRefShape(doc: Document): void {
  const keys = Object.keys(doc);
  const bad = (message: string): never => {
    throw new EngineError(ErrorCode.InvalidDBRef, `${message} Write a whole DBRef: {$ref: "<collection>", $id: <id>}.`);
  };
  const at = (k: string) => keys.indexOf(k);
  if (at('$db') >= 0) {
    if (typeof doc.$db !== 'string') bad(`The DBRef $db field must be a String, not a ${bsonTypeOf(doc.$db)}.`);
    if (at('$id') < 0 || at('$id') !== at('$db') - 1) bad('Found $db field without a $id before it, which is invalid.');
  }
  if (at('$id') >= 0 && (at('$ref') < 0 || at('$ref') !== at('$id') - 1))
    bad('Found $id field without a $ref before it, which is invalid.');
  if (at('$ref') >= 0) {
    if (typeof doc.$ref !== 'string') bad(`The DBRef $ref field must be a String, not a ${bsonTypeOf(doc.$ref)}.`);
    if (at('$id') !== at('$ref') + 1) bad('The DBRef $ref field must be followed by a $id field.');
  }
}

/** The DBRef at parts[i] when the path goes on through one of its own fields ($ref, $id, $db). */
function dbrefOnPath(cur: Document | unknown[], path: Path, i: number): DBRefValue | undefined {
  const { parts, indexes } = path;
  if (!DBREF_FIELDS.has(parts[i + 1])) return undefined;
  const ref = Array.isArray(cur) ? cur[indexes[i]] : ownField(cur, parts[i]);
  return isDBRef(ref) ? ref : undefined;
}

/**
 * The DBRef after a write of one of its fields (`a.$db`) or below one (`a.$id.x`), or a removal
 * below one: made in the document the DBRef stands for ({$ref, $id, $db}), as mongod, which stores
 * it as that document, makes it; the result must still be a DBRef ($ref and $db strings, 55).
 */
function changedDBRef(ref: DBRefValue, path: Path, at: number, change: (w: DocWriter, rest: Path) => void): DBRef {
  // Its extra fields follow $db, as in the stored document: a $db added after them is refused.
  const doc: Document = { $ref: ref.collection, $id: ref.oid };
  if (ref.db !== undefined) doc.$db = ref.db;
  Object.assign(doc, ref.fields);
  const w = new DocWriter(doc);
  change(w, pathOf(path.parts.slice(at)));
  checkDBRefShape(w.root);
  const { $ref, $id, $db, ...fields } = w.root;
  return new DBRef($ref as string, $id as ObjectId, $db as string | undefined, fields);
}

/**
 * The DBRef without `part`: only $db may go, as without $ref or $id what is left is no DBRef (55).
 * Any $db is left out of the check: mongod checks the removed field's left sibling, then its right
 * one, so it names the $ref left without its $id, or the $id left without its $ref.
 */
function withoutDBRefField(ref: DBRefValue, part: string): DBRef {
  // Stryker disable next-line StringLiteral: checking what is left without $db finds the $ref and $id it keeps, a DBRef
  if (part !== '$db') {
    const rest: Document = { $ref: ref.collection, $id: ref.oid };
    delete rest[part];
    checkDBRefShape(rest);
  }
  return new DBRef(ref.collection, ref.oid as ObjectId, undefined, ref.fields);
}

function copyContainer(c: Document | unknown[]): Document | unknown[] {
  // Spread defines own properties, so even a "__proto__" field is copied as data.
  return Array.isArray(c) ? c.slice() : { ...c };
}

function attach(parent: Document | unknown[], part: string, index: number, child: unknown): void {
  if (Array.isArray(parent)) parent[index] = child;
  else setOwn(parent, part, child);
}

/** Make `arr[index]` addressable by appending nulls (mongod caps the padding at 1,500,000). */
function padArray(arr: unknown[], index: number): void {
  if (index < arr.length) return;
  if (index - arr.length > MAX_PADDING) {
    throw new EngineError(CANNOT_BACKFILL_ARRAY, `can't backfill more than ${MAX_PADDING} elements`);
  }
  while (arr.length < index) arr.push(null);
}

export function notViable(path: Path, lookup: { at: number; holder: unknown }): EngineError {
  const holderName = path.parts[lookup.at - 1];
  return new EngineError(
    ErrorCode.PathNotViable,
    `Cannot create field '${path.parts[lookup.at]}' in element {${holderName}: ${formatValue(lookup.holder)}}`,
  );
}
