/**
 * `<db>.system.views`: the real collection in which mongod keeps a database's view definitions,
 * one document `{_id: "<db>.<view>", viewOn, pipeline[, collation]}` per view. The engine keeps it
 * in step both ways: create, collMod and drop of a view write its document, and a command that
 * writes the collection itself (insert, update, delete, rename, drop) makes the database's views
 * what its documents say. A document that defines no valid view is kept, as mongod keeps it, and
 * fails what needs every view to be valid (listCollections of views, creating a view) with the
 * error the definition would get.
 */
import type { Collection, CollectionOptions } from '../catalog/collection';
import type { EngineContext } from '../engine-context';
import { EngineError } from '../errors';
import { compileFilter } from '../query/matcher';
import { valuesEqual } from '../values/compare';
import { isPlainObject, type Document } from '../values/types';

export const SYSTEM_VIEWS = 'system.views';

/** The view's document in system.views, written (or replaced) after create or collMod. */
export function storeViewDefinition(engine: EngineContext, dbName: string, view: Collection): void {
  const doc: Document = { _id: `${dbName}.${view.name}`, viewOn: view.options.viewOn, pipeline: view.options.pipeline };
  if (view.options.collation !== undefined) doc.collation = view.options.collation;
  const store = engine.getCollection(dbName, SYSTEM_VIEWS) ?? engine.createCollection(dbName, SYSTEM_VIEWS, {});
  const current = store.findById(doc._id);
  if (current) store.replace(current, doc);
  else store.insert(doc);
}

/** The view's document removed after the view is dropped (system.views itself stays, as in mongod). */
export function removeViewDefinition(engine: EngineContext, dbName: string, name: string): void {
  const store = engine.getCollection(dbName, SYSTEM_VIEWS);
  const current = store?.findById(`${dbName}.${name}`);
  if (store && current) store.remove(current);
}

interface Definition {
  name: string;
  options: CollectionOptions;
}

/** A system.views document as a view definition, or the error mongod's view catalog gives it. */
function definitionOf(dbName: string, doc: Document): Definition | EngineError {
  const id = doc._id;
  const invalid = (why: string) =>
    new EngineError(
      'InvalidViewDefinition',
      `found invalid view definition ${JSON.stringify(String(id))} in ${dbName}.${SYSTEM_VIEWS}: ${why}. Fix or remove that document.`,
    );
  if (typeof id !== 'string' || !id.startsWith(`${dbName}.`) || id.length === dbName.length + 1)
    return invalid(`its _id must be "${dbName}.<view name>"`);
  if (typeof doc.viewOn !== 'string' || doc.viewOn === '') return invalid("'viewOn' must be a collection name");
  if (!Array.isArray(doc.pipeline) || !doc.pipeline.every(isPlainObject))
    return invalid("'pipeline' must be an array of stages");
  for (const stage of doc.pipeline) {
    const name = Object.keys(stage)[0];
    if (name === '$out' || name === '$merge')
      return new EngineError(
        'OptionNotSupportedOnView',
        `${name} cannot be used in a view definition (found in ${id} of ${dbName}.${SYSTEM_VIEWS}): fix or remove that document.`,
      );
  }
  const options: CollectionOptions = { viewOn: doc.viewOn, pipeline: doc.pipeline };
  if (isPlainObject(doc.collation)) options.collation = doc.collation;
  return { name: id.slice(dbName.length + 1), options };
}

/** The first document of system.views that defines no valid view, as the error it gets. */
export function invalidViewDefinition(engine: EngineContext, dbName: string): EngineError | undefined {
  const store = engine.getCollection(dbName, SYSTEM_VIEWS);
  if (!store) return undefined;
  for (const record of store.scanRecords()) {
    const def = definitionOf(dbName, record.doc);
    if (def instanceof EngineError) return def;
  }
  return undefined;
}

/** Throws the error of the first invalid definition: what needs every view of the database to be valid. */
export function requireValidViews(engine: EngineContext, dbName: string): void {
  const problem = invalidViewDefinition(engine, dbName);
  if (problem) throw problem;
}

/** Whether a listCollections filter can keep a view (if not, views are not read, nor checked). */
export function filterMayListViews(filter: Document | undefined): boolean {
  if (!filter) return true;
  return compileFilter(filter)({ name: '', type: 'view', options: {}, info: { readOnly: true } });
}

/**
 * After a command wrote system.views: the database's views become what its valid documents define
 * (a name a collection holds stays the collection's). Views come and go as catalog entries, so
 * storage and the tree see them as they see a create or drop.
 */
export function reloadViews(engine: EngineContext, dbName: string): void {
  const db = engine.getDatabase(dbName);
  if (!db) return;
  const wanted = new Map<string, CollectionOptions>();
  for (const record of engine.getCollection(dbName, SYSTEM_VIEWS)?.scanRecords() ?? []) {
    const def = definitionOf(dbName, record.doc);
    if (def instanceof EngineError || wanted.has(def.name)) continue;
    wanted.set(def.name, def.options);
  }
  for (const coll of [...db.collections.values()]) {
    if (!coll.isView) continue;
    const options = wanted.get(coll.name);
    if (options && valuesEqual(viewShape(coll.options), viewShape(options))) {
      wanted.delete(coll.name);
      continue;
    }
    engine.dropCollection(dbName, coll.name);
  }
  for (const [name, options] of wanted) {
    if (engine.getCollection(dbName, name)) continue;
    engine.createCollection(dbName, name, options);
  }
}

function viewShape(options: CollectionOptions): Document {
  return { viewOn: options.viewOn, pipeline: options.pipeline ?? [], collation: options.collation ?? null };
}

/** The databases whose system.views a command writes: reload their views after it. */
export function systemViewsWrittenBy(dbName: string, command: Document): string[] {
  const name = Object.keys(command)[0];
  const target = command[name];
  switch (name) {
    case 'insert':
    case 'update':
    case 'delete':
    case 'findAndModify':
    case 'findandmodify':
    case 'drop':
      return target === SYSTEM_VIEWS ? [dbName] : [];
    case 'renameCollection': {
      const out: string[] = [];
      for (const ns of [target, command.to])
        if (typeof ns === 'string' && ns.slice(ns.indexOf('.') + 1) === SYSTEM_VIEWS) out.push(ns.split('.')[0]);
      return out;
    }
    default:
      return [];
  }
}
