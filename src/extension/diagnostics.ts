/**
 * TTL index problems in the Problems panel: each index whose stored expireAfterSeconds the monitor
 * cannot use (NaN first of all) gets a read-only document `ttl-workbench:/<db>/<collection>/<index>.ttl-index`
 * (the ttl-mongosh language: no TypeScript errors on the bare object literal)
 * showing its stored spec, a diagnostic on the `expireAfterSeconds` line, and a fix that runs
 * collMod: a quick fix (Problems panel, and the lightbulb where VS Code shows one) and a CodeLens
 * on the line. The CodeLens is what the editor reliably offers: VS Code computes code actions (the
 * lightbulb, Ctrl+.) only for a writable editor, and this document is read-only; whether its
 * lightbulb appears depends on what the editor showed before. Findings refresh themselves when
 * indexes change.
 */
import * as vscode from 'vscode';
import type { TTLIndexProblem } from '../engine';
import type { Backend } from './backend/backend';
import * as mongosh from './logic/mongosh';
import { problemWords } from './tree/presentation';

export const SCHEME = 'ttl-workbench';
export const DIAGNOSTIC_CODE = 'ttl-invalid-expireAfterSeconds';
const FIX_COMMAND = 'ttlWorkbench.fixTTLIndex';

export function indexSpecUri(db: string, collection: string, index: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: SCHEME,
    path: `/${[db, collection, index].map(encodeURIComponent).join('/')}.ttl-index`,
  });
}

export function parseIndexSpecUri(uri: vscode.Uri): { db: string; collection: string; index: string } | undefined {
  const m = /^\/([^/]*)\/([^/]*)\/([^/]*)\.ttl-index$/.exec(uri.path);
  if (!m) return undefined;
  return { db: decodeURIComponent(m[1]), collection: decodeURIComponent(m[2]), index: decodeURIComponent(m[3]) };
}

const FIX_TITLE = 'Set a valid expireAfterSeconds with collMod…';

