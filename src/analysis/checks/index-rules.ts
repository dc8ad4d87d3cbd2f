/**
 * Rules about a whole TTL index definition, each decided by the engine's spec checks
 * (`normalizeIndexSpec` for `_id`, `checkTTLIndexSpec` for key and collection):
 * TTL006 compound / wildcard key (1.6, 1.9), TTL007 `_id` (1.7), TTL008 capped collection (1.8),
 * TTL009 time series (6.4), TTL010 partial TTL longer than the collection's TTL (6.4),
 * TTL012 a TTL field the file fills with non-dates (7.8), TTL013 `0` on a creation time (7.8).
 */
import type { Document } from '../../engine';
import { EngineError } from '../../engine/errors';
import { normalizeIndexSpec } from '../../engine/indexes/index-spec';
import { defaultIndexName } from '../../engine/indexes/key-pattern';
import { checkTTLIndexSpec, safeNumberLong, type TTLCollectionFacts } from '../../engine/ttl/validation';
import { chooseTTLField, type FieldSample } from '../../engine/ttl/ttl-field-choice';
import { isNumeric } from '../../engine/values/types';
import type { IndexDef } from '../definitions';
import { indentOf, insertAt, nodeText, removeProperty, removeRange, spanOf } from '../edits';
import { lastProp, litType, type Lit, type Prop } from '../literals';
import type { Fix } from '../types';
import { durationWords } from '../words';
import { nsText, sameNamespace, type CheckContext, type CollectionFacts } from './context';

/**
 * Stands in for the real value when asking the engine about the key and the collection, so that
 * a bad value (reported by the value rules) does not hide a bad key.
 */
const VALID_STAND_IN = 3600;

const NO_COLLECTION: Omit<TTLCollectionFacts, 'serverVersion'> = { capped: false, clustered: false };

function engineRefusal(spec: Document, facts: TTLCollectionFacts): EngineError | undefined {
  try {
    checkTTLIndexSpec(spec, facts);
    return undefined;
  } catch (err) {
    if (err instanceof EngineError) return err;
    throw err;
  }
}

export function checkIndexDefinition(ctx: CheckContext, def: IndexDef, seconds: number | undefined): void {
  if (!def.ttl || !def.keyValue) return;
  const key = def.keyValue;
  const keyNode = def.key?.at ?? def.site;
  const partial = partialOf(def);
  // Stryker disable next-line StringLiteral: the engine quotes the spec only when the value is refused, and the stand-in is a valid value
  const probe: Document = { key, name: 'probe', expireAfterSeconds: VALID_STAND_IN, ...(partial ?? {}) };

  // TTL007: the _id index accepts no TTL option (197, rule 1.7), decided by the engine's spec rules.
  // Asked with the user's own name and value, so the engine's message quotes the user's spec.
  const name = typeof def.spec?.name === 'string' ? def.spec.name : defaultIndexName(key);
  try {
    normalizeIndexSpec({ key, name, expireAfterSeconds: seconds ?? VALID_STAND_IN });
  } catch (err) {
    if (err instanceof EngineError && err.code === 197) {
      ctx.report(
        'TTL007',
        def.unit,
        keyNode,
        `createIndex fails with InvalidIndexSpecificationOption (197): ${err.message} The _id field does not support TTL indexes. Index a date field instead (e.g. { createdAt: 1 }), or use a clustered collection with a collection-level expireAfterSeconds to expire by _id.`,
      );
      return;
    }
  }

  // TTL006: the key alone, on an ordinary collection, with what the file inserts as the sample
  // that names the TTL field the user meant (the same choice as the engine's refusal).
  const sample = insertedSample(ctx, def);
  const keyError = engineRefusal(probe, {
    ...NO_COLLECTION,
    serverVersion: ctx.serverVersion,
    ...(sample ? { sample } : {}),
  });
  if (keyError) {
    ctx.report(
      'TTL006',
      def.unit,
      keyNode,
      `createIndex fails with ${keyError.codeName} (${keyError.code}): ${keyError.message}`,
      splitFixes(def, key, sample),
    );
    return;
  }

  const facts = ctx.collectionFacts(def.ns);
  // A filter that is not literal could be anything: the collection checks stay silent then.
  if (facts && def.ns && partial) checkAgainstCollection(ctx, def, probe, facts, seconds);
  if (seconds !== undefined) {
    checkCreationTimeZero(ctx, def, seconds);
    checkInsertedValues(ctx, def);
  }
}

/** The partial filter as options (`{}` without one); undefined when it is there but not literal. */
function partialOf(def: IndexDef): Document | undefined {
  if (!lastPropOf(def.options, 'partialFilterExpression')) return {};
  return def.spec?.partialFilterExpression !== undefined
    ? { partialFilterExpression: def.spec.partialFilterExpression }
    : undefined;
}

