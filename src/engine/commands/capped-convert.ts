/**
 * cloneCollectionAsCapped and convertToCapped: copy a collection's documents, in natural order,
 * into a new capped collection of the given size (the oldest fall out when they do not fit), and
 * for convertToCapped put it in the source's place. As on mongod the copy keeps the source's
 * options (validator, …) but not its secondary indexes: a converted collection loses its TTL
 * indexes too. Each is one command, so the journal holds it as one frame: a crash recovers the
 * collection as it was before or after, never half-converted.
 */
import type { Collection } from '../catalog/collection';
import type { EngineContext } from '../engine-context';
import { fail } from '../errors';
import { cloneDocument } from '../values/clone';
import { formatValue } from '../values/format';
import { toDouble } from '../values/numbers';
import { isNumeric, type Document } from '../values/types';
import { collectionOptionsDocument, catalogCommands } from './catalog';
import { collectionNameOf, type CommandContext, type CommandHandler } from './context';

/** mongod's ceiling for a capped collection's size: 1 PB. */
const MAX_CAPPED_SIZE = 2 ** 50;

function sizeOf(cmd: Document, command: string): number {
  if (cmd.size === undefined) fail(40414, `BSON field '${command}.size' is missing but a required field`);
  if (!isNumeric(cmd.size))
    fail('TypeMismatch', `BSON field '${command}.size' is the wrong type: give the capped size in bytes as a number.`);
  const size = toDouble(cmd.size);
  if (!(size > 0) || size > MAX_CAPPED_SIZE)
    fail(
      'BadValue',
      `${command}: size must be more than 0 bytes and at most 1 PB (${MAX_CAPPED_SIZE}); got ${formatValue(cmd.size)}.`,
    );
  return size;
}

function sourceOf(engine: EngineContext, dbName: string, name: string, command: string): Collection {
  if (!engine.getDatabase(dbName)) fail('NamespaceNotFound', `database ${dbName} not found`);
  const source = engine.getCollection(dbName, name);
  if (source?.isView) fail('CommandNotSupportedOnView', `${command} not supported for views: ${dbName}.${name}`);
  if (!source) fail('NamespaceNotFound', `source collection ${dbName}.${name} does not exist`);
  if (source.options.timeseries)
    fail('IllegalOperation', `${command} cannot make a time-series collection capped: ${dbName}.${name}.`);
  return source;
}

/** Create `to` as a capped copy of `source`'s options and fill it with the source's documents, oldest first. */
function cloneInto(ctx: CommandContext, source: Collection, to: string, size: number): void {
  const options = collectionOptionsDocument(source);
  delete options.max;
  catalogCommands.create(ctx, { ...options, create: to, capped: true, size });
  const target = ctx.engine.requireCollection(ctx.dbName, to);
  // Documents go in as stored: the clone skips validation, as mongod's does.
  for (const record of source.scanRecords()) target.insert(cloneDocument(record.doc));
}

function cloneCollectionAsCapped(ctx: CommandContext, cmd: Document): Document {
  const from = collectionNameOf(cmd, 'cloneCollectionAsCapped');
  if (cmd.toCollection === undefined)
    fail(40414, "BSON field 'cloneCollectionAsCapped.toCollection' is missing but a required field");
  if (typeof cmd.toCollection !== 'string' || cmd.toCollection === '')
    fail('InvalidNamespace', `Invalid target collection name: ${formatValue(cmd.toCollection)}; give it as a string.`);
  const size = sizeOf(cmd, 'cloneCollectionAsCapped');
  const source = sourceOf(ctx.engine, ctx.dbName, from, 'cloneCollectionAsCapped');
  const to = cmd.toCollection;
  if (ctx.engine.getCollection(ctx.dbName, to))
    fail(
      'NamespaceExists',
      `cloneCollectionAsCapped failed - destination collection ${ctx.dbName}.${to} already exists. source collection: ${ctx.dbName}.${from}`,
    );
  cloneInto(ctx, source, to, size);
  return { ok: 1 };
}

function convertToCapped(ctx: CommandContext, cmd: Document): Document {
  const name = collectionNameOf(cmd, 'convertToCapped');
  const size = sizeOf(cmd, 'convertToCapped');
  const { engine, dbName } = ctx;
  const source = sourceOf(engine, dbName, name, 'convertToCapped');
  let temp: string;
  do temp = `tmp${Math.random().toString(36).slice(2, 7)}.convertToCapped.${name}`;
  while (engine.getCollection(dbName, temp));
  cloneInto(ctx, source, temp, size);
  engine.dropCollection(dbName, name);
  engine.renameCollection(dbName, temp, dbName, name);
  return { ok: 1 };
}

export const cappedConvertCommands: Record<string, CommandHandler> = { cloneCollectionAsCapped, convertToCapped };
