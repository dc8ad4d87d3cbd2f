/**
 * The TTL Monitor History panel: the engine's last passes (`Backend.monitorHistory`, a ring of
 * 200) as charts and a table — deleted, time taken, sub-passes and the backlog per pass — for
 * every TTL rule or narrowed to a collection or an index. Backend events (a pass ran, the clock
 * moved) refresh it while it is open, so moving the virtual clock shows the passes it ran.
 */
import * as vscode from 'vscode';
import type { Backend, MonitorInfo } from '../backend/backend';
import {
  buildHistoryModel,
  DEFAULT_HISTORY_SIZE,
  type HistoryModel,
  type HistoryMonitor,
  type HistoryScope,
  type HistorySize,
} from '../logic/history-chart';
import { historyPageHtml, makeNonce } from './html';
import type { HistoryFromView, HistoryToView, RenderedView } from './protocol';

export interface HistoryPanelState {
  scope: HistoryScope;
  size: HistorySize;
  model?: HistoryModel;
  error?: string;
  /** What the webview drew last, read back from its DOM. */
  rendered?: RenderedView;
}

export function historyMonitor(m: MonitorInfo): HistoryMonitor {
  return {
    enabled: m.enabled,
    sleepSecs: m.sleepSecs,
    nextPassAt: m.nextPassAt ? new Date(m.nextPassAt).getTime() : null,
    stoppedBecause: m.stoppedBecause,
  };
}

const REFRESH_DELAY_MS = 150;

export class HistoryPanel {
  private static current: HistoryPanel | undefined;

  static get open(): HistoryPanel | undefined {
    return HistoryPanel.current;
  }

  /** Shows the panel for `scope` (reusing the open one), and resolves when its figures are drawn. */
  static async show(
    backend: Backend,
    extensionUri: vscode.Uri,
    scope: HistoryScope,
    size: HistorySize = DEFAULT_HISTORY_SIZE,
  ): Promise<HistoryPanel> {
    let panel = HistoryPanel.current;
    if (panel && panel.backend !== backend) {
      panel.panel.dispose();
      panel = undefined;
    }
    if (!panel) {
      panel = new HistoryPanel(backend, extensionUri, scope, size);
      HistoryPanel.current = panel;
    } else {
      panel.scope = scope;
      panel.size = size;
      panel.panel.reveal(undefined, false);
    }
    await panel.refresh();
    return panel;
  }

  private readonly panel: vscode.WebviewPanel;
  private readonly disposables: vscode.Disposable[] = [];
  private seq = 0;
  private ready = false;
  private pending: HistoryToView | undefined;
  private last: HistoryPanelState;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> = Promise.resolve();
  private renderWaiters: Array<() => void> = [];

  private constructor(
    private readonly backend: Backend,
    extensionUri: vscode.Uri,
    private scope: HistoryScope,
    private size: HistorySize,
  ) {
    const dist = vscode.Uri.joinPath(extensionUri, 'dist');
    this.panel = vscode.window.createWebviewPanel(
      'ttlWorkbench.monitorHistory',
      'TTL Monitor History',
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      { enableScripts: true, localResourceRoots: [dist] },
    );
    this.panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'ttl-workbench.svg');
    const webview = this.panel.webview;
    webview.html = historyPageHtml(
      {
        cspSource: webview.cspSource,
        script: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'forecast-view.js')).toString(),
        style: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'forecast-view.css')).toString(),
      },
      makeNonce(),
    );
    this.last = { scope, size };
    this.disposables.push(
      webview.onDidReceiveMessage((m: HistoryFromView) => this.onMessage(m)),
      this.panel.onDidDispose(() => this.dispose()),
      this.panel.onDidChangeViewState((e) => {
        if (e.webviewPanel.visible) this.scheduleRefresh();
      }),
      // A pass, a clock move, a parameter change: any of them may add a pass or change the cadence.
      { dispose: backend.onDidChange(() => this.scheduleRefresh()) },
    );
  }

  /** What the panel shows now (after any refresh under way). */
  async state(): Promise<HistoryPanelState> {
    await this.whenIdle();
    return this.last;
  }

  /** Resolves when no refresh is pending and the webview has drawn the latest figures (or 10 s passed). */
  async whenIdle(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.refreshTimer !== undefined) await new Promise((r) => setTimeout(r, REFRESH_DELAY_MS));
      await this.running;
      if (this.refreshTimer !== undefined) continue;
      if (this.last.rendered?.seq === this.seq) return;
      await Promise.race([
        new Promise<void>((resolve) => this.renderWaiters.push(resolve)),
        new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now()))),
      ]);
      if (this.last.rendered?.seq === this.seq && this.refreshTimer === undefined) return;
    }
  }

  /** Shows the table or the chart as the toggle does, and resolves with what the page then shows. */
  async showTable(show: boolean): Promise<RenderedView | undefined> {
    await this.whenIdle();
    const before = this.last.rendered;
    const drawn = new Promise<void>((resolve) => this.renderWaiters.push(resolve));
    this.post({ type: 'showTable', show });
    await Promise.race([drawn, new Promise((r) => setTimeout(r, 10_000))]);
    return this.last.rendered === before ? undefined : this.last.rendered;
  }

  private scheduleRefresh(): void {
    if (!this.panel.visible) return; // refreshed when shown again
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      void this.refresh();
    }, REFRESH_DELAY_MS);
  }

  /** Asks the backend again and posts the new figures (one refresh at a time, in order). */
  refresh(): Promise<void> {
    const next = this.running.then(() => this.compute());
    this.running = next.catch(() => undefined);
    return this.running;
  }

  private async compute(): Promise<void> {
    const seq = ++this.seq;
    const { scope, size } = this;
    try {
      const [passes, monitor] = await Promise.all([this.backend.monitorHistory(), this.backend.monitorStatus()]);
      const model = buildHistoryModel({ passes, scope, size, monitor: historyMonitor(monitor) });
      this.last = { scope, size, model, ...(this.last.rendered ? { rendered: this.last.rendered } : {}) };
      this.post({ type: 'state', model, seq });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.last = { scope, size, error: message };
      this.post({ type: 'error', message: `The monitor history could not be read: ${message}`, seq });
    }
    const where = scope.collection ?? scope.db;
    this.panel.title = `TTL Monitor History${where ? `: ${where}` : ''}`;
  }

  private post(message: HistoryToView): void {
    // Before the page has loaded, keep the latest state: it is sent on `ready`.
    if (!this.ready) {
      if (message.type !== 'showTable') this.pending = message;
      return;
    }
    void this.panel.webview.postMessage(message);
  }

  private onMessage(m: HistoryFromView): void {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        if (this.pending) {
          void this.panel.webview.postMessage(this.pending);
          this.pending = undefined;
        } else this.scheduleRefresh();
        return;
      case 'size':
        this.size = m.size;
        void this.refresh();
        return;
      case 'rendered':
        this.last = { ...this.last, rendered: m.view };
        for (const w of this.renderWaiters.splice(0)) w();
        return;
    }
  }

  private dispose(): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
    for (const w of this.renderWaiters.splice(0)) w();
    if (HistoryPanel.current === this) HistoryPanel.current = undefined;
  }

  close(): void {
    this.panel.dispose();
  }
}
