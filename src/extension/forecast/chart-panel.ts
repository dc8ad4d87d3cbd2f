/**
 * What the two chart panels (Expiry Forecast, TTL Monitor History) share: one webview page from
 * dist/ under a strict CSP, refreshes debounced on backend events and run one at a time in order,
 * the latest state kept until the page says `ready`, and the page's `rendered` echo, which lets
 * callers (commands, tests) wait until the figures they asked for are drawn. A subclass computes
 * its figures and handles its own page messages.
 */
import * as vscode from 'vscode';
import type { Backend } from '../backend/backend';
import { makeNonce, type PageUris } from './html';
import type { RenderedView, ShowTable } from './protocol';

const REFRESH_DELAY_MS = 150;

export interface ChartPage {
  /** The webview panel's view type, e.g. `ttlWorkbench.expiryForecast`. */
  viewType: string;
  title: string;
  html: (uris: PageUris, nonce: string) => string;
}

/** The page's messages the base handles; anything else goes to `onPageMessage`. */
type BaseFromView = { type: 'ready' } | { type: 'rendered'; view: RenderedView };

export abstract class ChartPanel<
  State extends { rendered?: RenderedView },
  ToView extends { type: string },
  FromView extends { type: string },
> {
  protected readonly panel: vscode.WebviewPanel;
  /** What the panel shows now; subclasses replace it in `compute`. */
  protected last: State;
  /** The number of the latest state posted: the page echoes it in `rendered`. */
  protected seq = 0;
  private readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  private pending: ToView | undefined;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> = Promise.resolve();
  private renderWaiters: Array<() => void> = [];

  protected constructor(
    protected readonly backend: Backend,
    extensionUri: vscode.Uri,
    page: ChartPage,
    initial: State,
  ) {
    const dist = vscode.Uri.joinPath(extensionUri, 'dist');
    this.panel = vscode.window.createWebviewPanel(
      page.viewType,
      page.title,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      { enableScripts: true, localResourceRoots: [dist] },
    );
    this.panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'ttl-workbench.svg');
    const webview = this.panel.webview;
    webview.html = page.html(
      {
        cspSource: webview.cspSource,
        script: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'forecast-view.js')).toString(),
        style: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'forecast-view.css')).toString(),
      },
      makeNonce(),
    );
    this.last = initial;
    this.disposables.push(
      webview.onDidReceiveMessage((m: FromView | BaseFromView) => this.onMessage(m)),
      this.panel.onDidDispose(() => this.dispose()),
      this.panel.onDidChangeViewState((e) => {
        if (e.webviewPanel.visible) this.scheduleRefresh();
      }),
      // A pass, a clock move, a data change: any of them may change the figures.
      { dispose: backend.onDidChange(() => this.scheduleRefresh()) },
    );
  }

  /** Asks the backend, sets `last` and posts the new state (with `++this.seq`). */
  protected abstract compute(): Promise<void>;
  /** A page message other than `ready` and `rendered`. */
  protected abstract onPageMessage(m: Exclude<FromView, BaseFromView>): void;
  /** The panel was closed (by the user or `close`). */
  protected abstract onDisposed(): void;

  /** What the panel shows now (after any refresh under way). */
  async state(): Promise<State> {
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
    this.post({ type: 'showTable', show } satisfies ShowTable as unknown as ToView);
    await Promise.race([drawn, new Promise((r) => setTimeout(r, 10_000))]);
    return this.last.rendered === before ? undefined : this.last.rendered;
  }

  /** Asks the backend again and posts the new figures (one refresh at a time, in order). */
  refresh(): Promise<void> {
    const next = this.running.then(() => this.compute());
    this.running = next.catch(() => undefined);
    return this.running;
  }

  close(): void {
    this.panel.dispose();
  }

  protected scheduleRefresh(): void {
    if (!this.panel.visible) return; // refreshed when shown again
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      void this.refresh();
    }, REFRESH_DELAY_MS);
  }

  protected post(message: ToView): void {
    // Before the page has loaded, keep the latest state: it is sent on `ready`.
    if (!this.ready) {
      if (message.type !== 'showTable') this.pending = message;
      return;
    }
    void this.panel.webview.postMessage(message);
  }

  private onMessage(m: FromView | BaseFromView): void {
    if (m.type === 'ready') {
      this.ready = true;
      if (this.pending) {
        void this.panel.webview.postMessage(this.pending);
        this.pending = undefined;
      } else this.scheduleRefresh();
    } else if (m.type === 'rendered') {
      this.last = { ...this.last, rendered: (m as BaseFromView & { type: 'rendered' }).view };
      for (const w of this.renderWaiters.splice(0)) w();
    } else this.onPageMessage(m as Exclude<FromView, BaseFromView>);
  }

  private dispose(): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
    for (const w of this.renderWaiters.splice(0)) w();
    this.onDisposed();
  }
}
