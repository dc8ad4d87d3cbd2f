/**
 * Which engine each playground notebook runs on, and its mongosh session there. By default every
 * notebook shares the window's engine (the one the tree shows, so the tree follows the cells
 * live), each notebook with its own session (variables, current database). A notebook whose
 * metadata says `"engine": {"isolated": true, ...}` gets an engine of its own (in the same engine
 * host as the shared one), on a virtual clock starting at `now`, closed with the notebook. So does
 * a notebook that asks for a flavor or version other than the window's (a notebook never changes
 * the window's settings-backed engine), and one the user ran "on an isolated engine" (until it
 * closes or the user goes back to the shared engine).
 */
import * as vscode from 'vscode';
import type { Backend, EngineSettings, PlaygroundSession } from '../backend/backend';
import type { WorkbenchSettings } from '../settings';
import { engineRequestOf, type EngineRequest } from '../../formats/ttlbook';
import { differsFromWindow, type FreshTarget } from '../logic/fresh-engine';
import { connectionRequestOf, headerOfMetadata } from '../logic/notebook-connection';

export interface NotebookEngine {
  isolated: boolean;
  backend: Backend;
  request: EngineRequest;
  /** The saved connection the notebook runs on (`"connection": "<name>"`), if any. */
  connection?: string;
}

/** The saved connections as notebooks see them (connections/manager.ts). */
export interface NotebookConnections {
  /** The connection's backend, connecting it first if needed. */
  ensureConnected(name: string): Promise<Backend>;
  /** Its backend if connected now. */
  backendOf(name: string): Backend | undefined;
  isProduction(name: string): boolean;
  /**
   * Asked before a notebook's first cell runs on a production connection: resolving false cancels
   * the run. Asked once per notebook and connection while the notebook is open.
   */
  confirmFirstRun(name: string, notebook: vscode.NotebookDocument): Promise<boolean>;
}

/** A notebook on a connection that is not connected: the next cell run connects it. */
export class NotConnectedError extends Error {
  readonly code = 6;
  readonly codeName = 'HostUnreachable';
}

interface Entry extends NotebookEngine {
  /** The metadata the entry was made for: a change makes a new one. */
  key: string;
  session?: Promise<PlaygroundSession>;
  /** The isolated backend's event subscription. */
  unsubscribe?: () => void;
}

/** A refusal of the notebook's metadata, as mongod names a bad value. */
export class EngineMetadataError extends Error {
  readonly code = 2;
  readonly codeName = 'BadValue';
}

export function headerOf(notebook: vscode.NotebookDocument): Record<string, unknown> {
  return headerOfMetadata(notebook.metadata);
}

