/**
 * Collection validators: the `validator`, `validationLevel` and `validationAction` options of
 * create and collMod, checked when they are set, and applied to every document a write stores
 * (inserts, updates, upserts, findAndModify, bulkWrite, $out and $merge).
 *
 * A failing write gets mongod's DocumentValidationFailure (121) with `errInfo: {failingDocumentId,
 * details}`; with `validationAction: "warn"` it goes through and the engine logs it (log id 20294,
 * as mongod). `moderate` leaves alone updates of documents that already failed the validator.
 * `bypassDocumentValidation` skips the check for the command that asks.
 */
import { withCollator } from '../collation/active';
import { collatorFor } from '../collation/collator';
import { parseCollation } from '../collation/spec';
import type { Collection, CollectionOptions } from '../catalog/collection';
import type { EngineContext } from '../engine-context';
import { EngineError, fail } from '../errors';
import { compileFilter } from '../query/matcher';
import { bsonTypeOf, isPlainObject, type Document } from '../values/types';
import { explainFilter } from './filter-explain';
import {
  VALIDATION_ACTIONS,
  VALIDATION_LEVELS,
  VALIDATOR_REFUSED_EXPRESSIONS,
  VALIDATOR_REFUSED_OPERATORS,
} from './supported';

export type ValidationLevel = (typeof VALIDATION_LEVELS)[number];
export type ValidationAction = (typeof VALIDATION_ACTIONS)[number];

export const DOCUMENT_VALIDATION_FAILURE = 121;

interface CompiledValidator {
  matches(doc: Document, now: Date): boolean;
}

const compiled = new WeakMap<Document, CompiledValidator>();

/**
 * Check a validator as create and collMod do: a valid query whose operators may run on every
 * write. Throws mongod's error for the first problem; returns the compiled form.
 */
export function checkValidator(validator: Document): CompiledValidator {
  refuseOperators(validator);
  compileFilter(validator);
  const usesNow = JSON.stringify(validator, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)).includes(
    '$$NOW',
  );
  // $$NOW must read the engine's clock, which moves: such a validator is compiled per write.
  const fixed = usesNow ? undefined : compileFilter(validator);
  return {
    matches: (doc, now) => (fixed ? fixed(doc) : compileFilter(validator, { NOW: now })(doc)),
  };
}

function refuseOperators(value: unknown, inExpr = false): void {
  if (Array.isArray(value)) {
    for (const v of value) refuseOperators(v, inExpr);
    return;
  }
  if (!isPlainObject(value)) return;
  for (const [key, v] of Object.entries(value)) {
    if (!inExpr && VALIDATOR_REFUSED_OPERATORS.includes(key))
      fail(
        'QueryFeatureNotAllowed',
        `${key} is not allowed in this context: a validator runs on every write and may not use ${VALIDATOR_REFUSED_OPERATORS.join(', ')}.`,
      );
    if (inExpr && Object.hasOwn(VALIDATOR_REFUSED_EXPRESSIONS, key))
      fail(
        VALIDATOR_REFUSED_EXPRESSIONS[key],
        `${key} may not be used in a validator's $expr: it runs JavaScript. Express the rule with aggregation operators.`,
      );
    refuseOperators(v, inExpr || key === '$expr');
  }
}

function validatorOf(options: CollectionOptions): CompiledValidator | undefined {
  const validator = options.validator;
  if (!validator || Object.keys(validator).length === 0) return undefined;
  let c = compiled.get(validator);
  if (!c) {
    c = checkValidator(validator);
    compiled.set(validator, c);
  }
  return c;
}

let bypassDepth = 0;

/** Run a command's writes without document validation (its `bypassDocumentValidation: true`). */
export function withDocumentValidation<T>(bypass: boolean, fn: () => T): T {
  if (!bypass) return fn();
  bypassDepth++;
  try {
    return fn();
  } finally {
    bypassDepth--;
  }
}

