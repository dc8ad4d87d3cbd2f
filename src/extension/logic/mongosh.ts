/**
 * The mongosh text of what a command did, for "Copy as mongosh": the same operation typed into
 * mongosh (or a TTL Workbench playground, whose `clock` and `ttl` helpers cover what a real server
 * does by itself). Values print as mongosh prints them (the shell's renderer).
 */
import type { Document } from '../../engine';
import { renderAsValue } from '../../shell/render';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Names mongosh resolves to a database method rather than a collection. */
const DB_METHODS = new Set([
  'getCollection',
  'getSiblingDB',
  'runCommand',
  'adminCommand',
  'createCollection',
  'dropDatabase',
  'getName',
  'stats',
  'version',
  'help',
  'aggregate',
  'watch',
  'auth',
  'logout',
  'getMongo',
  'getCollectionNames',
  'hello',
]);

/**
 * Numbers as mongosh shows what the driver returns: Int32, Double and Long values that fit a JS
 * number become plain numbers (`expireAfterSeconds: 3600`, not `Int32(3600)`); NaN stays NaN.
 */
export function plainNumbers(v: unknown): unknown {
  if (v === null || typeof v !== 'object' || v instanceof Date) return v;
  if (Array.isArray(v)) return v.map(plainNumbers);
  const bson = (v as { _bsontype?: string })._bsontype;
  if (bson === 'Int32' || bson === 'Double') return (v as { value: number }).value;
  if (bson === 'Long') {
    const n = Number((v as { toString(): string }).toString());
    return Number.isSafeInteger(n) ? n : v;
  }
  if (bson !== undefined) return v;
  const out: Document = {};
  for (const [k, x] of Object.entries(v as Document)) out[k] = plainNumbers(x);
  return out;
}

/** A value on one line (mongosh's rendering breaks at 80 columns; strings keep their escapes). */
export function value(v: unknown): string {
  return renderAsValue(plainNumbers(v)).replace(/\n\s*/g, ' ');
}

/** A value as mongosh prints it, over several lines when long (tooltips, documents). */
export function valueBlock(v: unknown): string {
  return renderAsValue(plainNumbers(v));
}

function quoted(s: string): string {
  return renderAsValue(s);
}

/** `db.getSiblingDB('app')`. */
export function dbRef(db: string): string {
  return `db.getSiblingDB(${quoted(db)})`;
}

/** `db.getSiblingDB('app').events`, or `.getCollection('my-events')` when the name needs it. */
export function collectionRef(db: string, collection: string): string {
  return IDENTIFIER.test(collection) && !DB_METHODS.has(collection) && !collection.startsWith('_')
    ? `${dbRef(db)}.${collection}`
    : `${dbRef(db)}.getCollection(${quoted(collection)})`;
}

export function createCollection(db: string, name: string, options: Document): string {
  return Object.keys(options).length === 0
    ? `${dbRef(db)}.createCollection(${quoted(name)})`
    : `${dbRef(db)}.createCollection(${quoted(name)}, ${value(options)})`;
}

export function dropCollection(db: string, name: string): string {
  return `${collectionRef(db, name)}.drop()`;
}

export function createIndex(db: string, collection: string, key: Document, options: Document = {}): string {
  const opts = Object.keys(options).length ? `, ${value(options)}` : '';
  return `${collectionRef(db, collection)}.createIndex(${value(key)}${opts})`;
}

export function dropIndex(db: string, collection: string, name: string): string {
  return `${collectionRef(db, collection)}.dropIndex(${quoted(name)})`;
}

export function hideIndex(db: string, collection: string, name: string, hidden: boolean): string {
  return `${collectionRef(db, collection)}.${hidden ? 'hideIndex' : 'unhideIndex'}(${quoted(name)})`;
}

/** Any command document: `db.getSiblingDB('app').runCommand({ collMod: 'events', … })`. */
export function runCommand(db: string, command: Document): string {
  return db === 'admin' ? `db.adminCommand(${value(command)})` : `${dbRef(db)}.runCommand(${value(command)})`;
}

/** collMod of one index: the change of expireAfterSeconds (or hidden) by index name. */
export function collModIndex(db: string, collection: string, index: Document): string {
  return runCommand(db, { collMod: collection, index });
}

export function setParameter(params: Document): string {
  return runCommand('admin', { setParameter: 1, ...params });
}

export function insertMany(db: string, collection: string, docs: Document[]): string {
  return `${collectionRef(db, collection)}.insertMany(${valueBlock(docs)})`;
}

/** TTL Workbench playground helpers (a real server moves its own clock and runs its own passes). */
export function advanceClock(durationText: string): string {
  return `clock.advance(${quoted(durationText)})  // TTL Workbench playground: moves the virtual clock, running due TTL passes`;
}

export function runTTLPass(): string {
  return 'ttl.runPass()  // TTL Workbench playground; a real server runs a pass every ttlMonitorSleepSecs';
}

export function findNaNIndexes(): string {
  return [
    '// Every TTL index whose expireAfterSeconds is NaN (listIndexes shows 2147483647 for them on current servers)',
    'db.adminCommand({ listDatabases: 1, nameOnly: true }).databases.forEach(({ name }) => {',
    '  const d = db.getSiblingDB(name);',
    '  d.getCollectionInfos({ type: "collection" }).forEach(({ name: c }) => {',
    '    d.getCollection(c).getIndexes().filter((ix) => ix.expireAfterSeconds !== undefined && (Number.isNaN(ix.expireAfterSeconds) || ix.expireAfterSeconds === 2147483647))',
    '      .forEach((ix) => printjson({ ns: `${name}.${c}`, index: ix.name, expireAfterSeconds: ix.expireAfterSeconds }));',
    '  });',
    '});',
  ].join('\n');
}
