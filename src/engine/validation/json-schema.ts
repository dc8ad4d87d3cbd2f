/**
 * `$jsonSchema`: mongod's draft-4 subset, compiled once into rules that both decide a match and
 * explain a mismatch in the shape of mongod's document validation errors
 * (`{operatorName: "$jsonSchema", schemaRulesNotSatisfied: [...]}`).
 *
 * The rules of one (sub)schema run in mongod's order, which is the order of the details it
 * reports: string and number keywords, array keywords, object keywords, logical keywords, and the
 * type last. Keywords that restrict one type (minLength, minItems, properties, ...) pass for values
 * of other types, as in JSON Schema; the type keyword is what rejects those.
 *
 * A top-level schema describes the document itself: keywords for strings, numbers and arrays
 * constrain nothing there, a type that excludes "object" matches no document, and `enum` compares
 * whole documents.
 */
import { Int32 } from 'bson';
import { EngineError, ErrorCode } from '../errors';
import { compileRegex } from '../query/regex/compile';
import { compareStrings, compareUnder, compareValues } from '../values/compare';
import { toDouble } from '../values/numbers';
import { bsonTypeOf, isNumeric, isPlainObject, type BsonTypeName, type Document } from '../values/types';
import { parseEncrypt, parseEncryptMetadata } from './json-schema-encrypt';
import { JSON_SCHEMA_KEYWORDS, REFUSED_JSON_SCHEMA_KEYWORDS } from './supported';

export interface CompiledSchema {
  matches(doc: Document): boolean;
  /** mongod's error details for a document the schema does not match. */
  explain(doc: Document): Document;
}

/** Compile a `$jsonSchema` argument; throws mongod's parse errors (FailedToParse, TypeMismatch, BadValue). */
export function compileJsonSchema(schema: unknown): CompiledSchema {
  if (!isPlainObject(schema)) throw new EngineError(ErrorCode.TypeMismatch, '$jsonSchema must be an object');
  const root = parseSchema(schema, true);
  return {
    matches: (doc) => root.failures(doc) === null,
    explain: (doc) => ({
      operatorName: '$jsonSchema',
      ...root.annotations,
      ...(root.alwaysFalse
        ? { specifiedAs: { $jsonSchema: schema }, reason: 'expression always evaluates to false' }
        : { schemaRulesNotSatisfied: root.failures(doc) ?? [] }),
    }),
  };
}

/** A rule returns null when it holds, else the details mongod reports for it. */
type Rule = (value: unknown) => Document[] | null;

interface Schema {
  readonly annotations: Document;
  /** A top-level schema whose type excludes objects: no document matches. */
  readonly alwaysFalse: boolean;
  /** Null when `value` satisfies the schema, else every failing rule's details, in mongod's order. */
  failures(value: unknown): Document[] | null;
}

interface TypeSet {
  names: Set<string>;
  allNumbers: boolean;
}

/** JSON Schema's `type` names; `integer` is refused, as mongod does. */
const JSON_TYPE_ALIASES: Record<string, string> = {
  object: 'object',
  array: 'array',
  number: 'number',
  boolean: 'bool',
  string: 'string',
  null: 'null',
};

const BSON_TYPE_ALIASES = new Set<string>([
  'double',
  'string',
  'object',
  'array',
  'binData',
  'undefined',
  'objectId',
  'bool',
  'date',
  'null',
  'regex',
  'dbPointer',
  'javascript',
  'symbol',
  'javascriptWithScope',
  'int',
  'timestamp',
  'long',
  'decimal',
  'minKey',
  'maxKey',
  'number',
]);

function parseError(message: string): EngineError {
  return new EngineError(ErrorCode.FailedToParse, message);
}

function typeMismatch(message: string): EngineError {
  return new EngineError(ErrorCode.TypeMismatch, message);
}

