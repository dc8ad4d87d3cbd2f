/**
 * Per-namespace usage as mongod keeps it for `top` and `$collStats: {latencyStats}`: every command
 * that names a collection (or a view) counts once, with the time it took, whether it succeeded or
 * failed. Reads are find, getMore, count, distinct and aggregate; writes are insert, update, delete
 * and findAndModify; anything else on a namespace is a command.
 */
import { Long } from 'bson';
import type { EngineContext } from '../engine-context';
import type { Document } from '../values/types';

type Kind = 'reads' | 'writes' | 'commands';

interface Timed {
  time: number;
  count: number;
}

interface NamespaceUsage {
  latency: Record<Kind | 'transactions', { latency: number; ops: number }>;
  top: Record<(typeof TOP_FIELDS)[number], Timed>;
}

const READS = new Set(['find', 'getMore', 'count', 'distinct', 'aggregate']);
const WRITES = new Set(['insert', 'update', 'delete', 'findAndModify']);

/** top's fields, in mongod's order; each command counts under `total`, its lock and its own kind. */
const TOP_FIELDS = [
  'total',
  'readLock',
  'writeLock',
  'queries',
  'getmore',
  'insert',
  'update',
  'remove',
  'commands',
] as const;
const TOP_FIELD_OF: Record<string, (typeof TOP_FIELDS)[number]> = {
  find: 'queries',
  getMore: 'getmore',
  insert: 'insert',
  update: 'update',
  delete: 'remove',
};

/** Commands on a collection that take its write lock in mongod; the rest take its read lock. */
const WRITE_LOCK = new Set([
  ...WRITES,
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

const usageByEngine = new WeakMap<EngineContext, Map<string, NamespaceUsage>>();

function usageOf(engine: EngineContext): Map<string, NamespaceUsage> {
  let found = usageByEngine.get(engine);
  if (!found) usageByEngine.set(engine, (found = new Map()));
  return found;
}

function emptyUsage(): NamespaceUsage {
  const zero = () => ({ latency: 0, ops: 0 });
  const top = {} as NamespaceUsage['top'];
  for (const f of TOP_FIELDS) top[f] = { time: 0, count: 0 };
  return { latency: { reads: zero(), writes: zero(), commands: zero(), transactions: zero() }, top };
}

/** The collection a command works on: its first field's value (getMore: its `collection`). */
function collectionOf(name: string, command: Document): string | undefined {
  const v = name === 'getMore' ? command.collection : command[name];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** Counts one command run on `dbName` that took `micros`; commands that name no collection are not kept. */
export function recordUsage(engine: EngineContext, dbName: string, command: Document, micros: number): void {
  const name = Object.keys(command)[0];
  if (name === undefined) return;
  const coll = collectionOf(name, command);
  if (coll === undefined) return;
  const ns = `${dbName}.${coll}`;
  const all = usageOf(engine);
  let usage = all.get(ns);
  if (!usage) all.set(ns, (usage = emptyUsage()));
  const kind: Kind = READS.has(name) ? 'reads' : WRITES.has(name) ? 'writes' : 'commands';
  usage.latency[kind].latency += micros;
  usage.latency[kind].ops++;
  const add = (field: (typeof TOP_FIELDS)[number]) => {
    usage.top[field].time += micros;
    usage.top[field].count++;
  };
  add('total');
  add(WRITE_LOCK.has(name) ? 'writeLock' : 'readLock');
  add(TOP_FIELD_OF[name] ?? 'commands');
}

/** `$collStats: {latencyStats}` for `ns`: the total time (microseconds) and count of each kind, zeros until something ran on it. */
export function latencyStatsOf(engine: EngineContext, ns: string): Document {
  const usage = usageOf(engine).get(ns) ?? emptyUsage();
  const out: Document = {};
  for (const [kind, { latency, ops }] of Object.entries(usage.latency))
    out[kind] = { latency: Long.fromNumber(Math.round(latency)), ops: Long.fromNumber(ops) };
  return out;
}

/** The `top` command's totals: one entry per namespace used so far. */
export function topTotals(engine: EngineContext): Document {
  // mongod's own note, word for word: clients read it.
  const totals: Document = { note: 'all times in micros' };
  const byName = [...usageOf(engine)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [ns, usage] of byName) {
    const entry: Document = {};
    // Plain numbers: mongod appends these with appendNumber, an int32 while the value fits.
    for (const f of TOP_FIELDS) entry[f] = { time: Math.round(usage.top[f].time), count: usage.top[f].count };
    totals[ns] = entry;
  }
  return totals;
}
