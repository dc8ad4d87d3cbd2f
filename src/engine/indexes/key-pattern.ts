/**
 * Index key patterns: parsing `{a: 1, "b.c": -1}`-style specs into typed fields, the default index
 * name, and what kind of index a pattern makes (btree, hashed, text, 2dsphere, 2d, wildcard).
 */
import { fail } from '../errors';
import { toDouble } from '../values/numbers';
import { isNumeric, type Document } from '../values/types';

export type IndexPlugin = 'btree' | 'hashed' | 'text' | '2dsphere' | '2d' | 'wildcard';

export interface KeyField {
  path: string;
  /** 1 or -1 for btree fields; the plugin name for special fields. */
  direction: 1 | -1 | Exclude<IndexPlugin, 'btree' | 'wildcard'>;
}

export interface KeyPattern {
  fields: KeyField[];
  plugin: IndexPlugin;
  /** The pattern exactly as given (values keep their BSON type), for listIndexes and comparison. */
  raw: Document;
}

const PLUGINS = new Set(['hashed', 'text', '2dsphere', '2d']);

export function parseKeyPattern(key: unknown): KeyPattern {
  if (key === null || typeof key !== 'object' || Array.isArray(key)) {
    fail('TypeMismatch', "The 'key' field of an index specification must be an object, e.g. {key: {createdAt: 1}}");
  }
  const entries = Object.entries(key as Document);
  if (entries.length === 0)
    fail('CannotCreateIndex', 'Index keys cannot be empty: give at least one field, e.g. {createdAt: 1}.');
  if (entries.length > 32)
    fail('CannotCreateIndex', `Index key pattern has ${entries.length} fields; the limit is 32.`);
  const fields: KeyField[] = [];
  let plugin: IndexPlugin = 'btree';
  for (const [path, value] of entries) {
    validateKeyPath(path);
    if (path === '$**' || path.endsWith('.$**')) {
      plugin = 'wildcard';
      fields.push({ path, direction: 1 });
      continue;
    }
    if (isNumeric(value)) {
      const d = toDouble(value);
      if (d === 0 || Number.isNaN(d)) {
        fail(
          'CannotCreateIndex',
          `Values in the index key pattern can't be 0 or NaN (field '${path}'): use 1 for ascending or -1 for descending.`,
        );
      }
      fields.push({ path, direction: d > 0 ? 1 : -1 });
    } else if (typeof value === 'string') {
      if (!PLUGINS.has(value)) {
        fail(
          'CannotCreateIndex',
          `Unknown index plugin '${value}' on field '${path}': use 1, -1, "hashed", "text", "2dsphere" or "2d".`,
        );
      }
      if (plugin !== 'btree' && plugin !== value) {
        fail(
          'CannotCreateIndex',
          `Can't use more than one index plugin for a single index (found '${plugin}' and '${value}').`,
        );
      }
      plugin = value as IndexPlugin;
      fields.push({ path, direction: value as KeyField['direction'] });
    } else {
      fail(
        'CannotCreateIndex',
        `Values in the index key pattern can only be numbers or strings; field '${path}' has ${JSON.stringify(value)}.`,
      );
    }
  }
  return { fields, plugin, raw: key as Document };
}

function validateKeyPath(path: string): void {
  if (path === '') fail('CannotCreateIndex', 'Index keys cannot be an empty field name.');
  const parts = path.split('.');
  for (const part of parts) {
    if (part === '') fail('CannotCreateIndex', `Index key '${path}' contains an empty field name.`);
    // DBRef fields ($ref, $id, $db) may be indexed past the first component ({'a.$id': 1}), as mongod allows.
    const dbRefField = (part === '$ref' || part === '$id' || part === '$db') && part !== parts[0];
    if (part.startsWith('$') && part !== '$**' && !dbRefField) {
      fail('CannotCreateIndex', `Index key contains an illegal field name: field name starts with '$' ('${path}').`);
    }
  }
}

/** mongod/driver default index name: `<field>_<value>` pairs joined by `_` (`a_1_b_-1`, `a_hashed`). */
export function defaultIndexName(key: Document): string {
  return Object.entries(key)
    .map(([field, value]) => `${field}_${isNumeric(value) ? String(toDouble(value)) : String(value)}`)
    .join('_');
}

/** Printable key pattern for messages: `{a: 1, b: -1}`. */
export function formatKeyPattern(key: Document): string {
  return `{ ${Object.entries(key)
    .map(([f, v]) => `${f}: ${typeof v === 'string' ? JSON.stringify(v) : String(toDouble(v))}`)
    .join(', ')} }`;
}
