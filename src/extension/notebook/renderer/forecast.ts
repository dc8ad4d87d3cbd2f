/**
 * The notebook renderer for `ttl.forecast(…)` (mime application/vnd.ttl-workbench.forecast+json):
 * the Expiry Forecast panel's chart (the same drawing, forecast-drawing.ts, and the same model,
 * logic/forecast-chart.ts) with its totals, warnings and a table toggle, in the notebook's
 * webview. A browser ES module bundled by esbuild.js into dist/forecast-renderer.js with uPlot and
 * its stylesheet inside: nothing is fetched. Text is set as textContent only. When the extension
 * side listens (renderer messaging), it reports what it drew, as the panel does.
 */
import type uPlot from 'uplot';
import uplotCss from 'uplot/dist/uPlot.min.css';
import { buildChartModel, toFigures, type ForecastLike, type MonitorFacts } from '../../logic/forecast-chart';
import {
  CHART_HEIGHT,
  drawForecastChart,
  forecastLegend,
  forecastSummary,
} from '../../forecast/webview/forecast-drawing';
import { cellsOf, el, fillTable, isShown } from '../../forecast/webview/theme';

interface OutputItem {
  readonly id: string;
  readonly mime: string;
  json(): unknown;
}

interface RendererContext {
  postMessage?(message: unknown): void;
}

/** What the extension puts in the output (logic/playground-outputs.ts). */
interface ForecastOutput {
  db: string;
  collection: string;
  monitor: MonitorFacts;
  forecast: ForecastLike;
}

const STYLE = `
.ttlw-forecast { color: var(--vscode-foreground); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); padding: 4px 0; }
.ttlw-forecast h3 { font-size: 1.1em; margin: 2px 0; font-weight: 600; }
.ttlw-forecast .sub, .ttlw-forecast .cadence { color: var(--vscode-descriptionForeground); margin: 2px 0 6px; }
.ttlw-forecast .layout { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.ttlw-forecast .chart-area { flex: 1 1 480px; min-width: 320px; }
.ttlw-forecast .table-area { max-height: 420px; overflow: auto; }
.ttlw-forecast table { border-collapse: collapse; }
.ttlw-forecast th, .ttlw-forecast td { padding: 2px 10px; text-align: right; border-bottom: 1px solid var(--vscode-editorWidget-border, rgba(128,128,128,0.35)); }
.ttlw-forecast th[scope="row"], .ttlw-forecast caption { text-align: left; }
.ttlw-forecast caption { color: var(--vscode-descriptionForeground); padding: 4px 0; }
.ttlw-forecast button { color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); border: 1px solid var(--vscode-button-border, transparent); padding: 2px 10px; cursor: pointer; font: inherit; margin: 4px 0; }
.ttlw-forecast button:focus-visible { outline: 1px solid var(--vscode-focusBorder); }
.ttlw-forecast ul.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 6px 0; }
.ttlw-forecast .swatch { display: inline-block; width: 14px; margin-right: 6px; vertical-align: middle; }
.ttlw-forecast .swatch.bar { height: 10px; background: var(--swatch); }
.ttlw-forecast .swatch.line { height: 0; border-top: 2px solid var(--swatch); }
.ttlw-forecast .swatch.dash { height: 0; border-top: 2px dashed var(--swatch); }
.ttlw-forecast .swatch.tick { height: 8px; width: 0; border-left: 1px solid var(--swatch); margin: 0 12px 0 6px; }
.ttlw-forecast ul.warnings { color: var(--vscode-editorWarning-foreground); padding-left: 18px; margin: 4px 0; }
.ttlw-forecast .uplot { font-family: var(--vscode-font-family); }
`;

function isForecastOutput(v: unknown): v is ForecastOutput {
  const o = v as Partial<ForecastOutput> | null;
  return !!o && typeof o === 'object' && typeof o.db === 'string' && !!o.forecast && !!o.monitor;
}

