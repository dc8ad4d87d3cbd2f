/**
 * A database as one EJSON document and back ("Export Database as EJSON…" / "Import EJSON…"):
 *   { ttlWorkbenchExport: 1, database, exportedAt, collections: [{ name, options, indexes, documents }] }
 * Index specs are the catalog's (a legacy NaN expireAfterSeconds stays NaN, not listIndexes'
 * 2147483647), documents keep their types in canonical EJSON. Import goes through the engine's own
 * commands (so everything is validated again), except invalid legacy TTL values, which only the
 * legacy loader may put into a catalog.
 */
import { loadLegacyIndexSpec } from '../ttl/legacy';
import { isTTLIndexSpec, effectiveExpireAfterSeconds } from '../ttl/validation';
import type { EngineContext } from '../engine-context';
import { EJSON } from 'bson';
import { EngineError } from '../errors';
import { cloneDocument } from '../values/clone';
import { checkStorageDepth, parseEjson } from '../values/depth';
import type { Document } from '../values/types';
import { documentFromStorage, storableDocument } from './values';

export const EXPORT_FORMAT = 1;

export function exportDatabase(engine: EngineContext, dbName: string, now = new Date(engine.clock.now())): Document {
  const db = engine.getDatabase(dbName);
  if (!db) throw new Error(`There is no database ${dbName} to export.`);
  const collections: Document[] = [];
  for (const coll of [...db.collections.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    collections.push({
      name: coll.name,
      options: cloneDocument(coll.options as Document),
      indexes: [...coll.indexes.values()].map((i) => cloneDocument(i.spec)),
      documents: [...coll.records.values()].map((r) => cloneDocument(r.doc)),
    });
  }
  return { ttlWorkbenchExport: EXPORT_FORMAT, database: dbName, exportedAt: now, collections };
}

export interface ImportSummary {
  database: string;
  collections: number;
  documents: number;
  indexes: number;
}

/**
 * Load an export into `engine` (as `intoDb`, default the exported name). Refuses when a collection
 * of the export already exists there (NamespaceExists), before changing anything.
 */
export function importDatabase(engine: EngineContext, exported: Document, intoDb?: string): ImportSummary {
  if (Number(exported.ttlWorkbenchExport) !== EXPORT_FORMAT || !Array.isArray(exported.collections)) {
    throw new Error(
      'Not a TTL Workbench export: expected {ttlWorkbenchExport: 1, database, collections: [...]} (made by "Export Database as EJSON…").',
    );
  }
  const dbName = intoDb ?? String(exported.database);
  const colls = exported.collections as Document[];
  for (const c of colls) {
    // Refused before anything is created, so a document too deep to store leaves no half import.
    if (Array.isArray(c.documents)) for (const doc of c.documents) checkStorageDepth(doc, 'insert');
  }
  // Every one is named: after an import that was interrupted, a retry meets all it left, some of them partly filled.
  const present = colls.map((c) => String(c.name)).filter((name) => engine.getCollection(dbName, name));
  if (present.length)
    throw Object.assign(
      new Error(
        `${present.map((name) => `${dbName}.${name}`).join(', ')} already exist${present.length === 1 ? 's' : ''}: import into another database, or drop ${present.length === 1 ? 'it' : 'them'} first (an import that was interrupted leaves its collections, the last one maybe partly filled).`,
      ),
      { code: 48, codeName: 'NamespaceExists' },
    );
  const summary: ImportSummary = { database: dbName, collections: 0, documents: 0, indexes: 0 };
  for (const c of colls) {
    const name = String(c.name);
    const options = { ...(c.options as Document) };
    const ts = options.timeseries as Document | undefined;
    // The catalog fills in bucketMaxSpanSeconds from the granularity; create takes one or the other.
    if (ts && ts.granularity !== undefined) {
      const { bucketMaxSpanSeconds: _span, ...given } = ts;
      options.timeseries = given;
    }
    engine.runCommand(dbName, { create: name, ...options });
    summary.collections++;
    const existing = new Set(engine.getCollection(dbName, name)!.indexes.keys());
    const specs = (c.indexes as Document[]).filter((s) => !existing.has(String(s.name)));
    const legacy = specs.filter(
      (s) => isTTLIndexSpec(s) && effectiveExpireAfterSeconds(s.expireAfterSeconds) === undefined,
    );
    const normal = specs
      .filter((s) => !legacy.includes(s))
      .map((s) => {
        const { v: _v, ...rest } = s;
        return rest;
      });
    if (normal.length) engine.runCommand(dbName, { createIndexes: name, indexes: normal });
    for (const spec of legacy) loadLegacyIndexSpec(engine, dbName, name, spec);
    summary.indexes += normal.length + legacy.length;
    const docs = c.documents as Document[];
    for (let i = 0; i < docs.length; i += 10_000) {
      const reply = engine.runCommand(dbName, { insert: name, documents: docs.slice(i, i + 10_000), ordered: true });
      if (reply.writeErrors)
        throw new Error(`${dbName}.${name}: ${JSON.stringify((reply.writeErrors as Document[])[0])}`);
      summary.documents += Number(reply.n);
    }
  }
  return summary;
}

/** The export as canonical EJSON text: every number keeps its BSON type (a double stays a double). */
export function exportDatabaseText(engine: EngineContext, dbName: string): string {
  return EJSON.stringify(storableDocument(exportDatabase(engine, dbName)), undefined, 1, { relaxed: false });
}

/** Import EJSON text made by exportDatabaseText (canonical EJSON: types come back exactly). */
export function importDatabaseText(engine: EngineContext, text: string, intoDb?: string): ImportSummary {
  let parsed: Document;
  try {
    parsed = parseEjson(text, { relaxed: false }) as Document;
  } catch (err) {
    if (err instanceof EngineError) throw err;
    throw new Error(`Not EJSON: ${(err as Error).message}. Import reads files made by "Export Database as EJSON…".`);
  }
  return importDatabase(engine, documentFromStorage(parsed), intoDb);
}
