/**
 * createIndexes specs: which fields a spec may have, the normalized listIndexes document
 * `{v: 2, key, name, ...options}`, and how a requested spec compares with an existing one
 * (identical, conflicting by name, or equivalent under another name: spec rules 2.2–2.5).
 */
import { collationDocument, parseCollation } from '../collation/spec';
import { EngineError, fail } from '../errors';
import { valuesEqual } from '../values/compare';
import { formatValue } from '../values/format';
import { toDouble } from '../values/numbers';
import { isPlainObject, type Document } from '../values/types';
import { defaultIndexName, parseKeyPattern, type KeyPattern } from './key-pattern';

/** Options mongod accepts in an index spec; anything else is 197 InvalidIndexSpecificationOption. */
const ALLOWED_FIELDS = new Set([
  'key',
  'name',
  'v',
  'unique',
  'sparse',
  'partialFilterExpression',
  'expireAfterSeconds',
  'hidden',
  'background',
  'ns',
  'collation',
  'storageEngine',
  'weights',
  'default_language',
  'language_override',
  'textIndexVersion',
  '2dsphereIndexVersion',
  'bits',
  'min',
  'max',
  'wildcardProjection',
  'prepareUnique',
  'dropDups',
]);

/**
 * The spec without the fields no index takes: createIndexes' `ignoreUnknownIndexOptions: true`
 * drops them (and lists the index without them) instead of refusing the spec.
 */
export function withoutUnknownIndexOptions(input: unknown): unknown {
  if (!isPlainObject(input)) return input;
  const out: Document = {};
  for (const field of Object.keys(input)) if (ALLOWED_FIELDS.has(field)) out[field] = input[field];
  return out;
}

/** Options that make two indexes on the same key different indexes (mongod's identifying options). */
const IDENTIFYING = ['collation', 'partialFilterExpression', 'wildcardProjection', 'unique', 'sparse'] as const;

/**
 * Options accepted for compatibility but without effect here; not echoed in listIndexes. mongod
 * ignores dropDups since 2.8 (SERVER-14710): a unique build still fails on duplicates.
 */
const DROPPED = new Set(['background', 'ns', 'dropDups']);

export interface NormalizedSpec {
  spec: Document;
  pattern: KeyPattern;
  /** Whether the spec named a collation (even "simple"): else the index takes the collection's. */
  collationGiven: boolean;
}

export function normalizeIndexSpec(input: unknown): NormalizedSpec {
  if (!isPlainObject(input))
    fail('TypeMismatch', `Each index specification must be an object, got ${formatValue(input)}.`);
  for (const field of Object.keys(input)) {
    if (!ALLOWED_FIELDS.has(field)) {
      fail(
        'InvalidIndexSpecificationOption',
        `The field '${field}' is not valid for an index specification. Specification: ${formatValue(input)}`,
      );
    }
  }
  if (input.key === undefined)
    fail('FailedToParse', `The 'key' field is a required property of an index specification: ${formatValue(input)}`);
  const pattern = parseKeyPattern(input.key);
  if (input.name === undefined) {
    fail(
      'FailedToParse',
      `The 'name' field is a required property of an index specification: ${formatValue(input)}. Give one, e.g. name: "${defaultIndexName(input.key as Document)}" (the shell's createIndex fills it in).`,
    );
  }
  if (typeof input.name !== 'string')
    fail(
      'TypeMismatch',
      `The 'name' field of an index specification must be a string, got ${formatValue(input.name)}.`,
    );
  if (input.name.length === 0) fail('CannotCreateIndex', 'index name cannot be empty');
  if (input.name.includes('\0'))
    fail('CannotCreateIndex', `index name cannot contain a NUL byte: ${formatValue(input.name)}. Pick another name.`);
  if (input.v !== undefined && !(isNumberLike(input.v) && (toDouble(input.v) === 1 || toDouble(input.v) === 2)))
    fail(
      'CannotCreateIndex',
      `Invalid index specification ${formatValue(input)}; cannot create an index with v=${formatValue(input.v)}: use v: 2 (or leave v out).`,
    );
  if (input.name === '*')
    fail('BadValue', 'The index name \'*\' is not valid: it means "all indexes" to dropIndexes. Pick another name.');
  const isIdKey = Object.keys(pattern.raw).length === 1 && pattern.raw._id !== undefined;
  if (input.name === '_id_' && !isIdKey)
    fail(
      'BadValue',
      `The index name '_id_' is reserved for the _id index, which must have key pattern {_id: 1}: pick another name for ${formatValue(input.key)}.`,
    );
  // Stored as mongod stores it: every field filled in, or no collation at all for "simple".
  const collation = input.collation === undefined ? null : parseCollation(input.collation);
  for (const flag of ['unique', 'sparse', 'hidden'] as const) {
    if (input[flag] !== undefined && typeof input[flag] !== 'boolean' && !isNumberLike(input[flag])) {
      fail('TypeMismatch', `The field '${flag}' must be a boolean, got ${formatValue(input[flag])}.`);
    }
  }
  if (input.partialFilterExpression !== undefined && input.sparse) {
    fail('CannotCreateIndex', 'cannot mix "partialFilterExpression" and "sparse" options: keep one of them.');
  }
  const isId = Object.keys(pattern.raw).length === 1 && pattern.raw._id !== undefined && pattern.plugin === 'btree';
  if (isId) validateIdIndexSpec(input);
  if (
    input.unique &&
    (pattern.plugin === 'hashed' ||
      pattern.plugin === 'text' ||
      pattern.plugin === 'wildcard' ||
      pattern.plugin === '2dsphere')
  ) {
    fail('CannotCreateIndex', `${pattern.plugin} indexes cannot be unique: remove unique: true.`);
  }
  const spec: Document = { v: 2, key: input.key, name: input.name };
  for (const [field, value] of Object.entries(input)) {
    if (field === 'key' || field === 'name' || field === 'v' || DROPPED.has(field)) continue;
    if (field === 'collation') {
      if (collation) spec.collation = collationDocument(collation);
      continue;
    }
    // Boolean options are stored as booleans; `false` is the default and mongod omits it.
    if (field === 'unique' || field === 'sparse' || field === 'hidden') {
      if (truthy(value)) spec[field] = true;
      continue;
    }
    spec[field] = value;
  }
  return { spec, pattern, collationGiven: input.collation !== undefined };
}

