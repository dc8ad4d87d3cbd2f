/**
 * The messages between the Expiry Forecast panel (extension side, panel.ts) and its webview
 * (webview/main.ts). No `vscode`, no DOM: both sides import it.
 */
import type { ChartModel, HorizonName } from '../logic/forecast-chart';

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
  | { type: 'error'; message: string; seq: number };

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
