/**
 * The Expiry Forecast panel: one webview that shows what a TTL rule (or a what-if value) makes
 * eligible per time bucket. The figures come from `Backend.forecast` (the engine host's thread);
 * this side only asks, builds the chart model (logic/forecast-chart.ts) and posts it. Backend
 * events (the clock moved, a pass ran, data changed) refresh it while it is open.
 */
import type * as vscode from 'vscode';
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
import { ChartPanel } from './chart-panel';
import { forecastPageHtml } from './html';
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

export class ForecastPanel extends ChartPanel<ForecastPanelState, ToView, FromView> {
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
      panel.close();
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

  private whatIfError: string | undefined;

  private constructor(
    backend: Backend,
    extensionUri: vscode.Uri,
    private target: ForecastTarget,
    private horizon: HorizonName,
  ) {
    super(
      backend,
      extensionUri,
      { viewType: 'ttlWorkbench.expiryForecast', title: 'Expiry Forecast', html: forecastPageHtml },
      { target, horizon },
    );
  }

  protected async compute(): Promise<void> {
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

  protected onPageMessage(m: Exclude<FromView, { type: 'ready' | 'rendered' }>): void {
    switch (m.type) {
      case 'horizon':
        this.horizon = m.horizon;
        void this.refresh();
        return;
      case 'whatIf':
        this.setWhatIf(m.text);
        void this.refresh();
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

  protected onDisposed(): void {
    if (ForecastPanel.current === this) ForecastPanel.current = undefined;
  }
}
