/**
 * The TTL Monitor History panel's page: two charts over the last N passes, sharing the pass axis
 * and the cursor — documents (deleted per pass as bars, the backlog left after it as a line) and
 * work (time taken as bars, sub-passes as steps) — and the same figures as a table behind a
 * toggle. Every figure comes from the model the extension posts (logic/history-chart.ts).
 */
import uPlot from 'uplot';
import type { HistoryModel } from '../../logic/history-chart';
import type { HistoryFromView, HistoryToView, RenderedView } from '../protocol';
import { byId as $, cellsOf, el, fillTable, fmt, isShown, legendItem, palette, type Palette } from './theme';

const HEIGHT = 220;

/** `12:34:56` of a pass, the x axis' labels (passes are spaced by the index, not by time). */
function clockText(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

function options(
  model: HistoryModel,
  width: number,
  c: Palette,
  which: 'documents' | 'work',
  sync: uPlot.SyncPubSub,
): uPlot.Options {
  const bars = uPlot.paths.bars!({ size: [0.6, 48] });
  const steps = uPlot.paths.stepped!({ align: 1 });
  const counts = (_u: uPlot, vals: number[]) => vals.map((v) => (Number.isInteger(v) ? fmt(v) : ''));
  const passLabel = (_u: uPlot, vals: number[]) =>
    vals.map((v) => (Number.isInteger(v) && model.points[v - 1] ? clockText(model.points[v - 1].startedAt) : ''));
  const axis = (scale: string | undefined, side: 1 | 3 | undefined, label: string): uPlot.Axis => ({
    ...(scale ? { scale, label, labelFont: c.font } : { space: 90, incrs: [1, 2, 5, 10, 20, 50, 100] }),
    ...(side ? { side } : {}),
    // Both charts keep the same axis widths, so their passes line up one above the other.
    size: side === 1 ? 60 : scale ? 70 : 40,
    stroke: c.fg,
    font: c.font,
    grid: { stroke: c.lines, width: 1, show: side !== 1 },
    ticks: { stroke: c.lines, width: 1, show: label !== '' || !scale },
    values: scale ? (label === '' ? () => [] : counts) : passLabel,
  });
  const series: uPlot.Series[] =
    which === 'documents'
      ? [
          { label: 'pass' },
          {
            label: 'deleted',
            scale: 'n',
            paths: bars,
            points: { show: false },
            stroke: c.blue,
            fill: `${c.blue}aa`,
            width: 1,
          },
          { label: 'backlog after', scale: 'n', stroke: c.red, width: 2, points: { show: true, size: 5, fill: c.red } },
        ]
      : [
          { label: 'pass' },
          {
            label: 'time taken (ms)',
            scale: 'ms',
            paths: bars,
            points: { show: false },
            stroke: c.purple,
            fill: `${c.purple}99`,
            width: 1,
          },
          { label: 'sub-passes', scale: 's', paths: steps, stroke: c.orange, width: 2, points: { show: false } },
        ];
  return {
    width,
    height: HEIGHT,
    legend: { show: false },
    cursor: { sync: { key: sync.key } },
    scales: {
      x: { time: false, range: () => [0.5, Math.max(1, model.points.length) + 0.5] },
      n: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.15] },
      ms: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.15] },
      s: { range: (_u, _min, max) => [0, Math.max(2, Math.ceil(max * 1.15))] },
    },
    axes:
      which === 'documents'
        ? [axis(undefined, undefined, ''), axis('n', 3, 'documents'), axis('n', 1, '')]
        : [axis(undefined, undefined, ''), axis('ms', 3, 'ms'), axis('s', 1, 'sub-passes')],
    series,
  };
}

function data(model: HistoryModel, which: 'documents' | 'work'): uPlot.AlignedData {
  const x = model.points.map((_p, i) => i + 1);
  return which === 'documents'
    ? [x, model.points.map((p) => p.deleted), model.points.map((p) => p.backlog)]
    : [x, model.points.map((p) => p.millis), model.points.map((p) => p.subPasses)];
}

