/**
 * validate: every index checked against the collection's documents, with mongod's reply
 * (`valid`, `errors`, `warnings`, `nrecords`, `nIndexes`, `keysPerIndex`, `indexDetails`,
 * `missingIndexEntries`, `extraIndexEntries`, ...).
 *
 * For each index the entries the documents should produce are computed afresh and walked beside
 * the entries the index holds, both in index order: an expected entry the index lacks is missing,
 * an entry no document produces (or one pointing at a record that is gone) is extra. A document
 * with several keys in an index not flagged multikey is an error too: the planner would trust
 * single-key bounds on it. TTL indexes get a warning when their stored expireAfterSeconds is one
 * the monitor skips.
 */
import { Binary, Long } from 'bson';
import type { Collection } from '../catalog/collection';
import type { StoredRecord } from '../catalog/record';
import { fail } from '../errors';
import type { BTreeIndex } from '../indexes/btree-index';
import { entryOf, type EntryKey } from '../indexes/key-order';
import { wildcardKeyDocument } from '../indexes/wildcard-keys';
import { checkForInterrupt } from '../interrupt';
import { effectiveExpireAfterSeconds, isTTLIndexSpec } from '../ttl/validation';
import { formatValue } from '../values/format';
import type { Document } from '../values/types';
import { documentComplies } from '../validation/validator';
import { collectionNameOf, optionalBool, type CommandContext, type CommandHandler } from './context';

/** mongod lists at most this many inconsistent entries of each kind (the rest are counted). */
const MAX_LISTED_ENTRIES = 100;

interface IndexCheck {
  valid: boolean;
  missing: Document[];
  extra: Document[];
  missingCount: number;
  extraCount: number;
  errors: string[];
  warnings: string[];
}

function validate({ engine, dbName }: CommandContext, cmd: Document): Document {
  const name = collectionNameOf(cmd, 'validate');
  optionalBool(cmd, 'full');
  if (optionalBool(cmd, 'repair'))
    fail(
      'InvalidOptions',
      'validate with repair: true is only for a standalone mongod started with --repair; drop and rebuild the index instead.',
    );
  const coll = engine.getCollection(dbName, name);
  if (!coll) fail('NamespaceNotFound', `Collection '${dbName}.${name}' does not exist to validate.`);
  if (coll.isView) fail('CommandNotSupportedOnView', 'Cannot validate a view');

  const errors: string[] = [];
  const warnings: string[] = [];
  const keysPerIndex: Document = {};
  const indexDetails: Document = {};
  const missingIndexEntries: Document[] = [];
  const extraIndexEntries: Document[] = [];
  let missingTotal = 0;
  let extraTotal = 0;

  let nrecords = 0;
  let nonCompliant = 0;
  for (const record of coll.records.values()) {
    checkForInterrupt();
    nrecords++;
    if (!documentComplies(engine, coll, record.doc)) nonCompliant++;
  }
  if (nonCompliant > 0)
    warnings.push(
      `Detected one or more documents not compliant with the collection's schema (${nonCompliant}): they fail its validator. Find them with db.${name}.find({$nor: [<validator>]}).`,
    );

  for (const index of coll.indexes.values()) {
    const check = checkIndex(coll, index);
    keysPerIndex[index.name] = Long.fromNumber(index.size);
    indexDetails[index.name] = { valid: check.valid };
    errors.push(...check.errors);
    warnings.push(...check.warnings);
    missingTotal += check.missingCount;
    extraTotal += check.extraCount;
    missingIndexEntries.push(...check.missing);
    extraIndexEntries.push(...check.extra);
  }
  if (missingTotal > 0) warnings.push(`Detected ${missingTotal} missing index entries.`);
  if (extraTotal > 0) warnings.push(`Detected ${extraTotal} extra index entries.`);

  const valid = errors.length === 0;
  return {
    ns: coll.ns,
    uuid: new Binary(coll.uuid.toBinary().buffer, Binary.SUBTYPE_UUID),
    nInvalidDocuments: 0,
    nNonCompliantDocuments: nonCompliant,
    nrecords,
    nIndexes: coll.indexes.size,
    keysPerIndex,
    indexDetails,
    valid,
    repaired: false,
    warnings,
    errors,
    extraIndexEntries,
    missingIndexEntries,
    corruptRecords: [],
    ...(valid
      ? {}
      : {
          advice:
            'A corrupt namespace has been detected. Drop and recreate the indexes named in errors (db.<collection>.dropIndex / createIndex) to rebuild them from the documents.',
        }),
    ok: 1,
  };
}

