/**
 * What to complete in a playground cell, from the text before the cursor: after `db.` the
 * collections of the current database and the database methods; after `db.<collection>.` the
 * collection methods; inside the options object of `createIndex(key, { … })` the index option
 * keys (TTL ones first). Method names come from the shell's own classes, so the list cannot drift
 * from what a cell can call. No `vscode` import: the provider only maps candidates to items.
 */
import { ShellCollection } from '../../shell/collection';
import { ShellDatabase } from '../../shell/database';

export type CompletionContext =
  | { kind: 'dbMember'; prefix: string }
  | { kind: 'collectionMember'; collection: string; prefix: string }
  | { kind: 'indexOption'; prefix: string };

export interface CompletionCandidate {
  label: string;
  kind: 'collection' | 'method' | 'option';
  detail: string;
  /** Text to insert when it differs from the label (`key: `). */
  insertText?: string;
  /** Lower sorts first. */
  rank: number;
}

function ownMethods(proto: object): string[] {
  return Object.getOwnPropertyNames(proto)
    .filter((n) => n !== 'constructor' && typeof Object.getOwnPropertyDescriptor(proto, n)?.value === 'function')
    .sort();
}

export const DB_METHODS: readonly string[] = ownMethods(ShellDatabase.prototype);
export const COLLECTION_METHODS: readonly string[] = ownMethods(ShellCollection.prototype);

/** createIndex options: TTL ones first, then the rest mongod accepts. */
export const INDEX_OPTIONS: ReadonlyArray<{ key: string; detail: string }> = [
  { key: 'expireAfterSeconds', detail: 'TTL: seconds after the indexed date a document expires (0 = at the date)' },
  { key: 'partialFilterExpression', detail: 'TTL only for documents matching this filter' },
  { key: 'name', detail: 'index name (default: fields and directions, e.g. createdAt_1)' },
  { key: 'hidden', detail: 'hidden from the query planner (the TTL monitor still deletes through it)' },
  { key: 'unique', detail: 'reject duplicate keys' },
  { key: 'sparse', detail: 'only documents that have the field' },
  { key: 'collation', detail: 'string comparison rules' },
  { key: 'background', detail: 'ignored since MongoDB 4.2' },
  { key: 'weights', detail: 'text index field weights' },
  { key: 'default_language', detail: 'text index language' },
  { key: 'language_override', detail: 'text index: field holding the language' },
  { key: 'wildcardProjection', detail: 'wildcard index: fields to include or exclude' },
  { key: 'storageEngine', detail: 'storage engine options' },
];

const WORD = '[A-Za-z_$][\\w$]*';
const DB_MEMBER = new RegExp(`(?:^|[^\\w$.])db\\.(${WORD})?$`);
const COLLECTION_MEMBER = new RegExp(`(?:^|[^\\w$.])db\\.(${WORD})\\.(${WORD})?$`);
const GET_COLLECTION_MEMBER = new RegExp(
  `(?:^|[^\\w$.])db\\.getCollection\\(\\s*(['"])((?:(?!\\1).)*)\\1\\s*\\)\\.(${WORD})?$`,
);

/**
 * Whether `before` (the cell's text up to the cursor) ends inside the options object of a
 * createIndex call, at a key position. Scans from the last `createIndex(` keeping track of
 * strings, comments and bracket depth.
 */
function inIndexOptions(before: string): { prefix: string } | undefined {
  const at = before.lastIndexOf('createIndex(');
  if (at < 0) return undefined;
  const text = before.slice(at + 'createIndex('.length);
  const stack: string[] = [];
  let args = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"' || ch === "'" || ch === '`') {
      const end = text.indexOf(ch, i + 1);
      if (end < 0) return undefined; // inside a string
      i = end;
      continue;
    }
    if (ch === '/' && text[i + 1] === '/') {
      const nl = text.indexOf('\n', i);
      if (nl < 0) return undefined;
      i = nl;
      continue;
    }
    if (ch === '(' || ch === '[' || ch === '{') stack.push(ch);
    else if (ch === ')' || ch === ']' || ch === '}') {
      if (stack.length === 0) return undefined; // the call is closed
      stack.pop();
    } else if (ch === ',' && stack.length === 0) args++;
  }
  if (args !== 1 || stack.length !== 1 || stack[0] !== '{') return undefined;
  const m = new RegExp(`(${WORD})?$`).exec(text)!;
  const prefix = m[1] ?? '';
  const beforeWord = text.slice(0, text.length - prefix.length).trimEnd();
  const last = beforeWord[beforeWord.length - 1];
  return last === '{' || last === ',' ? { prefix } : undefined;
}

export function completionContext(before: string): CompletionContext | undefined {
  const options = inIndexOptions(before);
  if (options) return { kind: 'indexOption', prefix: options.prefix };
  const line = before.slice(before.lastIndexOf('\n') + 1);
  const g = GET_COLLECTION_MEMBER.exec(line);
  if (g) return { kind: 'collectionMember', collection: g[2], prefix: g[3] ?? '' };
  const c = COLLECTION_MEMBER.exec(line);
  if (c && !DB_METHODS.includes(c[1])) return { kind: 'collectionMember', collection: c[1], prefix: c[2] ?? '' };
  const d = DB_MEMBER.exec(line);
  if (d) return { kind: 'dbMember', prefix: d[1] ?? '' };
  return undefined;
}

/** Candidates for a context; `collections` are the current database's collection names. */
export function completionCandidates(ctx: CompletionContext, collections: readonly string[]): CompletionCandidate[] {
  switch (ctx.kind) {
    case 'dbMember': {
      const ident = new RegExp(`^${WORD}$`);
      return [
        // A name that is not an identifier (or shadows a method) needs getCollection('…').
        ...collections.map((name) => {
          const plain = ident.test(name) && !DB_METHODS.includes(name);
          return {
            label: name,
            kind: 'collection' as const,
            detail: 'collection',
            rank: 0,
            ...(plain ? {} : { insertText: `getCollection(${JSON.stringify(name).replace(/^"|"$/g, "'")})` }),
          };
        }),
        ...DB_METHODS.map((m) => ({ label: m, kind: 'method' as const, detail: 'database method', rank: 1 })),
      ];
    }
    case 'collectionMember':
      return COLLECTION_METHODS.map((m) => ({
        label: m,
        kind: 'method' as const,
        detail: `${ctx.collection}: collection method`,
        // Index methods first: a TTL playground creates and inspects indexes most.
        rank: /index/i.test(m) ? 0 : 1,
      }));
    case 'indexOption':
      return INDEX_OPTIONS.map((o, i) => ({
        label: o.key,
        kind: 'option' as const,
        detail: o.detail,
        insertText: `${o.key}: `,
        rank: i,
      }));
  }
}