function parseSchema(schema: Document, isRoot: boolean): Schema {
  for (const key of Object.keys(schema)) {
    if (REFUSED_JSON_SCHEMA_KEYWORDS.has(key))
      throw parseError(
        `$jsonSchema keyword '${key}' is not currently supported: MongoDB's $jsonSchema has no '${key}'; inline the subschema instead.`,
      );
    if (!JSON_SCHEMA_KEYWORDS.includes(key)) throw parseError(`Unknown $jsonSchema keyword: ${key}`);
  }
  for (const key of ['description', 'title']) {
    if (schema[key] !== undefined && typeof schema[key] !== 'string')
      throw typeMismatch(`$jsonSchema keyword '${key}' must be of type string`);
  }
  const annotations: Document = {};
  if (typeof schema.title === 'string') annotations.title = schema.title;
  if (typeof schema.description === 'string') annotations.description = schema.description;

  if (schema.type !== undefined && schema.bsonType !== undefined)
    throw parseError("Cannot specify both $jsonSchema keywords 'type' and 'bsonType'");
  for (const typeKey of ['type', 'bsonType'])
    if (schema.encrypt !== undefined && schema[typeKey] !== undefined)
      throw parseError(`Cannot specify both $jsonSchema keywords 'encrypt' and '${typeKey}'`);
  if (schema.encryptMetadata !== undefined) parseEncryptMetadata(schema.encryptMetadata);
  const typeKeyword = schema.type !== undefined ? 'type' : schema.bsonType !== undefined ? 'bsonType' : undefined;
  const types = typeKeyword ? parseTypeSet(typeKeyword, schema[typeKeyword]) : undefined;

  const rules: Rule[] = [];
  if (!isRoot) {
    scalarRules(schema, rules);
    arrayRules(schema, rules);
  } else {
    // Parsed for their errors only: a document is never a string, a number or an array.
    scalarRules(schema, []);
    arrayRules(schema, []);
  }
  objectRules(schema, isRoot, rules);
  logicalRules(schema, isRoot, rules);
  if (isRoot && types && !types.names.has('object')) return { annotations, alwaysFalse: true, failures: alwaysFails };
  if (!isRoot && types && typeKeyword) rules.push(typeRule(typeKeyword, schema[typeKeyword], types));
  if (schema.encrypt !== undefined) rules.push(encryptRule(schema.encrypt, isRoot));
  return {
    annotations,
    alwaysFalse: false,
    failures(value) {
      let out: Document[] | null = null;
      for (const rule of rules) {
        const failed = rule(value);
        if (failed) (out ??= []).push(...failed);
      }
      return out;
    },
  };
}

/** `encrypt`: a document itself is never an encrypted value, so at the root nothing matches. */
function encryptRule(spec: unknown, isRoot: boolean): Rule {
  const encrypted = parseEncrypt(spec, BSON_TYPE_ALIASES);
  return (value) =>
    !isRoot && encrypted(value)
      ? null
      : [{ operatorName: 'encrypt', reason: 'value was not encrypted', consideredType: bsonTypeOf(value) }];
}

function alwaysFails(): Document[] {
  return [{ reason: 'expression always evaluates to false' }];
}

// ---- types ------------------------------------------------------------------------------------

function parseTypeSet(keyword: 'type' | 'bsonType', spec: unknown): TypeSet {
  const list = typeof spec === 'string' ? [spec] : Array.isArray(spec) ? spec : undefined;
  if (!list) throw typeMismatch(`$jsonSchema keyword '${keyword}' must be either a string or an array of strings`);
  const names = new Set<string>();
  for (const entry of list) {
    if (typeof entry !== 'string')
      throw typeMismatch(`$jsonSchema keyword '${keyword}' array elements must be strings`);
    if (entry === 'integer') throw parseError("$jsonSchema type 'integer' is not currently supported.");
    if (names.has(entry)) throw parseError(`$jsonSchema keyword '${keyword}' has duplicate value: ${entry}`);
    names.add(entry);
  }
  if (names.size === 0) throw parseError(`$jsonSchema keyword '${keyword}' must name at least one type`);
  const resolved = new Set<string>();
  for (const name of names) {
    const alias = keyword === 'type' ? JSON_TYPE_ALIASES[name] : BSON_TYPE_ALIASES.has(name) ? name : undefined;
    if (alias === undefined)
      throw new EngineError(
        ErrorCode.BadValue,
        keyword === 'type'
          ? `Unknown JSON Schema alias: ${name}. 'type' takes object, array, number, boolean, string or null; use 'bsonType' for BSON types.`
          : `Unknown type name alias: ${name}`,
      );
    resolved.add(alias);
  }
  return { names: resolved, allNumbers: resolved.has('number') };
}

