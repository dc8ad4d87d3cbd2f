/**
 * The `top` command: per namespace, how many operations of each kind ran and how long they took,
 * counted by the dispatcher as each command finishes (mongod's Top). Kept per engine, from its start.
 */
import { Long } from 'bson';
import type { EngineContext } from '../engine-context';
import { fail } from '../errors';
import type { Document } from '../values/types';
import type { CommandContext, CommandHandler } from './context';

type Kind = 'queries' | 'getmore' | 'insert' | 'update' | 'remove' | 'commands';
const FIELDS = ['total', 'readLock', 'writeLock', 'queries', 'getmore', 'insert', 'update', 'remove', 'commands'];

interface Usage {
  time: number;
  count: number;
}

const usageByEngine = new WeakMap<EngineContext, Map<string, Map<string, Usage>>>();

/** The kind of each command top tells apart; any other command on a collection counts as `commands`. */
const KINDS: Record<string, Kind> = {
  find: 'queries',
  getMore: 'getmore',
  insert: 'insert',
  update: 'update',
  delete: 'remove',
};

/** Commands on a collection that take its write lock in mongod; the rest read. */
const WRITES = new Set([
  'insert',
  'update',
  'delete',
  'findAndModify',
  'findandmodify',
  'createIndexes',
  'dropIndexes',
  'deleteIndexes',
  'create',
  'drop',
  'collMod',
  'renameCollection',
  'convertToCapped',
  'cloneCollectionAsCapped',
  'compact',
  'reIndex',
]);

/** The namespace a command works on, or undefined for one that names no collection. */
function namespaceOf(dbName: string, command: Document): string | undefined {
  const name = Object.keys(command)[0];
  const target = name === 'getMore' ? command.collection : command[name];
  return typeof target === 'string' && target.length > 0 ? `${dbName}.${target}` : undefined;
}

/** Records one finished command: `micros` is how long it ran. */
export function recordTop(engine: EngineContext, dbName: string, command: Document, micros: number): void {
  const ns = namespaceOf(dbName, command);
  if (ns === undefined) return;
  const name = Object.keys(command)[0];
  let byNs = usageByEngine.get(engine);
  if (!byNs) usageByEngine.set(engine, (byNs = new Map()));
  let usage = byNs.get(ns);
  if (!usage) byNs.set(ns, (usage = new Map(FIELDS.map((f) => [f, { time: 0, count: 0 }]))));
  for (const field of ['total', WRITES.has(name) ? 'writeLock' : 'readLock', KINDS[name] ?? 'commands']) {
    const u = usage.get(field)!;
    u.time += micros;
    u.count++;
  }
}

function top({ engine, dbName }: CommandContext): Document {
  if (dbName !== 'admin')
    fail('Unauthorized', 'top may only be run against the admin database: db.adminCommand({top: 1}).');
  const totals: Document = { note: 'all times in micros' };
  for (const [ns, usage] of [...(usageByEngine.get(engine) ?? new Map<string, Map<string, Usage>>())].sort(
    ([a], [b]) => (a < b ? -1 : a > b ? 1 : 0),
  )) {
    const entry: Document = {};
    for (const [field, u] of usage)
      entry[field] = { time: Long.fromNumber(Math.round(u.time)), count: Long.fromNumber(u.count) };
    totals[ns] = entry;
  }
  return { totals, ok: 1 };
}

export const topCommands: Record<string, CommandHandler> = { top };
