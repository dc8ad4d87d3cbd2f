/**
 * Files MongoDB's own tools read: one file of documents per collection in canonical Extended JSON,
 * one document per line (what `mongoexport` writes and `mongoimport` reads by default; `--jsonArray`
 * for the array form), and a mongosh script that creates the collections with their options and
 * their indexes (`mongosh <db>.indexes.js`), to run before `mongoimport` so clustered, capped and
 * time-series collections exist with their options first. And the reading of such files back.
 *
 * Canonical EJSON keeps every type: a double is written `{"$numberDouble": "1.0"}` (a JS number
 * written bare would come back as an Int32 where it fits). Pure: no project imports, no I/O.
 */
import { Double, EJSON } from 'bson';

type Doc = Record<string, unknown>;

/** A copy with every JS number as a BSON Double (field names as data: `__proto__` stays a field). */
function doublesKept(value: unknown): unknown {
  if (typeof value === 'number') return new Double(value);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  if (Array.isArray(value)) return value.map(doublesKept);
  if ((value as { _bsontype?: unknown })._bsontype !== undefined) return value;
  const out: Doc = {};
  for (const [k, v] of Object.entries(value as Doc))
    Object.defineProperty(out, k, { value: doublesKept(v), enumerable: true, writable: true, configurable: true });
  return out;
}

/** One document as a line of canonical EJSON. */
export function canonicalLine(doc: Doc): string {
  return EJSON.stringify(doublesKept(doc), { relaxed: false });
}

/** `mongoimport`'s file name for a collection: the name itself, where the file system allows it. */
export function collectionFileName(collection: string): string {
  // Control characters too: Windows refuses them in names.
  // eslint-disable-next-line no-control-regex
  return `${collection.replace(/[/\\:*?"<>|\u0000-\u001f]/g, '_')}.json`;
}

export interface CollectionLayout {
  name: string;
  /** createCollection's options as listCollections reports them. */
  options: Doc;
  /** listIndexes' specs (the _id index is left out of the script: every collection has it). */
  indexes: Doc[];
}

const js = (s: string) => JSON.stringify(s);

/** Relaxed EJSON as a JavaScript literal that EJSON.deserialize turns back into BSON values. */
function literal(value: unknown): string {
  return EJSON.stringify(value, { relaxed: true });
}

/** Options createCollection takes back (listCollections adds fields it refuses or fills in itself). */
function creatableOptions(options: Doc): Doc {
  const out: Doc = { ...options };
  delete out.uuid;
  const clustered = out.clusteredIndex as Doc | undefined;
  if (clustered && typeof clustered === 'object') {
    const { v: _v, name: _name, ...rest } = clustered;
    out.clusteredIndex = rest;
  }
  const ts = out.timeseries as Doc | undefined;
  if (ts && typeof ts === 'object' && ts.granularity !== undefined) {
    const { bucketMaxSpanSeconds: _span, bucketRoundingSeconds: _round, ...rest } = ts;
    out.timeseries = rest;
  }
  return out;
}

/** The script's one line naming its database: an import into another database swaps it. */
function targetLine(db: string): string {
  return `const target = db.getSiblingDB(${js(db)});`;
}

const TARGET_LINE = /^const target = db\.getSiblingDB\(("(?:[^"\\]|\\.)*")\);$/m;

/** The database a script of createIndexesScript is for; undefined for any other script. */
export function scriptDatabase(script: string): string | undefined {
  const m = TARGET_LINE.exec(script);
  return m ? (JSON.parse(m[1]) as string) : undefined;
}

/** The same script for another database. */
export function retargetScript(script: string, db: string): string {
  if (scriptDatabase(script) === undefined)
    throw new Error('Not a script of "Export for mongoimport": its target database line is missing.');
  return script.replace(TARGET_LINE, () => targetLine(db));
}

/** The collection names a script of createIndexesScript creates. */
export function scriptCollections(script: string): string[] {
  return [...script.matchAll(/^target\.createCollection\(("(?:[^"\\]|\\.)*")/gm)].map(
    (m) => JSON.parse(m[1]) as string,
  );
}

/**
 * The mongosh script that recreates the database's collections (with their options) and indexes.
 * It reads the specs through EJSON.deserialize, so dates in a partialFilterExpression and Long
 * values keep their types; its header says how to load the documents with mongoimport.
 */
export function createIndexesScript(db: string, collections: CollectionLayout[], files: string[]): string {
  const lines = [
    `// ${db}: collections and indexes, for mongosh. Run it first, then load the documents:`,
    `//   mongosh "mongodb://localhost:27017" ${db}.indexes.js`,
    ...files.map(
      (f, i) =>
        `//   mongoimport --uri "mongodb://localhost:27017" --db ${js(db)} --collection ${js(collections[i].name)} --file ${js(f)}`,
    ),
    `// (a file of a --jsonArray export needs --jsonArray as well)`,
    targetLine(db),
  ];
  for (const c of collections) {
    const options = creatableOptions(c.options);
    lines.push(
      Object.keys(options).length
        ? `target.createCollection(${js(c.name)}, EJSON.deserialize(${literal(options)}));`
        : `target.createCollection(${js(c.name)});`,
    );
    const specs = c.indexes
      .filter((s) => s.name !== '_id_')
      .map((s) => {
        const { v: _v, ...rest } = s;
        return rest;
      });
    if (specs.length)
      lines.push(`target.runCommand(EJSON.deserialize(${literal({ createIndexes: c.name, indexes: specs })}));`);
  }
  return `${lines.join('\n')}\n`;
}

function isDocument(d: unknown): boolean {
  return (
    d !== null &&
    typeof d === 'object' &&
    !Array.isArray(d) &&
    !(d instanceof Date) &&
    (d as { _bsontype?: unknown })._bsontype === undefined
  );
}

/**
 * Documents from a file `mongoexport` writes (one document per line) or its `--jsonArray` form, in
 * canonical or relaxed EJSON. Throws with the line that is not a document.
 */
export function parseDocumentsFile(text: string): Doc[] {
  const trimmed = text.trim();
  if (!trimmed) return [];
  if (trimmed.startsWith('[')) {
    const parsed = EJSON.parse(trimmed, { relaxed: false }) as unknown;
    if (!Array.isArray(parsed)) throw new Error('Expected an array of documents (mongoexport --jsonArray).');
    parsed.forEach((d, i) => {
      if (!isDocument(d)) throw new Error(`Element ${i} is not a document.`);
    });
    return parsed as Doc[];
  }
  const docs: Doc[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let d: unknown;
    try {
      d = EJSON.parse(line, { relaxed: false });
    } catch (err) {
      throw new Error(`Line ${i + 1} is not Extended JSON: ${(err as Error).message}`);
    }
    if (!isDocument(d)) throw new Error(`Line ${i + 1} is not a document.`);
    docs.push(d as Doc);
  });
  return docs;
}