function hasType(types: TypeSet, value: unknown): boolean {
  return types.names.has(bsonTypeOf(value)) || (types.allNumbers && isNumeric(value));
}

function typeRule(keyword: string, spec: unknown, types: TypeSet): Rule {
  return (value) =>
    hasType(types, value)
      ? null
      : [
          {
            operatorName: keyword,
            specifiedAs: { [keyword]: spec },
            reason: 'type did not match',
            consideredValue: value,
            consideredType: bsonTypeOf(value),
          },
        ];
}

// ---- strings and numbers ------------------------------------------------------------------------

/** mongod's parseIntegerElementToNonNegativeLong. */
function nonNegativeInteger(keyword: string, value: unknown): number {
  if (!isNumeric(value)) throw typeMismatch(`$jsonSchema keyword '${keyword}' must be a number`);
  const n = toDouble(value);
  if (!Number.isInteger(n)) throw parseError(`Expected an integer for $jsonSchema keyword '${keyword}', got ${n}`);
  if (n < 0) throw parseError(`Expected a non-negative number for $jsonSchema keyword '${keyword}', got ${n}`);
  return n;
}

function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
    else if (i + 1 < s.length) {
      n++;
      i++;
    } else n++;
  }
  return n;
}

function scalarRules(schema: Document, rules: Rule[]): void {
  if (schema.pattern !== undefined) {
    if (typeof schema.pattern !== 'string') throw typeMismatch("$jsonSchema keyword 'pattern' must be a string");
    const re = compileRegex(schema.pattern, '');
    const spec = schema.pattern;
    rules.push((v) =>
      typeof v !== 'string' || re.test(v)
        ? null
        : [
            {
              operatorName: 'pattern',
              specifiedAs: { pattern: spec },
              reason: 'regular expression did not match',
              consideredValue: v,
            },
          ],
    );
  }
  for (const keyword of ['maxLength', 'minLength'] as const) {
    if (schema[keyword] === undefined) continue;
    const limit = nonNegativeInteger(keyword, schema[keyword]);
    const spec = schema[keyword];
    const ok = keyword === 'maxLength' ? (n: number) => n <= limit : (n: number) => n >= limit;
    rules.push((v) =>
      typeof v !== 'string' || ok(codePointLength(v))
        ? null
        : [
            {
              operatorName: keyword,
              specifiedAs: { [keyword]: spec },
              reason: 'specified string length was not satisfied',
              consideredValue: v,
            },
          ],
    );
  }
  if (schema.multipleOf !== undefined) {
    if (!isNumeric(schema.multipleOf)) throw typeMismatch("$jsonSchema keyword 'multipleOf' must be a number");
    const divisor = toDouble(schema.multipleOf);
    if (!(divisor > 0)) throw parseError("$jsonSchema keyword 'multipleOf' must have a positive value");
    const spec = schema.multipleOf;
    rules.push((v) =>
      !isNumeric(v) || toDouble(v) % divisor === 0
        ? null
        : [
            {
              operatorName: 'multipleOf',
              specifiedAs: { multipleOf: spec },
              reason: 'considered value is not a multiple of the specified value',
              consideredValue: v,
            },
          ],
    );
  }
  boundRule(
    schema,
    'maximum',
    'exclusiveMaximum',
    (c) => c < 0,
    (c) => c <= 0,
    rules,
  );
  boundRule(
    schema,
    'minimum',
    'exclusiveMinimum',
    (c) => c > 0,
    (c) => c >= 0,
    rules,
  );
}