function lastPropOf(lit: Lit | undefined, key: string): Prop | undefined {
  return lit?.kind === 'object' ? lastProp(lit.props, key) : undefined;
}

function where(facts: CollectionFacts, nsName: string): string {
  return facts.source === 'file' ? `${nsName} (created in this file)` : `${nsName} (in the connected engine)`;
}

function checkAgainstCollection(
  ctx: CheckContext,
  def: IndexDef,
  probe: Document,
  facts: CollectionFacts,
  seconds: number | undefined,
): void {
  const name = where(facts, nsText(def.ns!));
  const collectionFacts = {
    capped: facts.capped,
    clustered: facts.clustered,
    ...(facts.timeseries ? { timeseries: facts.timeseries } : {}),
  };
  const err = engineRefusal(probe, { ...collectionFacts, serverVersion: ctx.serverVersion });
  const ttlNode = def.ttl!.node;
  if (err) {
    if (err.code === 72) {
      const filter = lastPropOf(def.options, 'partialFilterExpression');
      ctx.report(
        'TTL009',
        def.unit,
        filter && facts.timeseries && Object.keys(def.keyValue!)[0] === facts.timeseries.timeField
          ? filter.node
          : ttlNode,
        `createIndex on the time-series collection ${name} fails with InvalidOptions (72): ${err.message}`,
      );
    } else {
      ctx.report(
        'TTL008',
        def.unit,
        ttlNode,
        `createIndex on the capped collection ${name} fails with ${err.codeName} (${err.code}): ${err.message}`,
        [],
        { severity: 'error' },
      );
    }
    return;
  }
  if (facts.capped) {
    const older = engineRefusal(probe, { ...collectionFacts, serverVersion: '7.0' });
    if (older) {
      ctx.report(
        'TTL008',
        def.unit,
        ttlNode,
        `${name} is capped: MongoDB 7.1 and later accept this TTL index and delete by date as well as by size, but MongoDB 7.0 and earlier refuse it with CannotCreateIndex (67). Keep it only if every server you deploy to is 7.1 or later.`,
      );
    }
  }
  if (
    facts.timeseries &&
    seconds !== undefined &&
    def.spec?.partialFilterExpression !== undefined &&
    isNumeric(facts.expireAfterSeconds)
  ) {
    const collectionSeconds = safeNumberLong(facts.expireAfterSeconds);
    if (seconds >= collectionSeconds) {
      ctx.report(
        'TTL010',
        def.unit,
        def.ttl!.value.at,
        `This partial TTL (${durationWords(seconds)}) is not shorter than the collection's own expireAfterSeconds (${durationWords(collectionSeconds)}) on ${name}: the collection TTL deletes every bucket first, so this index never deletes anything. A partial TTL index only helps with a shorter duration for the measurements its filter selects.`,
      );
    }
  }
}

/** Field names that hold when a document was made; `0` on them deletes at once. */
const CREATION_WORDS = [
  'created',
  'creation',
  'inserted',
  'insertion',
  'addedat',
  'added_at',
  'dateadded',
  'date_added',
];

function checkCreationTimeZero(ctx: CheckContext, def: IndexDef, seconds: number): void {
  if (seconds !== 0) return;
  const [field] = Object.keys(def.keyValue!);
  const leaf = field.split('.').pop()!.toLowerCase();
  if (!CREATION_WORDS.some((w) => leaf.includes(w))) return;
  ctx.report(
    'TTL013',
    def.unit,
    def.ttl!.value.at,
    `${def.ttl!.key}: 0 expires a document at the moment stored in '${field}', and '${field}' sounds like a creation time: documents would be deleted at the next TTL pass after they are inserted. Did you mean a delay (e.g. 86400 for one day)? Use 0 only on a field that holds the expiry time itself (such as expireAt).`,
  );
}

function isDateOnly(lit: Lit): boolean | undefined {
  const t = litType(lit);
  if (t === undefined) return undefined;
  if (t === 'date') return true;
  if (lit.kind === 'array') {
    // An array expires by its earliest Date element (rule 7.8); no Date at all: never.
    if (lit.items.some((i) => litType(i) === 'date')) return true;
    return lit.items.every((i) => litType(i) !== undefined) ? false : undefined;
  }
  return false;
}

function fieldLit(doc: Lit, path: string): Lit | undefined {
  let current: Lit | undefined = doc;
  for (const part of path.split('.')) {
    if (current?.kind !== 'object') return undefined;
    current = lastProp(current.props, part)?.value;
  }
  return current;
}

const TYPE_WORDS: Record<string, string> = {
  number: 'a number',
  string: 'a string',
  bool: 'a boolean',
  null: 'null',
  object: 'an object',
  array: 'an array without dates',
  // Stryker disable next-line StringLiteral: litType never gives 'other': the evaluator builds values only from null, undefined, strings, booleans and numbers (BSON ones included)
  other: 'a non-date value',
};

