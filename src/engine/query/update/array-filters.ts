/**
 * The `arrayFilters` of an update: one filter per identifier, each a query over a placeholder field
 * (`{"x.score": {$gt: 5}}` names the identifier `x`), matched against an array element as if the
 * element were that field's value (so an element that is an array is traversed, as a field is).
 */
import { EngineError, ErrorCode } from '../../errors';
import { bsonTypeOf, isPlainObject, type Document } from '../../values/types';
import { compileFilter } from '../matcher';
import { setOwn } from './document-writer';

/** Identifier → whether an array element is selected. */
export type ArrayFilters = Map<string, (element: unknown) => boolean>;

export const NO_ARRAY_FILTERS: ArrayFilters = new Map();

const IDENTIFIER = /^[a-z][a-zA-Z0-9]*$/;
const LOGICAL = new Set(['$and', '$or', '$nor']);

/**
 * Parse the arrayFilters option (`field` names it in type errors, e.g. 'update.updates.arrayFilters').
 * Errors as mongod's: a non-array or non-object filter is a TypeMismatch (14); a filter over two
 * top-level names or none, or two filters for one identifier, is FailedToParse (9); an identifier
 * that is not a lowercase-led alphanumeric string is BadValue (2).
 */
export function parseArrayFilters(raw: unknown, field: string): ArrayFilters {
  if (raw === undefined || raw === null) return NO_ARRAY_FILTERS;
  if (!Array.isArray(raw)) {
    throw new EngineError(
      ErrorCode.TypeMismatch,
      `BSON field '${field}' is the wrong type '${bsonTypeOf(raw)}', expected type 'array'`,
    );
  }
  const filters: ArrayFilters = new Map();
  raw.forEach((filter, i) => {
    if (!isPlainObject(filter)) {
      throw new EngineError(
        ErrorCode.TypeMismatch,
        `BSON field '${field}.${i}' is the wrong type '${bsonTypeOf(filter)}', expected type 'object'`,
      );
    }
    let predicate: (doc: Document) => boolean;
    let id: string | undefined;
    try {
      predicate = compileFilter(filter);
      id = topLevelName(filter);
      if (id !== undefined && !IDENTIFIER.test(id)) {
        throw new EngineError(
          ErrorCode.BadValue,
          `The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '${id}'`,
        );
      }
    } catch (err) {
      if (err instanceof EngineError) {
        throw new EngineError(err.code, `Error parsing array filter :: caused by :: ${err.message}`, err.info);
      }
      throw err;
    }
    if (id === undefined) {
      throw new EngineError(
        ErrorCode.FailedToParse,
        'Cannot use an expression without a top-level field name in arrayFilters',
      );
    }
    if (filters.has(id)) {
      throw new EngineError(
        ErrorCode.FailedToParse,
        `Found multiple array filters with the same top-level field name ${id}`,
      );
    }
    const name = id;
    filters.set(name, (element) => {
      const holder: Document = {};
      setOwn(holder, name, element);
      return predicate(holder);
    });
  });
  return filters;
}

/** The one top-level field a filter is over (through $and/$or/$nor), or undefined if none. */
function topLevelName(filter: Document): string | undefined {
  let found: string | undefined;
  const note = (name: string | undefined): void => {
    if (name === undefined) return;
    if (found !== undefined && found !== name) {
      throw new EngineError(
        ErrorCode.FailedToParse,
        `Expected a single top-level field name, found '${found}' and '${name}'`,
      );
    }
    found = name;
  };
  for (const key of Object.keys(filter)) {
    if (LOGICAL.has(key)) {
      const clauses = filter[key];
      if (Array.isArray(clauses)) for (const c of clauses) if (isPlainObject(c)) note(topLevelName(c));
    } else if (!key.startsWith('$')) {
      note(key.split('.')[0]);
    }
  }
  return found;
}