function boundRule(
  schema: Document,
  keyword: 'maximum' | 'minimum',
  exclusiveKeyword: 'exclusiveMaximum' | 'exclusiveMinimum',
  exclusiveOk: (cmp: number) => boolean,
  inclusiveOk: (cmp: number) => boolean,
  rules: Rule[],
): void {
  const bound = schema[keyword];
  const exclusive = schema[exclusiveKeyword];
  if (bound === undefined) {
    if (exclusive !== undefined)
      throw parseError(`$jsonSchema keyword '${keyword}' must be a present if ${exclusiveKeyword} is present`);
    return;
  }
  if (exclusive !== undefined && typeof exclusive !== 'boolean')
    throw typeMismatch(`$jsonSchema keyword '${exclusiveKeyword}' must be a boolean`);
  if (!isNumeric(bound)) throw typeMismatch(`$jsonSchema keyword '${keyword}' must be a number`);
  const ok = exclusive === true ? exclusiveOk : inclusiveOk;
  const specifiedAs: Document = {
    [keyword]: bound,
    ...(exclusive !== undefined ? { [exclusiveKeyword]: exclusive } : {}),
  };
  rules.push((v) =>
    !isNumeric(v) || ok(compareValues(v, bound))
      ? null
      : [{ operatorName: keyword, specifiedAs, reason: 'comparison failed', consideredValue: v }],
  );
}

// ---- arrays -------------------------------------------------------------------------------------

function arrayRules(schema: Document, rules: Rule[]): void {
  for (const keyword of ['minItems', 'maxItems'] as const) {
    if (schema[keyword] === undefined) continue;
    const limit = nonNegativeInteger(keyword, schema[keyword]);
    const spec = schema[keyword];
    const ok = keyword === 'maxItems' ? (n: number) => n <= limit : (n: number) => n >= limit;
    rules.push((v) =>
      !Array.isArray(v) || ok(v.length)
        ? null
        : [
            {
              operatorName: keyword,
              specifiedAs: { [keyword]: spec },
              reason: 'array did not match specified length',
              consideredValue: v,
              numberOfItems: new Int32(v.length),
            },
          ],
    );
  }
  if (schema.uniqueItems !== undefined) {
    if (typeof schema.uniqueItems !== 'boolean')
      throw typeMismatch("$jsonSchema keyword 'uniqueItems' must be a boolean");
    if (schema.uniqueItems) {
      rules.push((v) => {
        if (!Array.isArray(v)) return null;
        const duplicate = firstDuplicate(v);
        return duplicate === NONE
          ? null
          : [
              {
                operatorName: 'uniqueItems',
                specifiedAs: { uniqueItems: true },
                reason: 'found a duplicate item',
                consideredValue: v,
                duplicatedValue: duplicate,
              },
            ];
      });
    }
  }
  let additionalFrom: number | undefined;
  const items = schema.items;
  if (items !== undefined) {
    if (Array.isArray(items)) {
      const positional = items.map((s, i) => {
        if (!isPlainObject(s))
          throw typeMismatch(
            `$jsonSchema keyword 'items' requires that each element of the array is an object, but found a ${bsonTypeOf(s)} at index ${i}`,
          );
        return parseSchema(s, false);
      });
      additionalFrom = positional.length;
      rules.push((v) => {
        if (!Array.isArray(v)) return null;
        const failing: Document[] = [];
        for (let i = 0; i < Math.min(v.length, positional.length); i++) {
          const details = positional[i].failures(v[i]);
          if (details) failing.push({ itemIndex: new Int32(i), details });
        }
        return failing.length ? [{ operatorName: 'items', details: failing }] : null;
      });
    } else if (isPlainObject(items)) {
      const each = parseSchema(items, false);
      rules.push((v) => eachItemRule(v, 0, each, 'items', 'At least one item did not match the sub-schema'));
    } else {
      throw typeMismatch(`$jsonSchema keyword 'items' must be an array or an object, not ${bsonTypeOf(items)}`);
    }
  }
  const additional = schema.additionalItems;
  if (additional !== undefined) {
    if (typeof additional !== 'boolean' && !isPlainObject(additional))
      throw typeMismatch(
        `$jsonSchema keyword 'additionalItems' must be either an object or a boolean, but got a ${bsonTypeOf(additional)}`,
      );
    // Only an array-valued `items` leaves positions over for additionalItems.
    const from = additionalFrom;
    if (from !== undefined) {
      if (additional === false) {
        rules.push((v) =>
          !Array.isArray(v) || v.length <= from
            ? null
            : [
                {
                  operatorName: 'additionalItems',
                  specifiedAs: { additionalItems: false },
                  reason: 'found additional items',
                  additionalItems: v.slice(from),
                },
              ],
        );
      } else if (isPlainObject(additional)) {
        const each = parseSchema(additional, false);
        rules.push((v) =>
          eachItemRule(v, from, each, 'additionalItems', 'At least one additional item did not match the sub-schema'),
        );
      }
    } else if (isPlainObject(additional)) {
      parseSchema(additional, false);
    }
  }
}

