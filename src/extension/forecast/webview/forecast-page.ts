/**
 * The Expiry Forecast panel's page: draws the model the extension posts (logic/forecast-chart.ts)
 * with the shared drawing (forecast-drawing.ts), and the same figures as a table behind a toggle.
 */
import type uPlot from 'uplot';
import type { ChartModel } from '../../logic/forecast-chart';
import type { FromView, RenderedView, ToView } from '../protocol';
import { CHART_HEIGHT, drawForecastChart, forecastLegend, forecastSummary } from './forecast-drawing';
import { byId as $, cellsOf, el, fillTable, isShown } from './theme';

export function startForecastPage(post: (m: FromView) => void): void {
  let chart: uPlot | undefined;
  let current: { model: ChartModel; seq: number } | undefined;
  let tableShown = false;

  function showTable(show: boolean): void {
    tableShown = show;
    $('table-area').hidden = !show;
    $('chart-area').hidden = show;
    const button = $<HTMLButtonElement>('toggle-table');
    button.setAttribute('aria-pressed', String(show));
    button.textContent = show ? 'Show as chart' : 'Show as table';
    if (!show) drawChart();
  }

  function drawChart(): void {
    if (!current) return;
    const box = $('chart');
    chart = drawForecastChart(current.model, box, Math.max(320, box.clientWidth || 600), chart);
  }

  function report(seq: number, error?: string): void {
    const rows = cellsOf(document.querySelectorAll<HTMLTableRowElement>('#table-body tr'));
    const view: RenderedView = {
      seq,
      title: $('title').textContent ?? '',
      summary: cellsOf(document.querySelectorAll<HTMLTableRowElement>('#summary-body tr')),
      headers: Array.from(document.querySelectorAll('#table-head th')).map((t) => t.textContent ?? ''),
      rows,
      tableShown,
      visibleRows: isShown($('table-area')) ? rows : [],
      chartPoints: chart && isShown($('chart-area')) ? chart.data[0].length - 1 : 0,
      ...(error ? { error } : {}),
    };
    post({ type: 'rendered', view });
  }

  function render(message: Extract<ToView, { type: 'state' }>): void {
    const { model } = message;
    current = { model, seq: message.seq };
    $('title').textContent = model.title;
    $('subtitle').textContent = model.subtitle;
    $('cadence').textContent = model.cadence;
    $('error').hidden = true;
    $('content').hidden = false;
    $('warnings').replaceChildren(...model.warnings.map((w) => el('li', w)));
    for (const b of document.querySelectorAll<HTMLButtonElement>('[data-horizon]'))
      b.setAttribute('aria-pressed', String(b.dataset.horizon === model.horizon));
    const input = $<HTMLInputElement>('what-if');
    if (document.activeElement !== input) input.value = message.whatIfText;
    $('what-if-error').textContent = message.whatIfError ?? '';
    $('chart-area').setAttribute(
      'aria-label',
      `${model.title}. ${model.summary.map((s) => `${s.label}: ${s.primary}`).join('; ')}. Use "Show as table" for every bucket.`,
    );
    forecastLegend(model, $('legend'));
    forecastSummary(model, $('summary-head'), $('summary-body'));
    $('table-caption').textContent = model.table.caption;
    fillTable($('table-head'), $('table-body'), model.table.headers, model.table.rows);
    if (!tableShown) drawChart();
    report(message.seq);
  }

  window.addEventListener('message', (event: MessageEvent<ToView>) => {
    const m = event.data;
    if (m.type === 'state') render(m);
    else if (m.type === 'showTable') {
      // The same path as the toggle button (tests drive it through the panel).
      if (m.show !== tableShown) $('toggle-table').click();
      else if (current) report(current.seq);
    } else {
      $('error').textContent = m.message;
      $('error').hidden = false;
      $('content').hidden = true;
      report(m.seq, m.message);
    }
  });

  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-horizon]'))
    b.addEventListener('click', () => {
      const h = b.dataset.horizon;
      if (h === '24h' || h === '7d' || h === '30d') post({ type: 'horizon', horizon: h });
    });
  $('what-if-form').addEventListener('submit', (e) => {
    e.preventDefault();
    post({ type: 'whatIf', text: $<HTMLInputElement>('what-if').value });
  });
  $('what-if-clear').addEventListener('click', () => {
    $<HTMLInputElement>('what-if').value = '';
    post({ type: 'whatIf', text: '' });
  });
  $('toggle-table').addEventListener('click', () => {
    showTable(!tableShown);
    if (current) report(current.seq);
  });

  // Follow the width of the panel and theme changes (VS Code swaps the body's classes and variables).
  let resizeTimer: ReturnType<typeof setTimeout> | undefined;
  new ResizeObserver(() => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      if (chart && !tableShown) chart.setSize({ width: Math.max(320, $('chart').clientWidth), height: CHART_HEIGHT });
    }, 100);
  }).observe($('chart'));
  new MutationObserver(() => {
    if (current && !tableShown) {
      drawChart();
      forecastLegend(current.model, $('legend'));
    }
  }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
}
