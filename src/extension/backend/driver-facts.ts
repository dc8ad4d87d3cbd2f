/**
 * Server replies turned into the facts the tree and commands read, the same shapes the embedded
 * backend gives (CollectionInfo, IndexInfo, MonitorInfo, TTLIndexProblem), and the events a write
 * command implies (a server sends none: the tree refreshes from what this window itself changed,
 * plus a modest timer for the monitor). Pure: replies in, facts out.
 */
import type { Document, EngineEvent, TTLIndexProblem } from '../../engine';
import { collectionKindOf } from '../logic/collection-description';
import type { CollectionInfo, IndexInfo, MonitorInfo } from './backend';
import type { ServerRole } from './server-role';

/** One listCollections entry, with the count estimatedDocumentCount gave (views: 0, never counted). */
export function collectionInfoOf(db: string, entry: Document, count: number): CollectionInfo {
  const options = (entry.options ?? {}) as Document;
  const type = String(entry.type ?? 'collection');
  return { db, name: String(entry.name), type, kind: collectionKindOf(type, options), options, count };
}

function isNaNValue(v: unknown): boolean {
  if (typeof v === 'number') return Number.isNaN(v);
  if (v !== null && typeof v === 'object') {
    const cls = (v as { _bsontype?: string })._bsontype;
    if (cls === 'Double') return Number.isNaN(Number((v as { valueOf(): unknown }).valueOf()));
    if (cls === 'Decimal128') return /nan/i.test(String(v));
  }
  return false;
}

/**
 * One listIndexes entry. A server older than 5.0.14 / 6.0.2 reports a stored NaN as NaN; newer ones
 * report 2147483647 instead (rule 4.2 / 9.1), which index-description words as the repaired value.
 */
export function indexInfoOf(db: string, collection: string, spec: Document): IndexInfo {
  const eas = spec.expireAfterSeconds;
  return {
    db,
    collection,
    name: String(spec.name),
    spec,
    ...(eas !== undefined && isNaNValue(eas) ? { stored: { expireAfterSeconds: eas, problem: 'NaN' as const } } : {}),
  };
}

/**
 * The TTL indexes of one collection whose expireAfterSeconds the monitor cannot use, as far as a
 * client can see them: NaN as reported by older servers, and 2147483647, the value newer servers
 * report (and write at step-up) in place of an invalid one (rule 4.2).
 */
export function problemsOf(db: string, collection: string, specs: readonly Document[]): TTLIndexProblem[] {
  const out: TTLIndexProblem[] = [];
  for (const spec of specs) {
    const eas = spec.expireAfterSeconds;
    if (eas === undefined) continue;
    const key = (spec.key ?? {}) as Document;
    if (isNaNValue(eas))
      out.push({ db, collection, index: String(spec.name), key, expireAfterSeconds: eas, problem: 'NaN' });
    else if (Number(String(eas)) === 2147483647)
      out.push({ db, collection, index: String(spec.name), key, expireAfterSeconds: eas, problem: 'out of range' });
  }
  return out;
}

function num(v: unknown): number {
  if (v === undefined || v === null) return 0;
  const n = Number(typeof v === 'object' ? String(v) : v);
  return Number.isFinite(n) ? n : 0;
}

/**
 * The monitor node from serverStatus().metrics.ttl and getParameter. A server tells neither when
 * its last pass ran nor when the next will: those stay null, and the node says so.
 */
export function monitorInfoOf(
  serverStatus: Document,
  parameters: Document,
  role: ServerRole,
  deletedAtConnect: number,
): MonitorInfo {
  const ttl = ((serverStatus.metrics as Document | undefined)?.ttl ?? {}) as Document;
  const enabled = parameters.ttlMonitorEnabled !== false;
  const sleepSecs = num(parameters.ttlMonitorSleepSecs ?? 60);
  const params: Record<string, boolean | number> = {};
  for (const [k, v] of Object.entries(parameters))
    if (k !== 'ok' && !k.startsWith('$')) params[k] = typeof v === 'boolean' ? v : num(v);
  const deleted = num(ttl.deletedDocuments);
  let stoppedBecause: string | null = null;
  if (!enabled) stoppedBecause = 'ttlMonitorEnabled is false on this server: set it to true (Set Monitor Parameters).';
  else if (role.kind === 'secondary' || role.kind === 'arbiter' || role.kind === 'other')
    stoppedBecause = role.ttlDeletes;
  return {
    enabled,
    sleepSecs,
    lastPassAt: null,
    nextPassAt: null,
    stoppedBecause,
    passes: num(ttl.passes),
    subPasses: num(ttl.subPasses),
    deletedDocuments: deleted,
    lastPassDeleted: null,
    deletedSinceActivation: Math.max(0, deleted - deletedAtConnect),
    parameters: params,
  };
}

/** The events a successful command implies for the tree (a server pushes none to this window). */
export function eventsOfCommand(db: string, command: Document): EngineEvent[] {
  const name = Object.keys(command)[0];
  const target = command[name];
  const coll = typeof target === 'string' ? target : '';
  const names = (list: unknown) => (Array.isArray(list) ? list.map((s) => String((s as Document).name ?? s)) : []);
  switch (name) {
    case 'createIndexes':
      return [{ kind: 'indexesCreated', db, collection: coll, names: names(command.indexes) }];
    case 'dropIndexes':
      return [
        {
          kind: 'indexesDropped',
          db,
          collection: coll,
          names: typeof command.index === 'string' ? [command.index] : names(command.index),
        },
      ];
    case 'collMod': {
      const index = command.index as Document | undefined;
      return index
        ? [{ kind: 'indexChanged', db, collection: coll, names: index.name ? [String(index.name)] : [] }]
        : [{ kind: 'collectionChanged', db, collection: coll }];
    }
    case 'create':
      return [{ kind: 'collectionCreated', db, collection: coll }];
    case 'drop':
      return [{ kind: 'collectionDropped', db, collection: coll }];
    case 'dropDatabase':
      return [{ kind: 'databaseDropped', db }];
    case 'insert':
    case 'update':
    case 'delete':
    case 'findAndModify':
      // Counts show on the database's rows: a count of 1 is enough to refresh them.
      return [
        {
          kind: name === 'insert' ? 'documentsInserted' : name === 'delete' ? 'documentsDeleted' : 'documentsUpdated',
          db,
          collection: coll,
          count: 1,
          cause: 'command',
        },
      ];
    default:
      return [];
  }
}

/** Commands that change data or the catalog: refused on a connection that reaches no primary. */
const WRITE_COMMANDS = new Set([
  'insert',
  'update',
  'delete',
  'findAndModify',
  'findandmodify',
  'createIndexes',
  'dropIndexes',
  'collMod',
  'create',
  'drop',
  'dropDatabase',
  'renameCollection',
  'setParameter',
]);

export function isWriteCommand(command: Document): boolean {
  return WRITE_COMMANDS.has(Object.keys(command)[0] ?? '');
}
