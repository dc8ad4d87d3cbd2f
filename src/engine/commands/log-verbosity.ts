/**
 * The log verbosity server parameters, `logLevel` and `logComponentVerbosity`: a level for the
 * default component and for each of mongod's log components (8.0's hierarchy), -1 where a component
 * follows its parent. They live per engine and, like mongod's, only for the process's life: they
 * are not journaled with the other parameters, for a restart starts from the defaults there too.
 */
import { Int32 } from 'bson';
import type { EngineContext } from '../engine-context';
import { fail } from '../errors';
import { toDouble } from '../values/numbers';
import { bsonTypeOf, isNumeric, isPlainObject, type Document } from '../values/types';

/** Component name → its parent ('' is the default component, the root). */
const PARENT: Record<string, string> = {
  accessControl: '',
  assert: '',
  command: '',
  control: '',
  executor: '',
  geo: '',
  globalIndex: '',
  index: '',
  network: '',
  asio: 'network',
  bridge: 'network',
  connectionPool: 'network',
  processHealth: '',
  query: '',
  replication: '',
  election: 'replication',
  heartbeats: 'replication',
  initialSync: 'replication',
  rollback: 'replication',
  sharding: '',
  rangeDeleter: 'sharding',
  shardingCatalogRefresh: 'sharding',
  migration: 'sharding',
  reshard: 'sharding',
  migrationPerf: 'sharding',
  storage: '',
  recovery: 'storage',
  journal: 'storage',
  wt: 'storage',
  wtBackup: 'wt',
  wtCheckpoint: 'wt',
  wtCompact: 'wt',
  wtEviction: 'wt',
  wtHS: 'wt',
  wtRecovery: 'wt',
  wtRTS: 'wt',
  wtSalvage: 'wt',
  wtTiered: 'wt',
  wtTimestamp: 'wt',
  wtTransaction: 'wt',
  wtVerify: 'wt',
  wtWriteLog: 'wt',
  write: '',
  ftdc: '',
  tracking: '',
  transaction: '',
  tenantMigration: '',
  test: '',
  resourceConsumption: '',
};

const CHILDREN = new Map<string, string[]>();
for (const [name, parent] of Object.entries(PARENT)) {
  const list = CHILDREN.get(parent) ?? [];
  list.push(name);
  CHILDREN.set(parent, list);
}

/** A component's name as mongod's messages spell it: its ancestors' names joined by dots. */
function dotted(component: string): string {
  const parts: string[] = [];
  for (let c = component; c !== ''; c = PARENT[c]) parts.unshift(c);
  return parts.length === 0 ? 'default' : parts.join('.');
}

const levelsByEngine = new WeakMap<EngineContext, Map<string, number>>();

/** The levels set on this engine; a component missing from the map follows its parent (-1). */
function levelsOf(engine: EngineContext): Map<string, number> {
  let levels = levelsByEngine.get(engine);
  if (!levels) levelsByEngine.set(engine, (levels = new Map([['', 0]])));
  return levels;
}

/** getParameter's `logComponentVerbosity`: the whole hierarchy, -1 where a component follows its parent. */
export function componentVerbosity(engine: EngineContext): Document {
  const levels = levelsOf(engine);
  const build = (component: string): Document => {
    const node: Document = { verbosity: new Int32(levels.get(component) ?? -1) };
    for (const child of CHILDREN.get(component) ?? []) node[child] = build(child);
    return node;
  };
  return build('');
}

/** getParameter's `logLevel`: the default component's level. */
export function logLevel(engine: EngineContext): Int32 {
  return new Int32(levelsOf(engine).get('')!);
}

type Change = [component: string, level: number];

function readLevel(component: string, key: string, value: unknown): number {
  if (!isNumeric(value))
    fail(
      'BadValue',
      `Expected ${component === '' ? '' : `${dotted(component)}.`}${key} to be a number, but found ${bsonTypeOf(value)}: give a level such as {verbosity: 1}, or -1 to follow the parent component.`,
    );
  return Math.trunc(toDouble(value));
}

function collectChanges(component: string, spec: Document, into: Change[]): void {
  for (const [key, value] of Object.entries(spec)) {
    if (key === 'verbosity') {
      into.push([component, readLevel(component, key, value)]);
      continue;
    }
    if (!Object.hasOwn(PARENT, key) || PARENT[key] !== component)
      fail(
        'BadValue',
        `Invalid component name ${component === '' ? '' : `${dotted(component)}.`}${key}: name a log component of mongod's hierarchy, e.g. {storage: {journal: {verbosity: 2}}} (getParameter logComponentVerbosity lists them).`,
      );
    if (isPlainObject(value)) collectChanges(key, value, into);
    else if (isNumeric(value)) into.push([key, readLevel(component, key, value)]);
    else
      fail(
        'BadValue',
        `Invalid type ${bsonTypeOf(value)} for component ${dotted(key)}: give a level or an object such as {verbosity: 1}.`,
      );
  }
}

/** A negative level clears a component's own level (it follows its parent again); the default's returns to 0. */
function apply(engine: EngineContext, changes: Change[]): void {
  const levels = levelsOf(engine);
  for (const [component, level] of changes) {
    if (level >= 0) levels.set(component, level);
    else if (component === '') levels.set('', 0);
    else levels.delete(component);
  }
}

/** Parses the whole value before changing anything: a bad part leaves every level as it was. */
function parseComponentVerbosity(value: unknown): Change[] {
  if (!isPlainObject(value))
    fail(
      'TypeMismatch',
      `log component verbosity is not a BSON object but ${bsonTypeOf(value)}: use e.g. {setParameter: 1, logComponentVerbosity: {verbosity: 1, storage: {verbosity: 2}}}.`,
    );
  const changes: Change[] = [];
  collectChanges('', value, changes);
  return changes;
}

function parseLogLevel(value: unknown): Change[] {
  const level = isNumeric(value) ? toDouble(value) : NaN;
  if (!(level >= 0))
    fail('BadValue', `Invalid value for logLevel: ${String(value)}: give a level of 0 (the default) or more.`);
  return [['', Math.trunc(level)]];
}

interface RuntimeParameter {
  get(engine: EngineContext): unknown;
  /** Throws for a bad value; else returns what set() applies. */
  parse(value: unknown): Change[];
}

/** The parameters of this module by name, beside the engine's stored ones (catalog/parameters.ts). */
export const LOG_PARAMETERS: Record<string, RuntimeParameter> = {
  logLevel: { get: logLevel, parse: parseLogLevel },
  logComponentVerbosity: { get: componentVerbosity, parse: parseComponentVerbosity },
};

export function isLogParameter(name: string): boolean {
  return Object.hasOwn(LOG_PARAMETERS, name);
}

/** Sets a log parameter from a value parse() accepted, as setParameter does once every value passed. */
export function setLogParameter(engine: EngineContext, name: string, value: unknown): void {
  apply(engine, LOG_PARAMETERS[name].parse(value));
}
