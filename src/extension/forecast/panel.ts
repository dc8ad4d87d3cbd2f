/**
 * The Expiry Forecast panel: one webview that shows what a TTL rule (or a what-if value) makes
 * eligible per time bucket. The figures come from `Backend.forecast` (the engine host's thread);
 * this side only asks, builds the chart model (logic/forecast-chart.ts) and posts it. Backend
 * events (the clock moved, a pass ran, data changed) refresh it while it is open.
 */
import * as vscode from 'vscode';
import type { Document } from '../../engine';
import type { Backend, MonitorInfo } from '../backend/backend';
import { parseTTLDuration } from '../logic/durations';
import {
  buildChartModel,
  DEFAULT_VISIT_CAP,
  HORIZONS,
  toFigures,
  type ChartModel,
  type ForecastFigures,
  type HorizonName,
  type MonitorFacts,
} from '../logic/forecast-chart';
import { forecastPageHtml, makeNonce } from './html';
import type { FromView, RenderedView, ToView } from './protocol';

/** What the panel forecasts. */
export interface ForecastTarget {
  db: string;
  collection: string;
  /** An index name or key pattern; undefined: the collection's own TTL rule (clustered, time series). */
  index?: string | Document;
  /** The index already has a TTL rule: with a what-if value, it is drawn as "before". */
  hasCurrentRule: boolean;
  /** What-if expireAfterSeconds (a Create / Convert / Change preview's new value). */
  whatIfSeconds?: number;
  /** What-if partial filter (Create TTL Index with a filter). */
  partialFilterExpression?: Document;
}

export interface ForecastPanelState {
  target: ForecastTarget;
  horizon: HorizonName;
  primary?: ForecastFigures;
  before?: ForecastFigures;
  model?: ChartModel;
  error?: string;
  /** What the webview drew last, read back from its DOM. */
  rendered?: RenderedView;
}

export function monitorFacts(m: MonitorInfo): MonitorFacts {
  const target = m.parameters.ttlIndexDeleteTargetDocs;
  const batched = m.parameters.ttlMonitorBatchDeletes !== false;
  return {
    sleepSecs: m.sleepSecs,
    nextPassAt: m.nextPassAt ? new Date(m.nextPassAt).getTime() : null,
    enabled: m.enabled,
    visitCap: !batched ? 0 : typeof target === 'number' ? target : DEFAULT_VISIT_CAP,
  };
}

const REFRESH_DELAY_MS = 150;

export class ForecastPanel {
  private static current: ForecastPanel | undefined;

  static get open(): ForecastPanel | undefined {
    return ForecastPanel.current;
  }

  /** Shows the panel for `target` (reusing the open one), and resolves when its figures are drawn. */
  static async show(
    backend: Backend,
    extensionUri: vscode.Uri,
    target: ForecastTarget,
    horizon: HorizonName = '24h',
  ): Promise<ForecastPanel> {
    let panel = ForecastPanel.current;
    if (panel && panel.backend !== backend) {
      panel.panel.dispose();
      panel = undefined;
    }
    if (!panel) {
      panel = new ForecastPanel(backend, extensionUri, target, horizon);
      ForecastPanel.current = panel;
    } else {
      panel.target = target;
      panel.horizon = horizon;
      panel.whatIfError = undefined;
      panel.panel.reveal(undefined, false);
    }
    await panel.refresh();
    return panel;
  }

  private readonly panel: vscode.WebviewPanel;
  private readonly disposables: vscode.Disposable[] = [];
  private seq = 0;
  private ready = false;
  private last: ForecastPanelState;
  private whatIfError: string | undefined;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> = Promise.resolve();
  private renderWaiters: Array<{ seq: number; resolve: () => void }> = [];

