/**
 * Create Index…: an ordinary (non-TTL) index from a key spec typed in mongosh syntax or JSON
 * (`{status: 1, at: -1}`, read by the analysis's literal reader: nothing runs), with the options
 * unique, sparse, partialFilterExpression and name. The engine's own spec rules check the text as it
 * is typed; createIndexes decides. expireAfterSeconds belongs to Create TTL Index…, which explains
 * what a TTL index does before it deletes anything.
 */
import * as vscode from 'vscode';
import type { Document } from '../../engine';
import { defaultIndexName } from '../../engine/indexes/key-pattern';
import { keySpecProblem } from '../logic/index-key';
import * as mongosh from '../logic/mongosh';
import {
  Cancelled,
  inputBox,
  registerCommand,
  reportSuccess,
  resolveCollection,
  WorkbenchError,
  type CommandResult,
  type Invocation,
  type Services,
} from './context';

function readKey(services: Services, value: unknown): Document {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Document;
  if (typeof value !== 'string')
    throw new WorkbenchError("Create Index needs 'key': a document such as {status: 1} (or its mongosh text).");
  const p = services.parseFilter(value);
  if (!p.ok) throw new WorkbenchError(p.error);
  const problem = keySpecProblem(p.filter);
  if (problem) throw Object.assign(new Error(problem), { code: 67, codeName: 'CannotCreateIndex' });
  return p.filter!;
}

async function askKey(services: Services, ns: string): Promise<Document> {
  const text = await inputBox({
    title: `Create Index on ${ns} — key`,
    prompt: 'The key in mongosh syntax or JSON: {status: 1}, {status: 1, at: -1}, {name: "text"}, {h: "hashed"}',
    placeHolder: '{status: 1}',
    validateInput: (t) => {
      const p = services.parseFilter(t);
      if (!p.ok) return p.error;
      const problem = keySpecProblem(p.filter);
      if (problem) return problem;
      return {
        message: `Index name: ${defaultIndexName(p.filter!)}`,
        severity: vscode.InputBoxValidationSeverity.Info,
      };
    },
  });
  return readKey(services, text);
}

async function askOptions(services: Services, ns: string, key: Document): Promise<Document> {
  const picked = await vscode.window.showQuickPick(
    [
      { label: 'unique', description: 'refuse a second document with the same key', value: 'unique' },
      { label: 'sparse', description: 'only documents that have the indexed field(s)', value: 'sparse' },
      {
        label: 'partialFilterExpression…',
        description: 'only documents matching a filter',
        value: 'partial',
      },
      { label: 'name…', description: `instead of ${defaultIndexName(key)}`, value: 'name' },
    ],
    {
      title: `Create Index on ${ns} — options`,
      placeHolder: 'Options (none: press Enter)',
      canPickMany: true,
      ignoreFocusOut: true,
    },
  );
  if (!picked) throw new Cancelled();
  const chosen = new Set(picked.map((p) => p.value));
  const options: Document = {};
  if (chosen.has('unique')) options.unique = true;
  if (chosen.has('sparse')) options.sparse = true;
  if (chosen.has('partial')) {
    const text = await inputBox({
      title: `Create Index on ${ns} — partialFilterExpression`,
      prompt: 'Only documents matching this filter are indexed. mongosh syntax or JSON: {status: "open"}',
      validateInput: (t) => {
        const p = services.parseFilter(t);
        return p.ok ? (p.filter ? undefined : 'Type a filter, or go back and leave this option out.') : p.error;
      },
    });
    const p = services.parseFilter(text);
    if (p.ok && p.filter) options.partialFilterExpression = p.filter;
  }
  if (chosen.has('name'))
    options.name = await inputBox({
      title: `Create Index on ${ns} — name`,
      value: defaultIndexName(key),
      validateInput: (t) => (t.trim() ? undefined : 'An index name is not empty.'),
    });
  return options;
}

async function createIndex(services: Services, inv: Invocation): Promise<CommandResult> {
  const a = inv.args;
  if (a.expireAfterSeconds !== undefined)
    throw new WorkbenchError(
      'Create Index makes ordinary indexes: for expireAfterSeconds use Create TTL Index…, which previews what expires at once.',
      { title: 'Create TTL Index…', command: 'ttlWorkbench.createTTLIndex' },
    );
  const coll = await resolveCollection(services, inv);
  const ns = `${coll.db}.${coll.name}`;
  const key = a.key !== undefined || !inv.interactive ? readKey(services, a.key) : await askKey(services, ns);
  let options: Document = {};
  if (typeof a.unique === 'boolean') options.unique = a.unique;
  if (typeof a.sparse === 'boolean') options.sparse = a.sparse;
  if (a.partialFilterExpression !== undefined) {
    const p =
      typeof a.partialFilterExpression === 'string'
        ? services.parseFilter(a.partialFilterExpression)
        : { ok: true as const, filter: a.partialFilterExpression as Document };
    if (!p.ok) throw new WorkbenchError(p.error);
    if (p.filter) options.partialFilterExpression = p.filter;
  }
  if (typeof a.name === 'string' && a.name) options.name = a.name;
  if (inv.interactive && a.key === undefined) options = { ...options, ...(await askOptions(services, ns, key)) };
  const name = typeof options.name === 'string' ? options.name : defaultIndexName(key);
  const spec: Document = { key, name, ...options };
  const reply = await services.backend.runCommand(coll.db, { createIndexes: coll.name, indexes: [spec] });
  const text = mongosh.createIndex(coll.db, coll.name, key, options);
  const created = Number(reply.numIndexesAfter ?? 0) > Number(reply.numIndexesBefore ?? 0);
  reportSuccess(
    services,
    inv,
    created ? `Created index ${name} on ${ns}.` : `${ns} already has index ${name} with this spec: nothing changed.`,
    text,
  );
  return { ok: true, db: coll.db, collection: coll.name, name, spec, created, reply, mongosh: text };
}

export function registerPlainIndexCommands(services: Services): vscode.Disposable[] {
  return [
    registerCommand(services, {
      id: 'ttlWorkbench.createIndex',
      action: 'Create Index',
      run: (inv) => createIndex(services, inv),
    }),
  ];
}