function render(item: OutputItem, element: HTMLElement, context: RendererContext): () => void {
  const payload = item.json();
  if (!isForecastOutput(payload)) throw new Error('the output holds no forecast');
  const model = buildChartModel({
    db: payload.db,
    collection: payload.collection,
    horizon: 'custom',
    primary: toFigures(payload.forecast),
    monitor: payload.monitor,
  });
  const root = el('div', undefined, 'ttlw-forecast');
  const style = el('style', `${uplotCss}\n${STYLE}`);
  const toggle = el('button', 'Show as table');
  toggle.type = 'button';
  toggle.setAttribute('aria-pressed', 'false');
  const chartArea = el('section', undefined, 'chart-area');
  chartArea.setAttribute('role', 'img');
  chartArea.setAttribute(
    'aria-label',
    `${model.title}. ${model.summary.map((s) => `${s.label}: ${s.primary}`).join('; ')}. Use "Show as table" for every bucket.`,
  );
  const chartBox = el('div');
  const legend = el('ul', undefined, 'legend');
  chartArea.append(chartBox, legend);
  const tableArea = el('section', undefined, 'table-area');
  tableArea.hidden = true;
  const table = el('table');
  const head = el('tr');
  const body = el('tbody');
  const thead = el('thead');
  thead.append(head);
  table.append(el('caption', model.table.caption), thead, body);
  tableArea.append(table);
  fillTable(head, body, model.table.headers, model.table.rows);
  const summaryHead = el('tr');
  const summaryBody = el('tbody');
  const summary = el('table');
  summary.setAttribute('aria-label', 'Forecast totals');
  const summaryThead = el('thead');
  summaryThead.append(summaryHead);
  summary.append(summaryThead, summaryBody);
  forecastSummary(model, summaryHead, summaryBody);
  const layout = el('div', undefined, 'layout');
  const aside = el('aside');
  aside.append(summary);
  layout.append(chartArea, tableArea, aside);
  const warnings = el('ul', undefined, 'warnings');
  warnings.append(...model.warnings.map((w) => el('li', w)));
  root.append(
    el('h3', model.title),
    el('p', model.subtitle, 'sub'),
    toggle,
    layout,
    el('p', model.cadence, 'cadence'),
    warnings,
  );
  element.replaceChildren(style, root);

  let chart: uPlot | undefined;
  const width = () => Math.max(320, chartBox.clientWidth || element.clientWidth || 600);
  const draw = () => {
    chart = drawForecastChart(model, chartBox, width(), chart, element);
    forecastLegend(model, legend, element);
  };
  const report = () =>
    context.postMessage?.({
      type: 'rendered',
      outputId: item.id,
      view: {
        title: model.title,
        summary: cellsOf(summaryBody.rows),
        headers: Array.from(head.cells).map((c) => c.textContent ?? ''),
        rows: cellsOf(body.rows),
        tableShown: !tableArea.hidden,
        visibleRows: isShown(tableArea) ? cellsOf(body.rows) : [],
        chartPoints: chart && isShown(chartArea) ? chart.data[0].length - 1 : 0,
      },
    });
  toggle.addEventListener('click', () => {
    const show = tableArea.hidden;
    tableArea.hidden = !show;
    chartArea.hidden = show;
    toggle.setAttribute('aria-pressed', String(show));
    toggle.textContent = show ? 'Show as chart' : 'Show as table';
    if (!show) draw();
    report();
  });
  draw();
  report();
  // Follow the output's width (the notebook resizes with its editor).
  let timer: ReturnType<typeof setTimeout> | undefined;
  const resize = new ResizeObserver(() => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (chart && !chartArea.hidden) chart.setSize({ width: width(), height: CHART_HEIGHT });
    }, 100);
  });
  resize.observe(chartBox);
  return () => {
    resize.disconnect();
    chart?.destroy();
  };
}

export function activate(context: RendererContext) {
  const disposers = new Map<string, () => void>();
  return {
    renderOutputItem(item: OutputItem, element: HTMLElement) {
      disposers.get(item.id)?.();
      try {
        disposers.set(item.id, render(item, element, context));
      } catch (err) {
        const pre = document.createElement('pre');
        pre.textContent = `TTL Workbench could not draw this forecast: ${(err as Error).message}. Its figures are in the JSON and text views of this output.`;
        element.replaceChildren(pre);
      }
    },
    disposeOutputItem(id?: string) {
      if (id === undefined) {
        for (const d of disposers.values()) d();
        disposers.clear();
      } else {
        disposers.get(id)?.();
        disposers.delete(id);
      }
    },
  };
}