function eachItemRule(v: unknown, from: number, each: Schema, keyword: string, reason: string): Document[] | null {
  if (!Array.isArray(v)) return null;
  for (let i = from; i < v.length; i++) {
    const details = each.failures(v[i]);
    if (details) return [{ operatorName: keyword, ...each.annotations, reason, itemIndex: new Int32(i), details }];
  }
  return null;
}

const NONE = Symbol('none');

function firstDuplicate(values: unknown[]): unknown {
  for (let i = 1; i < values.length; i++) {
    for (let j = 0; j < i; j++) if (unorderedEqual(values[i], values[j])) return values[i];
  }
  return NONE;
}

/** Equality as $jsonSchema's enum and uniqueItems use it: object fields in any order, numbers by value. */
export function unorderedEqual(a: unknown, b: unknown): boolean {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.hasOwn(b, k) && unorderedEqual(a[k], b[k]));
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => unorderedEqual(x, b[i]));
  if (isPlainObject(a) || isPlainObject(b) || Array.isArray(a) || Array.isArray(b)) return false;
  // $jsonSchema ignores collations: enum and uniqueItems compare as bytes.
  return compareUnder(null, a, b) === 0;
}

// ---- objects ------------------------------------------------------------------------------------

function present(doc: Document, name: string): boolean {
  return Object.hasOwn(doc, name);
}

function stringList(keyword: string, value: unknown, where = `$jsonSchema keyword '${keyword}'`): string[] {
  if (!Array.isArray(value))
    throw typeMismatch(`${where} must be an array, but found an element of type ${bsonTypeOf(value)}`);
  const out: string[] = [];
  for (const name of value) {
    if (typeof name !== 'string')
      throw typeMismatch(`${where} must be an array of strings, but found an element of type: ${bsonTypeOf(name)}`);
    if (out.includes(name)) throw parseError(`${where} array cannot contain duplicate values`);
    out.push(name);
  }
  if (out.length === 0) throw parseError(`${where} cannot be an empty array`);
  return out;
}

function objectRules(schema: Document, isRoot: boolean, rules: Rule[]): void {
  const required = schema.required !== undefined ? stringList('required', schema.required) : [];
  const propertyNames: string[] = [];
  if (schema.properties !== undefined) {
    if (!isPlainObject(schema.properties)) throw typeMismatch("$jsonSchema keyword 'properties' must be an object");
    const properties: Array<[string, Schema]> = [];
    for (const [name, sub] of Object.entries(schema.properties)) {
      if (!isPlainObject(sub)) throw typeMismatch(`Nested schema for $jsonSchema property '${name}' must be an object`);
      properties.push([name, parseSchema(sub, false)]);
      propertyNames.push(name);
    }
    rules.push((v) => {
      if (!isPlainObject(v)) return null;
      const failing: Document[] = [];
      for (const [name, sub] of properties) {
        if (!present(v, name)) continue;
        const details = sub.failures(v[name]);
        if (details) failing.push({ propertyName: name, ...sub.annotations, details });
      }
      return failing.length ? [{ operatorName: 'properties', propertiesNotSatisfied: failing }] : null;
    });
  }
  if (schema.patternProperties !== undefined || schema.additionalProperties !== undefined)
    rules.push(allowedPropertiesRule(schema, propertyNames));
  if (required.length > 0) {
    // mongod keeps the names in a sorted set: missing ones are reported in that order.
    const sorted = [...required].sort(compareStrings);
    const spec = schema.required;
    rules.push((v) => {
      if (!isRoot && !isPlainObject(v)) return null;
      const missing = sorted.filter((name) => !present(v as Document, name));
      return missing.length
        ? [{ operatorName: 'required', specifiedAs: { required: spec }, missingProperties: missing }]
        : null;
    });
  }
  for (const keyword of ['minProperties', 'maxProperties'] as const) {
    if (schema[keyword] === undefined) continue;
    const limit = nonNegativeInteger(keyword, schema[keyword]);
    const spec = schema[keyword];
    const ok = keyword === 'maxProperties' ? (n: number) => n <= limit : (n: number) => n >= limit;
    rules.push((v) => {
      if (!isPlainObject(v)) return null;
      const n = Object.keys(v).length;
      return ok(n)
        ? null
        : [
            {
              operatorName: keyword,
              specifiedAs: { [keyword]: spec },
              reason: 'specified number of properties was not satisfied',
              numberOfProperties: new Int32(n),
            },
          ];
    });
  }
  if (schema.dependencies !== undefined) rules.push(dependenciesRule(schema.dependencies, isRoot));
}

