/**
 * Starts the engine side (workbench.ts, its own bundle) once, on first need, and stands in for it
 * until then: a stand-in for every command that needs the engine, the Databases view's deferred
 * provider, the engine link the source analysis reads. A start that fails is reported (the log,
 * a notification, the view's message), leaves the stand-ins in place so the next need tries
 * again, and never fails its caller's activation. After deactivation nothing starts.
 */
import * as path from 'node:path';
import type * as vscode from 'vscode';
import type { LiveDiagnostics } from '../analysis/live-diagnostics';
import { parseFilterText } from '../logic/filter-text';
import type { EngineLink } from '../engine-link';
import type { TreeNode } from '../tree/nodes';
import type { Notifier } from '../ui/notifier';
import type * as WorkbenchModule from '../workbench';
import type { Workbench } from '../workbench';
import { registerCommandStubs } from './command-stubs';
import type { DeferredTreeProvider } from './deferred-tree';

export interface StarterDeps {
  context: vscode.ExtensionContext;
  output: vscode.LogOutputChannel;
  notifier: Notifier;
  treeView: vscode.TreeView<TreeNode>;
  tree: DeferredTreeProvider<TreeNode>;
  live: LiveDiagnostics;
  engine: EngineLink;
  /** The commands the stand-ins cover: every contributed one the light part did not register. */
  commandIds: readonly string[];
  /** Writes a line to the log and to the API's lifecycle log. */
  note: (text: string) => void;
}

export class EngineStarter implements vscode.Disposable {
  private running: Workbench | undefined;
  private stubs: vscode.Disposable | undefined;
  private deactivated = false;
  /** What started the engine, for the log and the API. */
  startedBy: string | undefined;

  constructor(private readonly deps: StarterDeps) {
    this.stubs = this.standIns();
  }

  get workbench(): Workbench | undefined {
    return this.running;
  }

  /** The started workbench, starting it if needed; throws (after reporting) if it cannot start. */
  start(reason: string): Workbench {
    if (this.running) return this.running;
    if (this.deactivated) throw new Error('TTL Workbench is shutting down: the engine does not start again.');
    const { context, output, notifier, treeView, live, engine, tree } = this.deps;
    const t0 = performance.now();
    this.stubs?.dispose();
    this.stubs = undefined;
    let workbench: Workbench | undefined;
    try {
      // A separate bundle, required only now: its code is not even parsed until the engine is needed.
      const bundle = path.join(context.extensionPath, 'dist', 'workbench.js');
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a bundle of its own, loaded at run time
      const { startWorkbench } = require(bundle) as typeof WorkbenchModule;
      // The filter reader needs the source parser, already loaded here: the workbench bundle stays without it.
      workbench = startWorkbench({ context, output, notifier, treeView, live, parseFilter: parseFilterText });
      engine.attach(workbench.backend);
      tree.connect(workbench.tree);
    } catch (err) {
      if (workbench) void workbench.dispose();
      this.reportFailure(reason, err);
      throw err;
    }
    this.running = workbench;
    this.startedBy = reason;
    treeView.message = undefined;
    this.deps.note(`Engine started (${reason}) in ${(performance.now() - t0).toFixed(1)} ms.`);
    return workbench;
  }

  /** As start, but a failure (already reported) answers undefined instead of throwing. */
  tryStart(reason: string): Workbench | undefined {
    try {
      return this.start(reason);
    } catch {
      return undefined;
    }
  }

  private standIns(): vscode.Disposable {
    return registerCommandStubs(this.deps.commandIds, (reason) => this.tryStart(reason) !== undefined);
  }

  private reportFailure(reason: string, err: unknown): void {
    const { output, notifier, treeView } = this.deps;
    const full = err instanceof Error ? (err.stack ?? err.message) : String(err);
    const first = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    output.error(`The engine could not start (${reason}): ${full}`);
    treeView.message = `The engine could not start: ${first}. Run "TTL Workbench: Refresh" to try again; the log has the details.`;
    notifier.showAndForget(
      'error',
      `TTL Workbench could not start its engine: ${first}. The next command tries again; the log (TTL Workbench output) has the details.`,
      ['Show Log'],
      () => output.show(),
    );
    try {
      this.stubs = this.standIns(); // the next need tries again
    } catch (e) {
      output.error(`The command stand-ins could not be put back: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Closes the engine (data folder synced, lock released) and ends the worker; nothing starts afterwards. */
  async deactivate(): Promise<void> {
    this.deactivated = true;
    const workbench = this.running;
    this.running = undefined;
    await workbench?.dispose();
  }

  dispose(): void {
    this.stubs?.dispose();
    this.stubs = undefined;
  }
}
