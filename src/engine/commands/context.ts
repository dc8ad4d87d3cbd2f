/** What every command handler receives, and small helpers for reading command fields. */
import type { EngineContext } from '../engine-context';
import { fail } from '../errors';
import { Binary } from 'bson';
import { toDouble } from '../values/numbers';
import { bsonTypeOf, isNumeric, isPlainObject, type Document } from '../values/types';

export interface CommandContext {
  engine: EngineContext;
  dbName: string;
}

export type CommandHandler = (ctx: CommandContext, cmd: Document) => Document;

/** The collection name in the command's first field (`{find: "events"}`). */
export function collectionNameOf(cmd: Document, commandName: string): string {
  const name = cmd[commandName];
  if (typeof name !== 'string' || name.length === 0) {
    fail(
      'InvalidNamespace',
      `collection name has invalid type ${bsonTypeOf(name)}: ${commandName} expects {${commandName}: "<collection>"}.`,
    );
  }
  return name;
}

/**
 * The collection a command names, by name or by its UUID: mongod lets find, count, distinct and
 * listIndexes name a collection of the command's database by the UUID listCollections shows. A
 * UUID no collection of that database has is NamespaceNotFound.
 */
export function collectionNameOrUuidOf(
  engine: EngineContext,
  dbName: string,
  cmd: Document,
  commandName: string,
): string {
  const value = cmd[commandName];
  if (!(value instanceof Binary) || value.sub_type !== Binary.SUBTYPE_UUID) return collectionNameOf(cmd, commandName);
  const bytes = Buffer.from(value.buffer);
  for (const coll of engine.getDatabase(dbName)?.collections.values() ?? [])
    if (bytes.equals(Buffer.from(coll.uuid.buffer))) return coll.name;
  fail(
    'NamespaceNotFound',
    `UUID ${bytes.toString('hex')} specified in ${commandName} command not found in database ${dbName}: run listCollections there to see the collections' UUIDs.`,
  );
}

export function optionalDocument(cmd: Document, field: string): Document | undefined {
  const v = cmd[field];
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v))
    fail('TypeMismatch', `BSON field '${field}' is the wrong type '${bsonTypeOf(v)}', expected type 'object'`);
  return v;
}

export function optionalNumber(cmd: Document, field: string, { min = -Infinity } = {}): number | undefined {
  const v = cmd[field];
  if (v === undefined || v === null) return undefined;
  if (!isNumeric(v))
    fail('TypeMismatch', `BSON field '${field}' is the wrong type '${bsonTypeOf(v)}', expected a number`);
  const n = toDouble(v);
  if (n < min) fail('BadValue', `'${field}' must be >= ${min}, got ${n}`);
  return Math.trunc(n);
}

export function optionalBool(cmd: Document, field: string): boolean | undefined {
  const v = cmd[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  if (isNumeric(v)) return toDouble(v) !== 0;
  fail('TypeMismatch', `BSON field '${field}' is the wrong type '${bsonTypeOf(v)}', expected type 'bool'`);
}

export function requireArray(cmd: Document, field: string): unknown[] {
  const v = cmd[field];
  if (!Array.isArray(v))
    fail('TypeMismatch', `BSON field '${field}' is the wrong type '${bsonTypeOf(v)}', expected type 'array'`);
  return v;
}