function isNumberLike(v: unknown): boolean {
  return (
    typeof v === 'number' ||
    (typeof v === 'object' &&
      v !== null &&
      ['Int32', 'Long', 'Double'].includes((v as { _bsontype?: string })._bsontype ?? ''))
  );
}

function truthy(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  return Number(v) !== 0;
}

function validateIdIndexSpec(input: Document): void {
  const dir = input.key && (input.key as Document)._id;
  if (dir !== 1 && !(typeof dir === 'object' && Number((dir as { value?: number }).value ?? dir) === 1)) {
    // `{_id: -1}` is an ordinary index in mongod; only the ascending one is the _id index.
    return;
  }
  for (const field of Object.keys(input)) {
    if (!['key', 'name', 'v', 'collation', 'ns', 'background'].includes(field)) {
      fail(
        'InvalidIndexSpecificationOption',
        `The field '${field}' is not valid for an _id index specification. Specification: ${formatValue(input)}`,
      );
    }
  }
}

export type SpecComparison =
  | 'identical'
  | 'sameNameDifferentOptions'
  | 'sameNameDifferentKey'
  | 'equivalentOtherName'
  | 'equivalentOtherNameAndOptions'
  | 'different';

/** How `requested` relates to `existing` (rules 2.2–2.5). */
export function compareSpecs(requested: Document, existing: Document): SpecComparison {
  const sameKey =
    valuesEqual(requested.key, existing.key) && sameFieldOrder(requested.key as Document, existing.key as Document);
  const sameIdentity = sameKey && IDENTIFYING.every((f) => optionEqual(requested[f], existing[f]));
  const sameOthers = otherOptionsEqual(requested, existing);
  if (requested.name === existing.name) {
    if (!sameIdentity) return 'sameNameDifferentKey';
    return sameOthers ? 'identical' : 'sameNameDifferentOptions';
  }
  if (!sameIdentity) return 'different';
  return sameOthers ? 'equivalentOtherName' : 'equivalentOtherNameAndOptions';
}

function sameFieldOrder(a: Document, b: Document): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

/** Absent and `false` mean the same for index options (mongod omits false booleans). */
function optionEqual(a: unknown, b: unknown): boolean {
  const x = a === false ? undefined : a;
  const y = b === false ? undefined : b;
  if (x === undefined || y === undefined) return x === y;
  return valuesEqual(x, y);
}

function otherOptionsEqual(a: Document, b: Document): boolean {
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const n of names) {
    if (n === 'name' || n === 'v' || n === 'key' || (IDENTIFYING as readonly string[]).includes(n)) continue;
    if (!optionEqual(a[n], b[n])) return false;
  }
  return true;
}

/** The error mongod gives for a requested spec that clashes with an existing one, or undefined. */
export function conflictError(
  kind: SpecComparison,
  requested: Document,
  existing: Document,
  collection = '<collection>',
): EngineError | undefined {
  const req = formatValue(requested);
  const ex = formatValue(existing);
  switch (kind) {
    case 'sameNameDifferentOptions': {
      const hint =
        requested.expireAfterSeconds !== undefined || existing.expireAfterSeconds !== undefined
          ? ` To change expireAfterSeconds of an existing index, use collMod: db.runCommand({collMod: "${collection}", index: {name: "${String(existing.name)}", expireAfterSeconds: <seconds>}}).`
          : ' Drop the index first or give the new one another name.';
      return new EngineError(
        'IndexOptionsConflict',
        `An equivalent index already exists with the same name but different options. Requested index: ${req}, existing index: ${ex}.${hint}`,
      );
    }
    case 'sameNameDifferentKey':
      return new EngineError(
        'IndexKeySpecsConflict',
        `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Requested index: ${req}, existing index: ${ex}. Choose another name or drop the existing index.`,
      );
    case 'equivalentOtherName':
      return new EngineError(
        'IndexOptionsConflict',
        `Index already exists with a different name: ${String(existing.name)}`,
      );
    case 'equivalentOtherNameAndOptions': {
      const hint =
        requested.expireAfterSeconds !== undefined || existing.expireAfterSeconds !== undefined
          ? ` To make it a TTL index or change its expireAfterSeconds, use collMod on '${String(existing.name)}' instead of creating a second index.`
          : '';
      return new EngineError(
        'IndexOptionsConflict',
        `An equivalent index already exists with a different name and options. Requested index: ${req}, existing index: ${ex}.${hint}`,
      );
    }
    default:
      return undefined;
  }
}
