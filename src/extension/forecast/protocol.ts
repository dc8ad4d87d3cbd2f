/**
 * The messages between the chart panels (extension side: panel.ts, history-panel.ts) and their
 * webview pages (webview/forecast-page.ts, webview/history-page.ts). No `vscode`, no DOM: both
 * sides import it.
 */
import type { ChartModel, HorizonName } from '../logic/forecast-chart';
import type { HistoryModel, HistorySize } from '../logic/history-chart';

/** Extension → either page: show the table (true) or the chart, as the toggle button does. */
export type ShowTable = { type: 'showTable'; show: boolean };

/** Extension → webview. */
export type ToView =
  | {
      type: 'state';
      model: ChartModel;
      /** The what-if box's text as the extension understood it ('' for none). */
      whatIfText: string;
      /** Why the what-if text was not used, if it was not. */
      whatIfError?: string;
      /** A counter: the webview echoes it in `rendered`, so a caller knows which state is drawn. */
      seq: number;
    }
  | { type: 'error'; message: string; seq: number }
  | ShowTable;

/** What the webview shows, read back from its own DOM after drawing (tests and the panel's state). */
export interface RenderedView {
  seq: number;
  title: string;
  /** The summary beside the chart: [label, value, (before)]. */
  summary: string[][];
  /** The accessible table's header and body cells. */
  headers: string[];
  rows: string[][];
  /** Whether the table (true) or the chart (false) is showing. */
  tableShown: boolean;
  /** The table's rows as far as they are shown (none while the chart is): what a screen reader reads. */
  visibleRows: string[][];
  /** Bars drawn on the canvas (the chart's series lengths), for a sanity check. */
  chartPoints: number;
  error?: string;
}

/** Webview → extension. */
export type FromView =
  | { type: 'ready' }
  | { type: 'horizon'; horizon: HorizonName }
  | { type: 'whatIf'; text: string }
  | { type: 'rendered'; view: RenderedView };

/** Extension → the TTL Monitor History page. */
export type HistoryToView =
  { type: 'state'; model: HistoryModel; seq: number } | { type: 'error'; message: string; seq: number } | ShowTable;

/** The TTL Monitor History page → extension. */
export type HistoryFromView =
  { type: 'ready' } | { type: 'size'; size: HistorySize } | { type: 'rendered'; view: RenderedView };
