/**
 * The TTL Monitor History panel: the engine's last passes (`Backend.monitorHistory`, a ring of
 * 200) as charts and a table — deleted, time taken, sub-passes and the backlog per pass — for
 * every TTL rule or narrowed to a collection or an index. Backend events (a pass ran, the clock
 * moved) refresh it while it is open, so moving the virtual clock shows the passes it ran.
 */
import type * as vscode from 'vscode';
import type { Backend, MonitorInfo } from '../backend/backend';
import {
  buildHistoryModel,
  DEFAULT_HISTORY_SIZE,
  type HistoryModel,
  type HistoryMonitor,
  type HistoryScope,
  type HistorySize,
} from '../logic/history-chart';
import { noServerHistoryText } from '../logic/server-history';
import { ChartPanel } from './chart-panel';
import { historyPageHtml } from './html';
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

export class HistoryPanel extends ChartPanel<HistoryPanelState, HistoryToView, HistoryFromView> {
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
      panel.close();
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

  private constructor(
    backend: Backend,
    extensionUri: vscode.Uri,
    private scope: HistoryScope,
    private size: HistorySize,
  ) {
    super(
      backend,
      extensionUri,
      { viewType: 'ttlWorkbench.monitorHistory', title: 'TTL Monitor History', html: historyPageHtml },
      { scope, size },
    );
  }

  protected async compute(): Promise<void> {
    const seq = ++this.seq;
    const { scope, size } = this;
    try {
      const info = await this.backend.info();
      if (info.kind === 'driver') {
        // Said in words, not drawn as an empty chart: the server has no per-pass record to show.
        const message = noServerHistoryText(info.label, await this.backend.monitorStatus().catch(() => undefined));
        this.last = { scope, size, error: message };
        this.post({ type: 'error', message, seq });
        this.panel.title = `TTL Monitor History: ${info.label}`;
        return;
      }
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

  protected onPageMessage(m: Exclude<HistoryFromView, { type: 'ready' | 'rendered' }>): void {
    if (m.type === 'size') {
      this.size = m.size;
      void this.refresh();
    }
  }

  protected onDisposed(): void {
    if (HistoryPanel.current === this) HistoryPanel.current = undefined;
  }
}
