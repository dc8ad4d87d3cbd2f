/**
 * Source diagnostics while the user types: visible documents only, each analysed after a 300 ms
 * pause in its edits (one timer per document), so typing never waits for an analysis. The engine
 * snapshot is rebuilt after engine changes and the visible documents re-analysed. This collection
 * is separate from the NaN audit's (`../diagnostics.ts`), which describes the engine's catalog.
 */
import * as vscode from 'vscode';
import type { AnalysisOptions } from '../../analysis';
import { workspaceImports } from '../../cli/workspace-imports';
import { changesCatalog } from '../backend/backend';
import type { EngineLink } from '../engine-link';
import { DIAGNOSTICS_SECTION, readDiagnosticsSettings } from './diagnostics-settings';
import { diagnosticsOf, DocumentAnalyzer, isAnalysable } from './document-analysis';
import { EngineSnapshot } from './engine-snapshot';
import { analysisTargetOf, type AnalysisTarget } from '../logic/engine-binding';
import { connectionRequestOf, headerOfMetadata } from '../logic/notebook-connection';
import { NOTEBOOK_TYPE } from '../notebook/serializer';
import { ConnectionSnapshots, type ConnectionSource } from './connection-snapshots';

export const DEBOUNCE_MS = 300;

export class LiveDiagnostics implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('ttlWorkbench.source');
  readonly snapshot: EngineSnapshot;
  /** The saved connections' indexes, once the workbench has its connections (useConnections). */
  private connections: ConnectionSnapshots | undefined;
  readonly analyzer: DocumentAnalyzer;
  private settings = readDiagnosticsSettings();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly unsubscribe: Array<() => void>;
  private pending = 0;
  private idleWaiters: Array<() => void> = [];
  /** Files filled by "Check Workspace": kept when their editor closes. */
  readonly checkedByWorkspace = new Set<string>();

  constructor(engine: EngineLink) {
    this.snapshot = new EngineSnapshot(engine);
    this.analyzer = new DocumentAnalyzer((uri) => this.options(uri));
    this.disposables.push(
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document)),
      vscode.window.onDidChangeVisibleTextEditors(() => this.analyzeVisible()),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        this.analyzer.forget(doc);
        if (!this.checkedByWorkspace.has(doc.uri.toString())) this.collection.delete(doc.uri);
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (
          !e.affectsConfiguration(DIAGNOSTICS_SECTION) &&
          !e.affectsConfiguration('ttlWorkbench.serverVersion') &&
          !e.affectsConfiguration('ttlWorkbench.engineBoundFiles') &&
          !e.affectsConfiguration('ttlWorkbench.connectionBoundFiles') &&
          !e.affectsConfiguration('ttlWorkbench.codeLens')
        )
          return;
        this.settings = readDiagnosticsSettings();
        this.analyzer.clear();
        if (!this.settings.enabled) this.collection.clear();
        this.analyzeVisible();
      }),
    );
    const engineChanged = () => {
      this.snapshot.invalidate();
      this.refreshEngine();
    };
    this.unsubscribe = [
      engine.onDidStart(engineChanged),
      engine.onDidChange((events) => {
        // The analysis reads names, options and index specs only: documents written by a running
        // cell (a batch every 25 ms) must not re-analyse every visible file.
        if (events.some(changesCatalog)) engineChanged();
      }),
    ];
    this.refreshEngine();
  }

  /**
   * The analysis options for a file: the engine's facts (TTL011, TTL008's "known to the engine")
   * only where its code runs against the engine (a playground notebook or a bound file), and a
   * connection's where it runs against that server (a notebook on it, or a file bound to it).
   */
  options(uri?: vscode.Uri): AnalysisOptions {
    const target = uri ? this.targetOf(uri) : undefined;
    return {
      serverVersion: this.settings.serverVersion,
      disabledRules: this.settings.disabledRules,
      engine:
        target?.kind === 'engine'
          ? this.snapshot.current
          : target?.kind === 'connection'
            ? this.connections?.factsOf(target.name)
            : undefined,
      imports: this.importsOf(uri),
    };
  }

  /**
   * From now on, files and notebooks bound to a saved connection compare with its indexes (read
   * once per connection, again on `refreshConnections`). Returns what undoes it.
   */
  useConnections(source: ConnectionSource): { refresh(): Promise<void>; prune(): void; dispose(): void } {
    this.connections?.dispose();
    const connections = new ConnectionSnapshots(source);
    this.connections = connections;
    const stop = connections.onDidBuild(() => {
      this.analyzer.clear();
      this.analyzeVisible();
    });
    return {
      refresh: () => {
        const read = connections.refreshAll();
        this.track(read);
        return read;
      },
      prune: () => {
        // A connection came or went: what is bound to it is analysed again (a first read starts).
        connections.prune();
        this.analyzer.clear();
        this.analyzeVisible();
      },
      dispose: () => {
        stop();
        connections.dispose();
        if (this.connections === connections) this.connections = undefined;
      },
    };
  }

  /** Constants imported from workspace files, read as `ttl-workbench check` reads them. */
  private importsOf(uri: vscode.Uri | undefined): AnalysisOptions['imports'] {
    if (uri?.scheme !== 'file') return undefined;
    const root = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath;
    return root ? workspaceImports(uri.fsPath, root) : undefined;
  }

  /** A `.ttlbook` notebook (its cells or the file) or a file bound with ttlWorkbench.engineBoundFiles. */
  runsAgainstEngine(uri: vscode.Uri): boolean {
    return this.targetOf(uri)?.kind === 'engine';
  }

  /**
   * What the file's code runs against: a notebook's cells its `"connection"` metadata (else the
   * embedded engine), a file its binding (ttlWorkbench.connectionBoundFiles, engineBoundFiles).
   */
  targetOf(uri: vscode.Uri): AnalysisTarget {
    if (uri.scheme === 'vscode-notebook-cell') {
      const notebook = vscode.workspace.notebookDocuments.find(
        (nb) => nb.notebookType === NOTEBOOK_TYPE && nb.uri.path === uri.path,
      );
      if (!notebook) return undefined;
      const asked = connectionRequestOf(headerOfMetadata(notebook.metadata));
      return 'connection' in asked && asked.connection !== undefined
        ? { kind: 'connection', name: asked.connection }
        : { kind: 'engine' };
    }
    return analysisTargetOf(
      vscode.workspace.asRelativePath(uri, false),
      this.settings.boundFiles,
      this.settings.connectionBoundFiles,
    );
  }

  get applyLensEverywhere(): boolean {
    return this.settings.applyLensEverywhere;
  }

  get enabled(): boolean {
    return this.settings.enabled;
  }

  private refreshEngine(): void {
    this.track(
      this.snapshot.refresh().then(
        () => {
          this.analyzer.clear();
          this.analyzeVisible();
        },
        () => undefined,
      ),
    );
  }

  private visibleDocuments(): vscode.TextDocument[] {
    const docs = new Set<vscode.TextDocument>();
    for (const e of vscode.window.visibleTextEditors) docs.add(e.document);
    for (const nb of vscode.window.visibleNotebookEditors ?? [])
      for (const c of nb.notebook.getCells()) docs.add(c.document);
    return [...docs].filter(isAnalysable);
  }

  analyzeVisible(): void {
    const visible = this.visibleDocuments();
    this.analyzer.keepSessionsOf(visible);
    for (const doc of visible) this.publish(doc);
  }

  private schedule(doc: vscode.TextDocument): void {
    if (!this.settings.enabled || !isAnalysable(doc)) return;
    const key = doc.uri.toString();
    const old = this.timers.get(key);
    if (old) clearTimeout(old);
    else this.pending++;
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.pending--;
        // Only what the user can see; a hidden document is analysed when it is shown.
        if (this.visibleDocuments().includes(doc)) this.publishCells(doc);
        this.settle();
      }, DEBOUNCE_MS),
    );
  }

  /** A cell edit can change the other cells' problems (a collection made capped): redo them all. */
  private publishCells(doc: vscode.TextDocument): void {
    const notebook = vscode.workspace.notebookDocuments.find((nb) => nb.getCells().some((c) => c.document === doc));
    if (!notebook) {
      this.publish(doc);
      return;
    }
    for (const c of notebook.getCells()) if (isAnalysable(c.document)) this.publish(c.document);
  }

  publish(doc: vscode.TextDocument): void {
    if (!this.settings.enabled) return;
    this.collection.set(doc.uri, diagnosticsOf(doc, this.analyzer.analyze(doc)));
  }

  private track(p: Promise<unknown>): void {
    this.pending++;
    void p.finally(() => {
      this.pending--;
      this.settle();
    });
  }

  private settle(): void {
    if (this.pending > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when no analysis is waiting (tests). */
  whenIdle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  dispose(): void {
    this.connections?.dispose();
    for (const t of this.timers.values()) clearTimeout(t);
    for (const u of this.unsubscribe) u();
    this.collection.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
