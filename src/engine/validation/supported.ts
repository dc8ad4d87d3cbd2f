/**
 * What the engine supports of collection validation and views, as lists a documentation
 * generator (docs/compatibility.md) can read. The parsers use the same lists, so the listing
 * cannot drift from the behaviour.
 */

/** `$jsonSchema` keywords the engine validates (mongod's draft-4 subset), `bsonType` included. */
export const JSON_SCHEMA_KEYWORDS: readonly string[] = [
  'additionalItems',
  'additionalProperties',
  'allOf',
  'anyOf',
  'bsonType',
  'dependencies',
  'description',
  'encrypt',
  'encryptMetadata',
  'enum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'items',
  'maxItems',
  'maxLength',
  'maxProperties',
  'maximum',
  'minItems',
  'minLength',
  'minProperties',
  'minimum',
  'multipleOf',
  'not',
  'oneOf',
  'pattern',
  'patternProperties',
  'properties',
  'required',
  'title',
  'type',
  'uniqueItems',
];

/** JSON Schema keywords mongod refuses in `$jsonSchema` ("is not currently supported"). */
export const REFUSED_JSON_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  '$ref',
  '$schema',
  'default',
  'definitions',
  'format',
  'id',
]);

/** Query operators a validator may not use (QueryFeatureNotAllowed), anywhere in it. */
export const VALIDATOR_REFUSED_OPERATORS: readonly string[] = ['$where', '$text', '$near', '$nearSphere', '$geoNear'];

/** Aggregation operators a validator's `$expr` may not use (they run JavaScript in mongod). */
export const VALIDATOR_REFUSED_EXPRESSIONS: Readonly<Record<string, number>> = {
  $function: 4660800,
  $accumulator: 4660800,
  $_internalJsEmit: 4660801,
};

export const VALIDATION_LEVELS = ['off', 'strict', 'moderate'] as const;
export const VALIDATION_ACTIONS = ['error', 'warn'] as const;

/** The commands that refuse a view (CommandNotSupportedOnView), and how they do. */
export const VIEW_REFUSED_COMMANDS: readonly string[] = [
  'insert',
  'update',
  'delete',
  'findAndModify',
  'bulkWrite',
  'createIndexes',
  'dropIndexes',
  'listIndexes',
  'validate',
  'collStats',
  'renameCollection',
  '$out / $merge into a view',
];

/** What a view answers: the view's pipeline runs first, then the command's own work. */
export const VIEW_READ_COMMANDS: readonly string[] = ['find', 'aggregate', 'count', 'distinct'];

/** mongod's limit on the depth of views on views (including those reached through $lookup and friends). */
export const MAX_VIEW_DEPTH = 20;