export class NotebookEngines implements vscode.Disposable {
  private readonly entries = new Map<string, Entry>();
  /** Notebooks the user moved to an isolated engine although their metadata shares. */
  private readonly isolatedByUser = new Set<string>();
  /** Notebook and production connection pairs whose first run was confirmed. */
  private readonly confirmedProduction = new Set<string>();
  private readonly changed = new vscode.EventEmitter<vscode.NotebookDocument | undefined>();
  /** An engine was made, replaced or changed (clock, data): the toolbar and status bar follow. */
  readonly onDidChange = this.changed.event;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly shared: Backend,
    private readonly makeIsolated: (settings: Partial<EngineSettings>, options: { startMs?: number }) => Backend,
    private readonly settings: () => WorkbenchSettings & { playgroundTimeLimitMs: number },
    private readonly connections?: NotebookConnections,
  ) {
    this.subscriptions.push(
      vscode.workspace.onDidCloseNotebookDocument((nb) => this.close(nb)),
      { dispose: shared.onDidChange(() => this.changed.fire(undefined)) },
    );
  }

  /** The request in the notebook's metadata; a bad one throws EngineMetadataError (code 2, BadValue). */
  requestOf(notebook: vscode.NotebookDocument): EngineRequest {
    const r = engineRequestOf(headerOf(notebook));
    if ('error' in r) throw new EngineMetadataError(`${r.error[0].toUpperCase()}${r.error.slice(1)}.`);
    return r;
  }

  /** The saved connection the notebook's metadata names; a bad value throws EngineMetadataError (BadValue). */
  connectionOf(notebook: vscode.NotebookDocument): string | undefined {
    const r = connectionRequestOf(headerOf(notebook));
    if ('error' in r) throw new EngineMetadataError(`${r.error}.`);
    return r.connection;
  }

  /** The notebook's engine (made on first use, remade when its engine metadata changed). */
  engineFor(notebook: vscode.NotebookDocument): NotebookEngine {
    const connection = this.connectionOf(notebook);
    if (connection !== undefined) return this.connectionEntry(notebook, connection);
    const id = notebook.uri.toString();
    const asked = this.requestOf(notebook);
    const isolated = asked.isolated || this.isolatedByUser.has(id) || this.differs(asked) !== undefined;
    const request: EngineRequest = { ...asked, isolated };
    const key = JSON.stringify({ ...request, now: request.now?.toISOString() });
    const existing = this.entries.get(id);
    if (existing && existing.key === key) return existing;
    if (existing) this.drop(id, existing);
    const entry: Entry = request.isolated
      ? this.isolatedEntry(notebook, request, key)
      : { isolated: false, backend: this.shared, request, key };
    this.entries.set(id, entry);
    this.changed.fire(notebook);
    return entry;
  }

  /** Why the notebook cannot share the window's engine (another flavor or version), if so. */
  differs(request: EngineRequest): string | undefined {
    return differsFromWindow(request, this.settings());
  }

  /** Whether the user moved the notebook to an isolated engine (its metadata shares). */
  isIsolatedByUser(notebook: vscode.NotebookDocument): boolean {
    return this.isolatedByUser.has(notebook.uri.toString());
  }

  /** Back to the shared engine (the notebook's metadata permitting). */
  useShared(notebook: vscode.NotebookDocument): NotebookEngine {
    this.isolatedByUser.delete(notebook.uri.toString());
    return this.engineFor(notebook);
  }

  private isolatedEntry(notebook: vscode.NotebookDocument, request: EngineRequest, key: string): Entry {
    const s = this.settings();
    const backend = this.makeIsolated(
      {
        clock: request.clock ?? 'virtual',
        flavor: request.flavor ?? 'mongodb',
        serverVersion: request.serverVersion ?? s.serverVersion,
        ...(request.replSet !== undefined ? { replSet: request.replSet } : {}),
      },
      request.now ? { startMs: request.now.getTime() } : {},
    );
    const unsubscribe = backend.onDidChange(() => this.changed.fire(notebook));
    return { isolated: true, backend, request, key, unsubscribe };
  }

  /**
   * A production connection: the first run of the notebook there asks first (once per notebook and
   * connection while it is open). Each write command of the tree asks every time; a notebook's
   * cells are code the user wrote for that server, so one question per notebook, not per cell.
   */
  private async confirmProduction(notebook: vscode.NotebookDocument, name: string): Promise<void> {
    if (!this.connections?.isProduction(name)) return;
    const key = `${notebook.uri.toString()}\n${name}`;
    if (this.confirmedProduction.has(key)) return;
    if (!(await this.connections.confirmFirstRun(name, notebook)))
      throw Object.assign(
        new Error(
          `Not run: "${name}" is marked as production and running this notebook there was not confirmed. Run the cell again and confirm, or pick another engine from the notebook toolbar.`,
        ),
        { name: 'MongoshInterruptedError', code: 11601, codeName: 'Interrupted' },
      );
    this.confirmedProduction.add(key);
  }

  /** The entry of a notebook on a connected connection (its backend is the connection's). */
  private connectionEntry(notebook: vscode.NotebookDocument, name: string): Entry {
    const id = notebook.uri.toString();
    const backend = this.connections?.backendOf(name);
    if (!backend)
      throw new NotConnectedError(
        this.connections
          ? `This notebook runs on the connection "${name}", which is not connected: run a cell (it connects) or Connect it in the Databases view.`
          : `This notebook runs on the connection "${name}", but saved connections are not available in this window.`,
      );
    const key = JSON.stringify({ connection: name });
    const existing = this.entries.get(id);
    if (existing && existing.key === key && existing.backend === backend) return existing;
    if (existing) this.drop(id, existing);
    const entry: Entry = { isolated: false, backend, request: { isolated: false }, connection: name, key };
    this.entries.set(id, entry);
    this.changed.fire(notebook);
    return entry;
  }

  /** The notebook's mongosh session (one per notebook, kept across runs). */
  async session(notebook: vscode.NotebookDocument): Promise<PlaygroundSession> {
    const connection = this.connectionOf(notebook);
    if (connection !== undefined) {
      if (!this.connections)
        throw new NotConnectedError(
          `This notebook runs on the connection "${connection}", but saved connections are not available in this window.`,
        );
      await this.confirmProduction(notebook, connection);
      await this.connections.ensureConnected(connection);
    }
    const entry = this.engineFor(notebook) as Entry;
    if (!entry.session) {
      const opening = entry.backend.openPlayground({ timeoutMs: this.settings().playgroundTimeLimitMs });
      entry.session = opening;
      // A session that failed to open (the engine host restarting) is opened again on the next run.
      opening.catch(() => {
        if (entry.session === opening) entry.session = undefined;
      });
    }
    return entry.session;
  }

  /**
   * A fresh engine for the notebook, as the CLI gives every file, and a new session. `isolated`: a
   * new engine of its own (nothing else changes). `shared`: the window's engine is reset, with the
   * window's flavor, version and clock mode (never the notebook's) and the notebook's clock start; the caller
   * has asked the user first, as it deletes every database there. A notebook that cannot share the
   * window's engine (metadata `isolated`, another flavor or version) always gets an isolated one.
   */
  async fresh(notebook: vscode.NotebookDocument, target: FreshTarget): Promise<NotebookEngine> {
    const connection = this.connectionOf(notebook);
    if (connection !== undefined)
      throw Object.assign(
        new Error(
          `This notebook runs on the connection "${connection}": a fresh engine exists only for the embedded engine (a real server's data are never reset from here). Pick the embedded engine from the notebook toolbar first.`,
        ),
        { code: 20, codeName: 'IllegalOperation' },
      );
    const id = notebook.uri.toString();
    const existing = this.entries.get(id);
    if (existing) this.drop(id, existing);
    if (target === 'isolated') this.isolatedByUser.add(id);
    else this.isolatedByUser.delete(id);
    const entry = this.engineFor(notebook);
    if (!entry.isolated) {
      const s = this.settings();
      const r = entry.request;
      await this.shared.reset(
        { flavor: s.flavor, serverVersion: s.serverVersion, clock: s.clock },
        r.now ? { startMs: r.now.getTime() } : {},
      );
    }
    this.changed.fire(notebook);
    return entry;
  }

  private drop(id: string, entry: Entry): void {
    this.entries.delete(id);
    void entry.session?.then(
      (s) => s.dispose(),
      () => undefined,
    );
    // A connection's backend belongs to the connection (the tree shows it): only its session goes.
    if (entry.isolated) {
      entry.unsubscribe?.();
      entry.backend.dispose();
    }
  }

  private close(notebook: vscode.NotebookDocument): void {
    const id = notebook.uri.toString();
    this.isolatedByUser.delete(id);
    for (const key of [...this.confirmedProduction])
      if (key.startsWith(`${id}\n`)) this.confirmedProduction.delete(key);
    const entry = this.entries.get(id);
    if (entry) this.drop(id, entry);
  }

  dispose(): void {
    for (const [id, entry] of [...this.entries]) this.drop(id, entry);
    for (const s of this.subscriptions) s.dispose();
    this.changed.dispose();
  }
}