export class TTLDiagnostics
  implements vscode.TextDocumentContentProvider, vscode.CodeActionProvider, vscode.CodeLensProvider, vscode.Disposable
{
  readonly collection = vscode.languages.createDiagnosticCollection('ttlWorkbench');
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private current: TTLIndexProblem[] | undefined;
  /** What the Problems panel holds now (uris, texts, messages), to publish only what changed. */
  private published: string | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private rescanTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly unsubscribe: () => void;
  /** Called after every scan (the tree shows the findings). */
  onDidUpdate?: (problems: TTLIndexProblem[] | undefined) => void;

  constructor(private readonly backend: Backend) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, this),
      vscode.languages.registerCodeActionsProvider({ scheme: SCHEME }, this, {
        providedCodeActionKinds: [vscode.CodeActionKind.QuickFix],
      }),
      vscode.languages.registerCodeLensProvider({ scheme: SCHEME }, this),
    );
    this.unsubscribe = backend.onDidChange((events) => {
      if (!this.current) return;
      if (
        events.some(
          (e) =>
            e.kind === 'reset' ||
            e.kind === 'indexChanged' ||
            e.kind === 'indexesDropped' ||
            e.kind === 'indexesCreated' ||
            e.kind === 'collectionDropped' ||
            e.kind === 'databaseDropped' ||
            e.kind === 'collectionRenamed',
        )
      ) {
        this.rescanTimer ??= setTimeout(() => {
          this.rescanTimer = undefined;
          void this.scan().catch(() => undefined);
        }, 150);
      }
    });
  }

  get problems(): TTLIndexProblem[] | undefined {
    return this.current;
  }

  /** Find the invalid TTL indexes and publish them. */
  async scan(): Promise<TTLIndexProblem[]> {
    const problems = await this.backend.findInvalidTTLIndexes();
    const old = this.current ?? [];
    this.current = problems;
    const found = new Map<string, { uri: vscode.Uri; text: string; diagnostics: vscode.Diagnostic[] }>();
    for (const p of problems) {
      const uri = indexSpecUri(p.db, p.collection, p.index);
      const text = await this.provideTextDocumentContent(uri);
      const lines = text.split('\n');
      // On the property itself, not on a comment that names it: the editor's quick fix is there.
      const line = Math.max(
        0,
        lines.findIndex((l) => /^\s*['"]?expireAfterSeconds['"]?\s*:/.test(l)),
      );
      const start = Math.max(0, (lines[line] ?? '').search(/\S/));
      const d = new vscode.Diagnostic(
        new vscode.Range(line, start, line, (lines[line] ?? '').replace(/,\s*$/, '').length),
        `${p.db}.${p.collection} index ${p.index}: expireAfterSeconds is ${problemWords(p)}. The TTL monitor skips this index on every pass (rule 4.2); fix it with collMod.`,
        p.problem === 'fractional' ? vscode.DiagnosticSeverity.Information : vscode.DiagnosticSeverity.Warning,
      );
      d.source = 'TTL Workbench';
      d.code = DIAGNOSTIC_CODE;
      const entry = found.get(uri.toString()) ?? { uri, text, diagnostics: [] };
      entry.diagnostics.push(d);
      found.set(uri.toString(), entry);
    }
    // Backend events rescan often (every index change); republishing the same findings would
    // recompute every open spec's markers and quick fixes, and the editor's lightbulb with them.
    const published = JSON.stringify(
      [...found.values()].map((e) => [e.uri.toString(), e.text, e.diagnostics.map((d) => [d.message, d.severity])]),
    );
    if (published !== this.published) {
      this.published = published;
      this.collection.clear();
      for (const e of found.values()) this.collection.set(e.uri, e.diagnostics);
      for (const p of [...old, ...problems]) this.changed.fire(indexSpecUri(p.db, p.collection, p.index));
      this.lensesChanged.fire();
    }
    this.onDidUpdate?.(problems);
    return problems;
  }

  clear(): void {
    this.current = undefined;
    this.published = undefined;
    this.collection.clear();
    this.lensesChanged.fire();
    this.onDidUpdate?.(undefined);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const t = parseIndexSpecUri(uri);
    if (!t) return '// Not a TTL Workbench index document.';
    const ix = (await this.backend.listIndexes(t.db, t.collection).catch(() => [])).find((i) => i.name === t.index);
    if (!ix) return `// ${t.db}.${t.collection} has no index ${t.index} (any more).`;
    const spec = ix.stored ? { ...ix.spec, expireAfterSeconds: ix.stored.expireAfterSeconds } : ix.spec;
    return [
      `// Index ${t.index} of ${t.db}.${t.collection}, as stored in the catalog (read-only).`,
      ...(ix.stored
        ? [
            `// listIndexes reports expireAfterSeconds as 2147483647; the catalog holds ${String(ix.stored.expireAfterSeconds)}.`,
          ]
        : []),
      mongosh.valueBlock(spec),
      '',
    ].join('\n');
  }

  provideCodeActions(
    document: vscode.TextDocument,
    _range: vscode.Range,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    const t = parseIndexSpecUri(document.uri);
    if (!t) return [];
    return context.diagnostics
      .filter((d) => d.code === DIAGNOSTIC_CODE)
      .map((d) => {
        const action = new vscode.CodeAction(FIX_TITLE, vscode.CodeActionKind.QuickFix);
        action.diagnostics = [d];
        action.isPreferred = true;
        action.command = fixCommand(t);
        return action;
      });
  }

  /** The fix above the line of each of our diagnostics in a spec document (read-only editors show CodeLenses). */
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const t = parseIndexSpecUri(document.uri);
    if (!t) return [];
    return (this.collection.get(document.uri) ?? [])
      .filter((d) => d.code === DIAGNOSTIC_CODE)
      .map((d) => new vscode.CodeLens(d.range, fixCommand(t)));
  }

  dispose(): void {
    if (this.rescanTimer) clearTimeout(this.rescanTimer);
    this.unsubscribe();
    this.collection.dispose();
    this.changed.dispose();
    this.lensesChanged.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

function fixCommand(t: { db: string; collection: string; index: string }): vscode.Command {
  return { command: FIX_COMMAND, title: FIX_TITLE, arguments: [{ ...t, interactive: true }] };
}
