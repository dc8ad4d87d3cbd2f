/**
 * mongod parses write commands strictly (IDL): a field it does not know fails the whole command with
 * 40415 before any document is written, so a misspelt option ("ordred") is never silently ignored.
 */
import { fail } from '../errors';
import type { Document } from '../values/types';

/**
 * Arguments every command accepts (mongod's generic arguments). Fields starting with `$` (`$db`,
 * `$readPreference`, `$clusterTime`, …) are the drivers' and are always let through.
 */
const GENERIC_ARGUMENTS = new Set([
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors',
  'maxTimeMS',
  'readConcern',
  'writeConcern',
  'lsid',
  'txnNumber',
  'autocommit',
  'startTransaction',
  'stmtId',
  'comment',
  'clientOperationKey',
  'txnRetryCounter',
  'mayBypassWriteBlocking',
  'allowImplicitCollectionCreation',
  'rawData',
]);

/** Whether `key` is an argument every command accepts (a driver's `$` field included). */
export function isGenericArgument(key: string): boolean {
  return key.startsWith('$') || GENERIC_ARGUMENTS.has(key);
}

/**
 * The fields each write command and each of its statements may carry, besides the generic ones;
 * and find's (its IDL is strict too: mongod's find_command.idl, deprecated fields included).
 */
export const WRITE_COMMAND_FIELDS = {
  find: [
    'find',
    'filter',
    'projection',
    'sort',
    'hint',
    'collation',
    'skip',
    'limit',
    'batchSize',
    'ntoreturn',
    'singleBatch',
    'allowDiskUse',
    'min',
    'max',
    'returnKey',
    'showRecordId',
    'tailable',
    'oplogReplay',
    'noCursorTimeout',
    'awaitData',
    'allowPartialResults',
    'let',
    'options',
    'term',
    'readOnce',
    'allowSpeculativeMajorityRead',
    'runtimeConstants',
    'collectionUUID',
    'encryptionInformation',
    'includeQueryStatsMetrics',
    'isTimeseriesNamespace',
    'shardVersion',
    'databaseVersion',
  ],
  insert: ['insert', 'documents', 'ordered', 'bypassDocumentValidation', 'let'],
  update: ['update', 'updates', 'ordered', 'bypassDocumentValidation', 'let'],
  delete: ['delete', 'deletes', 'ordered', 'let'],
  'update.updates': ['q', 'u', 'multi', 'upsert', 'arrayFilters', 'collation', 'hint', 'c', 'sort', 'upsertSupplied'],
  'delete.deletes': ['q', 'limit', 'collation', 'hint'],
} as const;

/** Fails with 40415 naming the first field of `doc` that `where` does not accept. */
export function rejectUnknownFields(doc: Document, where: keyof typeof WRITE_COMMAND_FIELDS, topLevel: boolean): void {
  const known: readonly string[] = WRITE_COMMAND_FIELDS[where];
  for (const key of Object.keys(doc)) {
    if (known.includes(key)) continue;
    if (topLevel && (key.startsWith('$') || GENERIC_ARGUMENTS.has(key))) continue;
    fail(
      40415,
      `BSON field '${where}.${key}' is an unknown field. Remove it, or check its spelling against: ${known.join(', ')}.`,
    );
  }
}