function allowedPropertiesRule(schema: Document, propertyNames: string[]): Rule {
  const patterns: Array<{ source: string; test: (s: string) => boolean; schema: Schema }> = [];
  if (schema.patternProperties !== undefined) {
    if (!isPlainObject(schema.patternProperties))
      throw typeMismatch("$jsonSchema keyword 'patternProperties' must be an object");
    for (const [source, sub] of Object.entries(schema.patternProperties)) {
      if (!isPlainObject(sub))
        throw typeMismatch(`$jsonSchema keyword 'patternProperties' has property '${source}' which is not an object`);
      const re = compileRegex(source, '');
      patterns.push({ source, test: (s) => re.test(s), schema: parseSchema(sub, false) });
    }
  }
  const additional = schema.additionalProperties;
  if (additional !== undefined && typeof additional !== 'boolean' && !isPlainObject(additional))
    throw typeMismatch("$jsonSchema keyword 'additionalProperties' must be an object or a boolean");
  const otherwise = isPlainObject(additional) ? parseSchema(additional, false) : undefined;
  const known = new Set(propertyNames);
  return (v) => {
    if (!isPlainObject(v)) return null;
    const out: Document[] = [];
    const extra = Object.keys(v).filter((name) => !known.has(name) && !patterns.some((p) => p.test(name)));
    if (additional === false && extra.length > 0) {
      out.push({
        operatorName: 'additionalProperties',
        specifiedAs: { additionalProperties: false },
        additionalProperties: extra,
      });
    } else if (otherwise) {
      for (const name of extra) {
        const details = otherwise.failures(v[name]);
        if (!details) continue;
        out.push({
          operatorName: 'additionalProperties',
          ...otherwise.annotations,
          reason: 'at least one additional property did not match the subschema',
          failingProperty: name,
          details,
        });
        break;
      }
    }
    const patternFailures: Document[] = [];
    for (const p of patterns) {
      for (const name of Object.keys(v)) {
        if (!p.test(name)) continue;
        const details = p.schema.failures(v[name]);
        if (!details) continue;
        patternFailures.push({ propertyName: name, ...p.schema.annotations, regexMatched: p.source, details });
        break;
      }
    }
    if (patternFailures.length) out.push({ operatorName: 'patternProperties', details: patternFailures });
    return out.length ? out : null;
  };
}

function dependenciesRule(value: unknown, isRoot: boolean): Rule {
  if (!isPlainObject(value)) throw typeMismatch("$jsonSchema keyword 'dependencies' must be an object");
  const deps = Object.entries(value).map(([name, dep]) => {
    if (Array.isArray(dep)) {
      const where = `property '${name}' in $jsonSchema keyword 'dependencies'`;
      if (dep.length === 0) throw parseError(`${where} cannot be an empty array`);
      return { name, needs: stringList('dependencies', dep, where) };
    }
    if (isPlainObject(dep)) return { name, schema: parseSchema(dep, isRoot) };
    throw typeMismatch(`property '${name}' in $jsonSchema keyword 'dependencies' must be either an object or an array`);
  });
  return (v) => {
    if (!isPlainObject(v)) return null;
    const failing: Document[] = [];
    for (const dep of deps) {
      if (!present(v, dep.name)) continue;
      if (dep.needs) {
        const missing = dep.needs.filter((n) => !present(v, n));
        if (missing.length) failing.push({ conditionalProperty: dep.name, missingProperties: missing });
      } else if (dep.schema) {
        const details = dep.schema.failures(v);
        if (details) failing.push({ conditionalProperty: dep.name, details });
      }
    }
    return failing.length ? [{ operatorName: 'dependencies', failingDependencies: failing }] : null;
  };
}

