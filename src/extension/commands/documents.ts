/**
 * Show Documents: a collection's documents in a read-only editor (`ttl-workbench-documents:` documents,
 * the ttl-mongosh language so no language service reports on them), the first 20 at first and 20
 * more per "Show More Documents". Each view follows the engine: a write to its collection, a TTL
 * pass or a reset redraws it.
 */
import * as vscode from 'vscode';
import type { Document } from '../../engine';
import type { Backend } from '../backend/backend';
import { DOCUMENTS_MAX, DOCUMENTS_PAGE, documentsText } from '../logic/documents-text';
import { CELL_LANGUAGE } from '../logic/playground-notebook';
import {
  registerCommand,
  resolveCollection,
  WorkbenchError,
  type CommandResult,
  type Invocation,
  type Services,
} from './context';

export const DOCUMENTS_SCHEME = 'ttl-workbench-documents';

export function documentsUri(db: string, collection: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: DOCUMENTS_SCHEME,
    path: `/${encodeURIComponent(db)}/${encodeURIComponent(collection)}.documents`,
  });
}

function parseDocumentsUri(uri: vscode.Uri): { db: string; collection: string } | undefined {
  const m = /^\/([^/]*)\/([^/]*)\.documents$/.exec(uri.path);
  return m ? { db: decodeURIComponent(m[1]), collection: decodeURIComponent(m[2]) } : undefined;
}

/** The views' text, with each open view's limit; redrawn on the engine's events. */
export class DocumentsViews implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly limits = new Map<string, number>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly unsubscribe: () => void;

  constructor(private readonly backend: Backend) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(DOCUMENTS_SCHEME, this),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.scheme === DOCUMENTS_SCHEME) this.limits.delete(d.uri.toString());
      }),
    );
    this.unsubscribe = backend.onDidChange((events) => {
      for (const key of this.limits.keys()) {
        const uri = vscode.Uri.parse(key);
        const t = parseDocumentsUri(uri);
        if (
          t &&
          events.some(
            (e) =>
              e.kind === 'reset' ||
              e.kind === 'monitorRan' ||
              (('db' in e ? e.db === t.db : false) && (!('collection' in e) || e.collection === t.collection)),
          )
        )
          this.changed.fire(uri);
      }
    });
  }

  limitOf(uri: vscode.Uri): number {
    return this.limits.get(uri.toString()) ?? DOCUMENTS_PAGE;
  }

  setLimit(uri: vscode.Uri, limit: number): void {
    this.limits.set(uri.toString(), Math.min(DOCUMENTS_MAX, Math.max(1, Math.floor(limit))));
    this.changed.fire(uri);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const t = parseDocumentsUri(uri);
    if (!t) return '// Not a TTL Workbench documents view.';
    const limit = this.limitOf(uri);
    if (!this.limits.has(uri.toString())) this.limits.set(uri.toString(), limit);
    try {
      const [found, counted] = await Promise.all([
        this.backend.runCommand(t.db, { find: t.collection, limit, batchSize: limit, singleBatch: true }),
        this.backend.runCommand(t.db, { count: t.collection }),
      ]);
      const documents = (found.cursor as { firstBatch?: Document[] } | undefined)?.firstBatch ?? [];
      return documentsText({ ...t, documents, total: Number(counted.n ?? 0), limit });
    } catch (err) {
      return `// ${t.db}.${t.collection}: ${(err as Error).message}`;
    }
  }

  dispose(): void {
    this.unsubscribe();
    this.changed.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

async function showDocuments(services: Services, views: DocumentsViews, inv: Invocation): Promise<CommandResult> {
  const coll = await resolveCollection(services, inv);
  const uri = documentsUri(coll.db, coll.name);
  if (typeof inv.args.limit === 'number') views.setLimit(uri, inv.args.limit);
  let doc = await vscode.workspace.openTextDocument(uri);
  if (doc.languageId !== CELL_LANGUAGE) doc = await vscode.languages.setTextDocumentLanguage(doc, CELL_LANGUAGE);
  await vscode.window.showTextDocument(doc, { preview: true });
  return { ok: true, db: coll.db, collection: coll.name, uri: uri.toString(), limit: views.limitOf(uri) };
}

async function showMoreDocuments(views: DocumentsViews, inv: Invocation): Promise<CommandResult> {
  const arg = inv.args.uri ?? vscode.window.activeTextEditor?.document.uri.toString();
  const uri = arg instanceof vscode.Uri ? arg : typeof arg === 'string' ? vscode.Uri.parse(arg) : undefined;
  if (!uri || uri.scheme !== DOCUMENTS_SCHEME)
    throw new WorkbenchError('Show More Documents works on a documents view: open one with Show Documents first.', {
      title: 'Show Documents…',
      command: 'ttlWorkbench.showDocuments',
    });
  const limit = views.limitOf(uri) + DOCUMENTS_PAGE;
  views.setLimit(uri, limit);
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  // The editor has the new text once the provider has answered the change.
  if (doc) {
    const text = await views.provideTextDocumentContent(uri);
    const deadline = Date.now() + 5000;
    while (doc.getText() !== text && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  }
  return { ok: true, uri: uri.toString(), limit: views.limitOf(uri) };
}

export function registerDocumentCommands(services: Services): vscode.Disposable[] {
  const views = new DocumentsViews(services.backend);
  return [
    views,
    registerCommand(services, {
      id: 'ttlWorkbench.showDocuments',
      action: 'Show Documents',
      run: (inv) => showDocuments(services, views, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.showMoreDocuments',
      action: 'Show More Documents',
      run: (inv) => showMoreDocuments(views, inv),
    }),
  ];
}