/**
 * Apply the collection's validator to a document about to be stored. `before` is the stored
 * version an update replaces (undefined for an insert). Throws DocumentValidationFailure.
 */
export function enforceValidator(engine: EngineContext, coll: Collection, doc: Document, before?: Document): void {
  if (bypassDepth > 0) return;
  const level = coll.options.validationLevel ?? 'strict';
  if (level === 'off') return;
  const validator = validatorOf(coll.options);
  if (!validator) return;
  const now = engine.now();
  // A query validator compares strings by the collection's default collation, whatever the write's.
  const stored = coll.options.collation;
  const collator = stored === undefined ? null : collatorFor(parseCollation(stored));
  const matches = (d: Document) => withCollator(collator, () => validator.matches(d, now));
  if (matches(doc)) return;
  if (before !== undefined && level === 'moderate' && !matches(before)) return;
  const errInfo = { failingDocumentId: doc._id, details: explainFilter(coll.options.validator!, doc) };
  if ((coll.options.validationAction ?? 'error') === 'warn') {
    engine.log(20294, 'Document would fail validation', { namespace: coll.ns, document: doc, errInfo });
    return;
  }
  throw new EngineError(DOCUMENT_VALIDATION_FAILURE, 'Document failed validation', { errInfo });
}

/** Whether a stored document passes the collection's validator (validate's nNonCompliantDocuments). */
export function documentComplies(engine: EngineContext, coll: Collection, doc: Document): boolean {
  const validator = validatorOf(coll.options);
  return !validator || validator.matches(doc, engine.now());
}

function enumValue<T extends string>(cmd: Document, field: string, allowed: readonly T[]): T | undefined {
  const v = cmd[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string')
    fail('TypeMismatch', `BSON field '${field}' is the wrong type '${bsonTypeOf(v)}', expected type 'string'`);
  if (!(allowed as readonly string[]).includes(v)) {
    const later = field === 'validationAction' && v === 'errorAndLog' ? ' (errorAndLog is new in MongoDB 8.1)' : '';
    fail(
      'BadValue',
      `Enumeration value '${v}' for field '${field}' is not a valid value${later}: use ${allowed.map((a) => `"${a}"`).join(', ')}.`,
    );
  }
  return v as T;
}

/**
 * The validation options of a create or collMod command, checked. A validator set at create
 * time carries the level and action it runs with, as listCollections shows them.
 */
export function parseValidationOptions(
  cmd: Document,
  commandName: 'create' | 'collMod',
  dbName: string,
  collName: string,
): Pick<CollectionOptions, 'validator' | 'validationLevel' | 'validationAction'> {
  const out: Pick<CollectionOptions, 'validator' | 'validationLevel' | 'validationAction'> = {};
  const validator = cmd.validator;
  if (validator !== undefined && validator !== null) {
    if (!isPlainObject(validator))
      fail(
        'TypeMismatch',
        `BSON field '${commandName}.validator' is the wrong type '${bsonTypeOf(validator)}', expected type 'object'`,
      );
    if (Object.keys(validator).length > 0) {
      if (['admin', 'local', 'config'].includes(dbName))
        fail(
          'InvalidOptions',
          `Document validators are not allowed on collections in the ${dbName} database: create ${collName} in another database.`,
        );
      if (collName.startsWith('system.'))
        fail('InvalidOptions', `Document validators not allowed on system collection ${dbName}.${collName}`);
      checkValidator(validator);
    }
    out.validator = validator;
  }
  const level = enumValue(cmd, 'validationLevel', VALIDATION_LEVELS);
  const action = enumValue(cmd, 'validationAction', VALIDATION_ACTIONS);
  if (level !== undefined) out.validationLevel = level;
  if (action !== undefined) out.validationAction = action;
  if (commandName === 'create' && out.validator && Object.keys(out.validator).length > 0) {
    out.validationLevel ??= 'strict';
    out.validationAction ??= 'error';
  }
  return out;
}