// ---- logical keywords -----------------------------------------------------------------------------

function schemaList(keyword: string, value: unknown, isRoot: boolean): Schema[] {
  if (!Array.isArray(value)) throw typeMismatch(`$jsonSchema keyword '${keyword}' must be an array`);
  if (value.length === 0)
    throw new EngineError(ErrorCode.BadValue, `$jsonSchema keyword '${keyword}' must be a non-empty array`);
  return value.map((s) => {
    if (!isPlainObject(s))
      throw typeMismatch(
        `$jsonSchema keyword '${keyword}' must be an array of objects, but found an element of type ${bsonTypeOf(s)}`,
      );
    return parseSchema(s, isRoot);
  });
}

function logicalRules(schema: Document, isRoot: boolean, rules: Rule[]): void {
  if (schema.allOf !== undefined) {
    const all = schemaList('allOf', schema.allOf, isRoot);
    rules.push((v) => {
      const failing = indexedFailures(all, v);
      return failing.length ? [{ operatorName: 'allOf', schemasNotSatisfied: failing }] : null;
    });
  }
  if (schema.anyOf !== undefined) {
    const any = schemaList('anyOf', schema.anyOf, isRoot);
    rules.push((v) => {
      const failing = indexedFailures(any, v);
      return failing.length === any.length ? [{ operatorName: 'anyOf', schemasNotSatisfied: failing }] : null;
    });
  }
  if (schema.oneOf !== undefined) {
    const one = schemaList('oneOf', schema.oneOf, isRoot);
    rules.push((v) => {
      const failing = indexedFailures(one, v);
      const matching = one.map((_, i) => i).filter((i) => !failing.some((f) => (f.index as Int32).value === i));
      if (matching.length === 1) return null;
      if (matching.length === 0) return [{ operatorName: 'oneOf', schemasNotSatisfied: failing }];
      return [
        {
          operatorName: 'oneOf',
          reason: 'more than one subschema matched',
          matchingSchemaIndexes: matching.map((i) => new Int32(i)),
        },
      ];
    });
  }
  if (schema.not !== undefined) {
    if (!isPlainObject(schema.not))
      throw typeMismatch(
        `$jsonSchema keyword 'not' must be an object, but found an element of type ${bsonTypeOf(schema.not)}`,
      );
    const inner = parseSchema(schema.not, isRoot);
    rules.push((v) =>
      inner.failures(v) === null ? [{ operatorName: 'not', reason: 'child expression matched' }] : null,
    );
  }
  if (schema.enum !== undefined) rules.push(enumRule(schema.enum, isRoot));
}

function indexedFailures(schemas: Schema[], v: unknown): Document[] {
  const out: Document[] = [];
  schemas.forEach((s, i) => {
    const details = s.failures(v);
    if (details) out.push({ index: new Int32(i), ...s.annotations, details });
  });
  return out;
}

function enumRule(value: unknown, isRoot: boolean): Rule {
  if (!Array.isArray(value))
    throw typeMismatch(
      `$jsonSchema keyword 'enum' must be an array, but found an element of type ${bsonTypeOf(value)}`,
    );
  if (value.length === 0) throw parseError("$jsonSchema keyword 'enum' cannot be an empty array");
  for (let i = 1; i < value.length; i++)
    for (let j = 0; j < i; j++)
      if (unorderedEqual(value[i], value[j]))
        throw parseError("$jsonSchema keyword 'enum' array cannot contain duplicate values.");
  // A top-level enum compares whole documents: its non-object values can never match.
  const candidates = isRoot ? value.filter((x) => isPlainObject(x)) : value;
  return (v) =>
    candidates.some((c) => unorderedEqual(v, c))
      ? null
      : [
          {
            operatorName: 'enum',
            specifiedAs: { enum: value },
            reason: 'value was not found in enum',
            consideredValue: v,
          },
        ];
}

/** The BSON type names `bsonType` accepts (with "number"). */
export function bsonTypeAliases(): BsonTypeName[] {
  return [...BSON_TYPE_ALIASES].filter((n) => n !== 'number') as BsonTypeName[];
}