function entryDocument(
  index: BTreeIndex,
  key: readonly unknown[],
  record: StoredRecord | undefined,
  rid: number,
): Document {
  const indexKey: Document = index.wildcard ? wildcardKeyDocument(key) : {};
  if (!index.wildcard)
    index.pattern.fields.forEach((f, i) => {
      indexKey[f.path] = key[i];
    });
  return {
    indexName: index.name,
    recordId: Long.fromNumber(rid),
    ...(record ? { idKey: record.doc._id } : {}),
    indexKey,
  };
}

function checkIndex(coll: Collection, index: BTreeIndex): IndexCheck {
  const result: IndexCheck = {
    valid: true,
    missing: [],
    extra: [],
    missingCount: 0,
    extraCount: 0,
    errors: [],
    warnings: [],
  };
  // keysOf raises the index's multikey flag as a side effect: compute with it lowered to learn
  // whether any document needs it, then put the stored flag back.
  const storedMultikey = index.multikey;
  const expected: Array<{ entry: EntryKey; key: unknown[]; record: StoredRecord }> = [];
  let multikeyRecord: StoredRecord | undefined;
  try {
    for (const record of coll.records.values()) {
      checkForInterrupt();
      index.multikey = false;
      const keys = index.keysOf(record.doc);
      if (index.multikey && !multikeyRecord) multikeyRecord = record;
      for (const key of keys ?? []) expected.push({ entry: entryOf(key, record.rid), key, record });
    }
  } finally {
    index.multikey = storedMultikey;
  }
  if (multikeyRecord && !storedMultikey) {
    result.valid = false;
    result.errors.push(
      `Index with name '${index.name}' is not multi-key but has more than one key in document with RecordId(${multikeyRecord.rid}) and _id ${formatValue(multikeyRecord.doc._id)}.`,
    );
  }
  const cmp = index.compare;
  expected.sort((a, b) => cmp(a.entry, b.entry));
  // One entry per distinct key of a document (an array holding a value twice is one entry).
  const unique = expected.filter((e, i) => i === 0 || cmp(expected[i - 1].entry, e.entry) !== 0);

  const actual = index.tree.entries();
  let next = actual.next();
  let i = 0;
  const noteMissing = (e: (typeof unique)[number]) => {
    result.missingCount++;
    if (result.missing.length < MAX_LISTED_ENTRIES)
      result.missing.push(entryDocument(index, e.key, e.record, e.record.rid));
  };
  const noteExtra = (entry: EntryKey, record: StoredRecord) => {
    result.extraCount++;
    if (result.extra.length < MAX_LISTED_ENTRIES)
      result.extra.push(entryDocument(index, index.valuesOf(entry), record, record.rid));
  };
  while (!next.done || i < unique.length) {
    checkForInterrupt();
    if (next.done) {
      noteMissing(unique[i++]);
      continue;
    }
    const [entry, record] = next.value;
    if (i >= unique.length) {
      noteExtra(entry, record);
      next = actual.next();
      continue;
    }
    const c = cmp(unique[i].entry, entry);
    if (c < 0) {
      noteMissing(unique[i++]);
    } else if (c > 0) {
      noteExtra(entry, record);
      next = actual.next();
    } else {
      // Same key and rid: the entry must lead to the stored record itself.
      if (coll.records.get(record.rid) !== record) noteExtra(entry, record);
      i++;
      next = actual.next();
    }
  }
  if (result.missingCount > 0 || result.extraCount > 0) {
    result.valid = false;
    result.errors.push(`Index with name '${index.name}' has inconsistencies.`);
  }
  if (isTTLIndexSpec(index.spec) && effectiveExpireAfterSeconds(index.spec.expireAfterSeconds) === undefined) {
    result.warnings.push(
      `TTL index '${index.name}' has an expireAfterSeconds the TTL monitor skips (${formatValue(index.spec.expireAfterSeconds)}): set a valid one with collMod, e.g. {collMod: "${coll.name}", index: {name: "${index.name}", expireAfterSeconds: 3600}}.`,
    );
  }
  return result;
}

export const validateCommands: Record<string, CommandHandler> = { validate };
