/**
 * `db`: mongosh's database object. Its own methods come first; any other property name is a
 * collection (`db.events`), as in mongosh. A Proxy does that lookup; collection wrappers are made
 * once per name and cached, so `db.c.insertOne(…)` in a loop costs one map lookup.
 */
import type { Document } from '../engine';
import { ShellCollection } from './collection';
import { shellDisplay } from './render';
import { ShellMongo } from './mongo';
import type { DatabaseLike, ShellRuntime } from './runtime';

/** Internal state under a symbol, so no collection name can shadow it. */
const STATE = Symbol('databaseState');

interface DatabaseState {
  rt: ShellRuntime;
  name: string;
  collections: Map<string, ShellCollection>;
  /** The proxy the script holds (what collections report as their database). */
  self: DatabaseLike;
}

/** Names that are never collections: probes by promises, JSON and inspection. */
const NOT_COLLECTIONS = new Set(['then', 'toJSON', 'toBSON', 'inspect', 'asymmetricMatch']);

function run(state: DatabaseState, command: Document): Document {
  return state.rt.run(state.name, command);
}

function toCommand(state: DatabaseState, cmd: unknown, method: string): Document {
  if (typeof cmd === 'string') return { [cmd]: 1 };
  if (cmd === null || typeof cmd !== 'object' || Array.isArray(cmd)) {
    throw state.rt.errors.typeError(`${method}() needs a command document such as { ping: 1 }, or a command name.`);
  }
  return state.rt.in(cmd as Document);
}

function listCollections(state: DatabaseState, filter: unknown, nameOnly: boolean): Document[] {
  const f = filter === undefined ? {} : toCommand(state, filter, 'getCollectionInfos');
  const reply = run(state, { listCollections: 1, filter: f, nameOnly, cursor: {} });
  const cursor = reply.cursor as Document;
  const out = [...(cursor.firstBatch as Document[])];
  let id = cursor.id;
  while (id && !(id as { isZero?: () => boolean }).isZero?.()) {
    const more = run(state, { getMore: id, collection: '$cmd.listCollections' }).cursor as Document;
    out.push(...(more.nextBatch as Document[]));
    id = more.id;
  }
  return state.rt.out(out);
}

/**
 * Only public mongosh methods live on the class (helpers are module functions): every other
 * property name reaches a collection.
 */
export class ShellDatabase implements DatabaseLike {
  declare private readonly [STATE]: DatabaseState;

  constructor(rt: ShellRuntime, name: string) {
    Object.defineProperty(this, STATE, { value: { rt, name, collections: new Map(), self: this } });
  }

  getName(): string {
    return this[STATE].name;
  }

  toString(): string {
    return this[STATE].name;
  }

  [shellDisplay](): string {
    return this[STATE].name;
  }

  getCollection(name: unknown): ShellCollection {
    const state = this[STATE];
    if (typeof name !== 'string')
      throw state.rt.errors.typeError(`getCollection() needs a collection name, got ${typeof name}.`);
    if (name.length === 0)
      throw state.rt.errors.error(
        'Invalid collection name: getCollection() needs a collection name, got an empty string.',
        'MongoshInvalidInputError',
      );
    let coll = state.collections.get(name);
    if (!coll) {
      coll = new ShellCollection(state.rt, state.self, name);
      state.collections.set(name, coll);
    }
    return coll;
  }

  getSiblingDB(name: unknown): DatabaseLike {
    if (typeof name !== 'string') throw this[STATE].rt.errors.typeError('getSiblingDB() needs a database name.');
    return this[STATE].rt.database(name);
  }

  getCollectionNames(): string[] {
    return listCollections(this[STATE], undefined, true).map((c) => c.name as string);
  }

  /** mongosh's getCollectionInfos(filter, { nameOnly }): with nameOnly, only names and types. */
  getCollectionInfos(filter?: unknown, options?: unknown): Document[] {
    const opts = options === undefined || options === null ? {} : toCommand(this[STATE], options, 'getCollectionInfos');
    return listCollections(this[STATE], filter, opts.nameOnly === true);
  }

  createCollection(name: unknown, options?: unknown): Document {
    if (typeof name !== 'string') throw this[STATE].rt.errors.typeError('createCollection() needs a collection name.');
    const opts = options === undefined ? {} : toCommand(this[STATE], options, 'createCollection');
    return this[STATE].rt.out(run(this[STATE], { create: name, ...opts }));
  }

  /** mongosh's createView(name, source, pipeline, options): a create with viewOn and pipeline. */
  createView(name: unknown, source: unknown, pipeline: unknown, options?: unknown): Document {
    if (typeof name !== 'string')
      throw this[STATE].rt.errors.typeError('createView() needs the view name as a string.');
    const view = toCommand(this[STATE], { viewOn: source, pipeline: pipeline ?? [] }, 'createView');
    const opts = options === undefined ? {} : toCommand(this[STATE], options, 'createView');
    return this[STATE].rt.out(run(this[STATE], { create: name, ...view, ...opts }));
  }

  runCommand(cmd: unknown): Document {
    return this[STATE].rt.out(run(this[STATE], toCommand(this[STATE], cmd, 'runCommand')));
  }

  adminCommand(cmd: unknown): Document {
    return this[STATE].rt.out(this[STATE].rt.run('admin', toCommand(this[STATE], cmd, 'adminCommand')));
  }

  serverStatus(options?: unknown): Document {
    const opts = options === undefined ? {} : toCommand(this[STATE], options, 'serverStatus');
    return this[STATE].rt.out(run(this[STATE], { serverStatus: 1, ...opts }));
  }

  stats(): Document {
    return this[STATE].rt.out(run(this[STATE], { dbStats: 1 }));
  }

  /** mongosh's reply: `{ ok: 1, dropped: name }`, ok first. */
  dropDatabase(): Document {
    const { ok, ...rest } = this[STATE].rt.out(run(this[STATE], { dropDatabase: 1 }));
    return { ok, ...rest };
  }

  /** The connection: here, the engine the shell runs on. */
  getMongo(): ShellMongo {
    return new ShellMongo(this[STATE].rt);
  }

  version(): string {
    return run(this[STATE], { buildInfo: 1 }).version as string;
  }

  hello(): Document {
    return this[STATE].rt.out(run(this[STATE], { hello: 1 }));
  }
}

const handler: ProxyHandler<ShellDatabase> = {
  get(target, prop, receiver) {
    if (typeof prop === 'symbol' || prop in target) return Reflect.get(target, prop, receiver);
    if (NOT_COLLECTIONS.has(prop)) return undefined;
    return target.getCollection(prop);
  },
};

/** The object scripts see as `db`: the database with collections as properties. */
export function createDatabase(rt: ShellRuntime, name: string): DatabaseLike {
  const target = new ShellDatabase(rt, name);
  const proxy = new Proxy(target, handler);
  (target as unknown as { [STATE]: DatabaseState })[STATE].self = proxy;
  return proxy;
}