function checkInsertedValues(ctx: CheckContext, def: IndexDef): void {
  if (!def.ns || def.via === 'mongooseField' || def.via === 'mongooseIndex') return;
  const [field] = Object.keys(def.keyValue!);
  for (const insert of ctx.insertsInto(def.ns.collection)) {
    if (!sameNamespace(insert.ns, def.ns)) continue;
    for (const doc of insert.docs) {
      const value = fieldLit(doc, field);
      if (!value || isDateOnly(value) !== false) continue;
      const t = litType(value)!;
      const what =
        value.kind === 'typed' && value.type === 'number' && nodeText(insert.unit, value.node).includes('Date.now')
          ? 'a number (Date.now() is milliseconds, not a Date)'
          : (TYPE_WORDS[t] ?? 'a non-date value');
      const keyProp = def.key?.kind === 'object' ? lastProp(def.key.props, field) : undefined;
      ctx.report(
        'TTL012',
        def.unit,
        keyProp?.node ?? def.key?.at ?? def.site,
        `The TTL index on '${field}' only deletes documents whose '${field}' is a BSON date, but ${nsText(insert.ns)} gets '${field}' as ${what} in this file: those documents never expire. Store a Date (new Date(...)) instead.`,
        [],
        { related: [{ ...spanOf(insert.unit, value.at), message: `'${field}' set to ${what} here` }] },
      );
      return;
    }
  }
}

/** What the documents this file inserts into the index's collection hold per field; undefined when it inserts none there. */
function insertedSample(ctx: CheckContext, def: IndexDef): ((field: string) => FieldSample) | undefined {
  if (!def.ns || def.via === 'mongooseField' || def.via === 'mongooseIndex') return undefined;
  const docs: Lit[] = [];
  for (const insert of ctx.insertsInto(def.ns.collection))
    if (sameNamespace(insert.ns, def.ns)) docs.push(...insert.docs);
  if (docs.length === 0) return undefined;
  return (field) => {
    let seen = 0;
    let dates = 0;
    for (const doc of docs) {
      const value = fieldLit(doc, field);
      if (!value) continue;
      seen++;
      if (isDateOnly(value) === true) dates++;
    }
    return { seen, dates };
  };
}

/**
 * TTL006 fixes: a single-field TTL index on one of the key's fields plus the compound index
 * without the TTL option. Offered for createIndex / ensureIndex / Mongoose schema.index written as
 * a statement, one fix per field, the field chooseTTLField names first (preferred, with its reason).
 */
function splitFixes(def: IndexDef, key: Document, sample: ((field: string) => FieldSample) | undefined): Fix[] {
  if (!def.call || !def.call.statement || !def.ttl || def.options?.kind !== 'object' || def.key?.kind !== 'object')
    return [];
  if (def.via !== 'createIndex' && def.via !== 'ensureIndex' && def.via !== 'mongooseIndex') return [];
  // Stryker disable next-line MethodExpression,ArrowFunction: @babel/parser's error recovery drops holes from call arguments, so none is ever missing
  if (def.call.node.arguments.some((a) => !a)) return [];
  const { unit, call, ttl, options } = def;
  const statement = call.statement!;
  const callee = nodeText(unit, call.node.callee);
  const indent = indentOf(unit, statement);
  const filter = lastProp(options.props, 'partialFilterExpression');
  const ttlOptions = [nodeText(unit, ttl.node), ...(filter ? [nodeText(unit, filter.node)] : [])].join(', ');
  const removeTtl =
    options.props.length === 1 && call.node.arguments.length === 2
      ? removeRange(unit, call.node.arguments[0].end ?? 0, call.node.arguments[1].end ?? 0)
      : removeProperty(unit, options.node, ttl.node);
  if (!removeTtl) return [];
  // A wildcard field takes no TTL on its own either (rule 1.9): a split onto it would be refused again.
  const fields = Object.keys(key).filter((f) => (key[f] === 1 || key[f] === -1) && f !== '$**' && !f.endsWith('.$**'));
  if (fields.length === 0) return [];
  const choice = chooseTTLField(fields, sample);
  fields.sort((a, b) => Number(b === choice.field) - Number(a === choice.field));
  return fields.map((field, i) => {
    const ttlCall = `${call.awaited ? 'await ' : ''}${callee}({ ${JSON.stringify(field).slice(1, -1) === field && /^[A-Za-z_$][\w$]*$/.test(field) ? field : JSON.stringify(field)}: ${String(key[field])} }, { ${ttlOptions} });`;
    return {
      title: `Split: a TTL index on ${field}${field === choice.field ? ` (${choice.because})` : ''} plus the compound index without expireAfterSeconds`,
      edits: [insertAt(unit, statement.start ?? 0, `${ttlCall}\n${indent}`), removeTtl],
      ...(i === 0 ? { preferred: true } : {}),
    };
  });
}