  private constructor(
    private readonly backend: Backend,
    extensionUri: vscode.Uri,
    private target: ForecastTarget,
    private horizon: HorizonName,
  ) {
    const dist = vscode.Uri.joinPath(extensionUri, 'dist');
    this.panel = vscode.window.createWebviewPanel(
      'ttlWorkbench.expiryForecast',
      'Expiry Forecast',
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      { enableScripts: true, localResourceRoots: [dist] },
    );
    this.panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'ttl-workbench.svg');
    const webview = this.panel.webview;
    webview.html = forecastPageHtml(
      {
        cspSource: webview.cspSource,
        script: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'forecast-view.js')).toString(),
        style: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'forecast-view.css')).toString(),
      },
      makeNonce(),
    );
    this.last = { target, horizon };
    this.disposables.push(
      webview.onDidReceiveMessage((m: FromView) => this.onMessage(m)),
      this.panel.onDidDispose(() => this.dispose()),
      this.panel.onDidChangeViewState((e) => {
        if (e.webviewPanel.visible) this.scheduleRefresh();
      }),
      { dispose: backend.onDidChange(() => this.scheduleRefresh()) },
    );
  }

  /** What the panel shows now (after any refresh under way). */
  async state(): Promise<ForecastPanelState> {
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
      const seq = this.seq;
      await Promise.race([
        new Promise<void>((resolve) => this.renderWaiters.push({ seq, resolve })),
        new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now()))),
      ]);
      if (this.last.rendered?.seq === this.seq && this.refreshTimer === undefined) return;
    }
  }

  /** Shows the table or the chart as the toggle does, and resolves with what the page then shows. */
  async showTable(show: boolean): Promise<RenderedView | undefined> {
    await this.whenIdle();
    const before = this.last.rendered;
    const drawn = new Promise<void>((resolve) => this.renderWaiters.push({ seq: this.seq, resolve }));
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
    const { target, horizon } = this;
    const shape = { horizonMs: HORIZONS[horizon].ms, buckets: HORIZONS[horizon].buckets };
    const base = {
      ...shape,
      ...(target.index !== undefined ? { index: target.index } : {}),
    };
    try {
      const [monitor, primary, before] = await Promise.all([
        this.backend.monitorStatus(),
        this.backend.forecast(target.db, target.collection, {
          ...base,
          ...(target.whatIfSeconds !== undefined ? { expireAfterSeconds: target.whatIfSeconds } : {}),
          ...(target.partialFilterExpression ? { partialFilterExpression: target.partialFilterExpression } : {}),
        }),
        target.whatIfSeconds !== undefined && target.hasCurrentRule
          ? this.backend.forecast(target.db, target.collection, base)
          : Promise.resolve(undefined),
      ]);
      const p = toFigures(primary);
      const b = before ? toFigures(before) : undefined;
      const model = buildChartModel({
        db: target.db,
        collection: target.collection,
        horizon,
        primary: p,
        ...(b ? { before: b } : {}),
        monitor: monitorFacts(monitor),
      });
      this.last = { target, horizon, primary: p, ...(b ? { before: b } : {}), model };
      this.post({
        type: 'state',
        model,
        whatIfText: target.whatIfSeconds !== undefined ? String(target.whatIfSeconds) : '',
        ...(this.whatIfError ? { whatIfError: this.whatIfError } : {}),
        seq,
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.last = { target, horizon, error: message };
      this.post({ type: 'error', message: `The forecast could not be computed: ${message}`, seq });
    }
    this.panel.title = `Expiry Forecast: ${target.collection}${typeof target.index === 'string' ? `.${target.index}` : ''}`;
  }

  private pending: ToView | undefined;

  private post(message: ToView): void {
    // Before the page has loaded, keep the latest state: it is sent on `ready`.
    if (!this.ready) {
      if (message.type !== 'showTable') this.pending = message;
      return;
    }
    void this.panel.webview.postMessage(message);
  }

  private onMessage(m: FromView): void {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        if (this.pending) {
          void this.panel.webview.postMessage(this.pending);
          this.pending = undefined;
        } else this.scheduleRefresh();
        return;
      case 'horizon':
        this.horizon = m.horizon;
        void this.refresh();
        return;
      case 'whatIf':
        this.setWhatIf(m.text);
        void this.refresh();
        return;
      case 'rendered':
        this.last = { ...this.last, rendered: m.view };
        for (const w of this.renderWaiters.splice(0)) w.resolve();
        return;
    }
  }

  /** The what-if box: a duration (`3600`, `10m`, `7d`, `0`), or empty for the rule as it is. */
  setWhatIf(text: string): void {
    this.whatIfError = undefined;
    if (!text.trim()) {
      if (!this.target.hasCurrentRule) {
        this.whatIfError = 'This index has no TTL rule yet: give the expireAfterSeconds to forecast.';
        return;
      }
      const t = { ...this.target };
      delete t.whatIfSeconds;
      this.target = t;
      return;
    }
    const parsed = parseTTLDuration(text);
    if ('error' in parsed) {
      this.whatIfError = parsed.error;
      return;
    }
    this.target = { ...this.target, whatIfSeconds: parsed.seconds };
  }

  setHorizon(h: HorizonName): void {
    this.horizon = h;
  }

  private dispose(): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
    for (const w of this.renderWaiters.splice(0)) w.resolve();
    if (ForecastPanel.current === this) ForecastPanel.current = undefined;
  }

  close(): void {
    this.panel.dispose();
  }
}
