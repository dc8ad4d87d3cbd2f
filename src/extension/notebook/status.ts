/**
 * What the notebook editor shows about its engine: a context key (`ttlWorkbench.notebookEngine` =
 * `shared` | `isolated`) that picks the notebook toolbar's "Shared Engine" or "Isolated Engine"
 * item, and, for an isolated notebook, a status bar item with that engine's clock (the window's
 * clock item keeps showing the shared engine) whose click advances the notebook's clock.
 */
import * as vscode from 'vscode';
import { formatClockTime } from '../logic/durations';
import { statusText } from '../status-bar';
import type { NotebookEngines } from './engines';
import { NOTEBOOK_TYPE } from './serializer';

export const ENGINE_CONTEXT = 'ttlWorkbench.notebookEngine';

export class NotebookEngineStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(
    'ttlWorkbench.notebookClock',
    vscode.StatusBarAlignment.Left,
    49,
  );
  private readonly subscriptions: vscode.Disposable[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private updating: Promise<void> = Promise.resolve();

  constructor(private readonly engines: NotebookEngines) {
    this.item.name = 'TTL Workbench Notebook Engine';
    this.subscriptions.push(
      vscode.window.onDidChangeActiveNotebookEditor(() => this.schedule(0)),
      engines.onDidChange(() => this.schedule(100)),
      vscode.workspace.onDidChangeNotebookDocument((e) => {
        if (e.metadata) this.schedule(0);
      }),
    );
    this.schedule(0);
  }

  /** The item's text ('' while hidden), for tests. */
  get text(): string {
    return this.visible ? this.item.text : '';
  }

  private visible = false;

  private schedule(ms: number): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.updating = this.update();
    }, ms);
  }

  async whenIdle(): Promise<void> {
    while (this.timer) await new Promise((r) => setTimeout(r, 20));
    await this.updating;
  }

  private async update(): Promise<void> {
    const notebook = vscode.window.activeNotebookEditor?.notebook;
    if (!notebook || notebook.notebookType !== NOTEBOOK_TYPE) {
      await vscode.commands.executeCommand('setContext', ENGINE_CONTEXT, undefined);
      this.hide();
      return;
    }
    let isolated = false;
    try {
      const connection = this.engines.connectionOf(notebook);
      if (connection !== undefined) {
        // A real server: no virtual clock to show; the toolbar's Run On… names the connection.
        await vscode.commands.executeCommand('setContext', ENGINE_CONTEXT, 'connection');
        this.item.text = `$(plug) ${connection}`;
        this.item.tooltip = `This notebook's cells run on the saved connection "${connection}" through mongosh's runtime. Click to pick another engine.`;
        this.item.command = {
          title: 'Run On',
          command: 'ttlWorkbench.notebookRunOn',
          arguments: [{ notebook: notebook.uri.toString(), ui: true }],
        };
        this.item.show();
        this.visible = true;
        return;
      }
      const engine = this.engines.engineFor(notebook);
      isolated = engine.isolated;
      await vscode.commands.executeCommand('setContext', ENGINE_CONTEXT, isolated ? 'isolated' : 'shared');
      if (!isolated) {
        this.hide();
        return;
      }
      const [clock, monitor, info] = await Promise.all([
        engine.backend.clock(),
        engine.backend.monitorStatus(),
        engine.backend.info(),
      ]);
      this.item.text = `$(beaker) Isolated ${info.flavor === 'cosmos' ? 'Cosmos ' : ''}engine: ${statusText(clock, monitor)}`;
      this.item.tooltip = `This notebook runs on its own engine (${info.flavor} ${info.version}, ${clock.mode} clock at ${formatClockTime(clock.now)}), not the one the Databases view shows. Click to advance its clock.`;
      this.item.command = {
        title: 'Advance Notebook Clock',
        command: 'ttlWorkbench.advanceNotebookClock',
        arguments: [{ notebook: notebook.uri.toString(), interactive: true }],
      };
      this.item.show();
      this.visible = true;
    } catch (err) {
      await vscode.commands.executeCommand('setContext', ENGINE_CONTEXT, 'invalid');
      this.item.text = '$(warning) Notebook engine metadata';
      this.item.tooltip = (err as Error).message;
      this.item.command = undefined;
      this.item.show();
      this.visible = true;
    }
  }

  private hide(): void {
    this.item.hide();
    this.visible = false;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const s of this.subscriptions) s.dispose();
    this.item.dispose();
  }
}
