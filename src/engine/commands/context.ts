/** What every command handler receives, and small helpers for reading command fields. */
import type { EngineContext } from '../engine-context';
import { fail } from '../errors';
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
