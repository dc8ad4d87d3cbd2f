/**
 * The chart panels' script (bundled into dist/forecast-view.js with uPlot, never fetched): one
 * bundle for both pages, which the page's `data-page` picks, so the library ships once.
 */
import 'uplot/dist/uPlot.min.css';
import type { FromView, HistoryFromView } from '../protocol';
import { startForecastPage } from './forecast-page';
import { startHistoryPage } from './history-page';

declare function acquireVsCodeApi(): { postMessage(message: FromView | HistoryFromView): void };
const vscode = acquireVsCodeApi();

if (document.body.dataset.page === 'history') {
  startHistoryPage((m) => vscode.postMessage(m));
} else {
  startForecastPage((m) => vscode.postMessage(m));
}
vscode.postMessage({ type: 'ready' });