export function startHistoryPage(post: (m: HistoryFromView) => void): void {
  let charts: uPlot[] = [];
  let current: { model: HistoryModel; seq: number } | undefined;
  let tableShown = false;
  const sync = uPlot.sync('ttl-history');

  function drawCharts(): void {
    for (const ch of charts) ch.destroy();
    charts = [];
    if (!current) return;
    const c = palette();
    const width = Math.max(320, $('chart-documents').clientWidth || 600);
    charts = (['documents', 'work'] as const).map(
      (which) =>
        new uPlot(options(current!.model, width, c, which, sync), data(current!.model, which), $(`chart-${which}`)),
    );
    $('legend').replaceChildren(
      legendItem(c.blue, 'deleted in the pass', 'bar'),
      legendItem(c.red, 'backlog: eligible documents left after it', 'line'),
      legendItem(c.purple, 'time taken (ms)', 'bar'),
      legendItem(c.orange, 'sub-passes', 'line'),
    );
  }

  function showTable(show: boolean): void {
    tableShown = show;
    $('table-area').hidden = !show;
    $('chart-area').hidden = show;
    const button = $<HTMLButtonElement>('toggle-table');
    button.setAttribute('aria-pressed', String(show));
    button.textContent = show ? 'Show as chart' : 'Show as table';
    if (!show) drawCharts();
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
      chartPoints: charts.length && isShown($('chart-area')) ? charts[0].data[0].length : 0,
      ...(error ? { error } : {}),
    };
    post({ type: 'rendered', view });
  }

  function render(model: HistoryModel, seq: number): void {
    current = { model, seq };
    $('title').textContent = model.title;
    $('subtitle').textContent = model.subtitle;
    $('cadence').textContent = model.cadence;
    $('error').hidden = true;
    $('content').hidden = false;
    $('warnings').replaceChildren(...model.warnings.map((w) => el('li', w)));
    for (const b of document.querySelectorAll<HTMLButtonElement>('[data-size]'))
      b.setAttribute('aria-pressed', String(Number(b.dataset.size) === model.size));
    $('chart-area').setAttribute(
      'aria-label',
      `${model.title}. ${model.summary.map((s) => `${s.label}: ${s.value}`).join('; ')}. Use "Show as table" for every pass.`,
    );
    $('summary-body').replaceChildren(
      ...model.summary.map((s) => {
        const tr = el('tr');
        const th = el('th', s.label);
        th.scope = 'row';
        tr.append(th, el('td', s.value));
        return tr;
      }),
    );
    $('table-caption').textContent = model.table.caption;
    fillTable($('table-head'), $('table-body'), model.table.headers, model.table.rows);
    if (!tableShown) drawCharts();
    report(seq);
  }

  window.addEventListener('message', (event: MessageEvent<HistoryToView>) => {
    const m = event.data;
    if (m.type === 'state') render(m.model, m.seq);
    else if (m.type === 'showTable') {
      if (m.show !== tableShown) $('toggle-table').click();
      else if (current) report(current.seq);
    } else {
      $('error').textContent = m.message;
      $('error').hidden = false;
      $('content').hidden = true;
      report(m.seq, m.message);
    }
  });

  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-size]'))
    b.addEventListener('click', () => {
      const n = Number(b.dataset.size);
      if (n === 20 || n === 50 || n === 200) post({ type: 'size', size: n });
    });
  $('toggle-table').addEventListener('click', () => {
    showTable(!tableShown);
    if (current) report(current.seq);
  });

  let resizeTimer: ReturnType<typeof setTimeout> | undefined;
  new ResizeObserver(() => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      const width = Math.max(320, $('chart-documents').clientWidth);
      if (!tableShown) for (const ch of charts) ch.setSize({ width, height: HEIGHT });
    }, 100);
  }).observe($('chart-documents'));
  new MutationObserver(() => {
    if (current && !tableShown) drawCharts();
  }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
}
