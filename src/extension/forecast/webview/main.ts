/**
 * The Expiry Forecast panel's page: draws the model the extension posts (logic/forecast-chart.ts)
 * with uPlot, in the theme's colours, and the same figures as a table. It computes nothing: every
 * figure comes from the engine through the extension. Bundled into dist/forecast-view.js.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ChartModel } from '../../logic/forecast-chart';
import type { FromView, RenderedView, ToView } from '../protocol';

declare function acquireVsCodeApi(): { postMessage(message: FromView): void };
const vscode = acquireVsCodeApi();
const post = (m: FromView) => vscode.postMessage(m);

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

let chart: uPlot | undefined;
let current: { model: ChartModel; seq: number } | undefined;
let tableShown = false;

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(name).trim();
  return v || fallback;
}

/** The theme's chart colours (VS Code sets these for light, dark and high contrast). */
function palette() {
  return {
    fg: cssVar('--vscode-charts-foreground', cssVar('--vscode-foreground', '#888')),
    lines: cssVar('--vscode-charts-lines', 'rgba(128,128,128,0.4)'),
    after: cssVar('--vscode-charts-blue', '#3794ff'),
    before: cssVar('--vscode-charts-purple', '#b180d7'),
    line: cssVar('--vscode-charts-orange', '#d18616'),
    lineBefore: cssVar('--vscode-charts-yellow', '#cca700'),
    cap: cssVar('--vscode-charts-red', '#f14c4c'),
    now: cssVar('--vscode-charts-green', '#89d185'),
    font: `${cssVar('--vscode-font-size', '13px')} ${cssVar('--vscode-font-family', 'sans-serif')}`,
  };
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

function chartData(model: ChartModel): uPlot.AlignedData {
  // One point at now (the cumulative line starts at dueNow), then one per bucket end.
  const x = [model.now / 1000, ...model.to.map((t) => t / 1000)];
  const cols: Array<Array<number | null>> = [
    [null, ...model.primary.counts],
    [model.primary.dueNow, ...model.primary.cumulative],
  ];
  if (model.before) {
    cols.unshift([null, ...model.before.counts]);
    cols.push([model.before.dueNow, ...model.before.cumulative]);
  }
  return [x, ...cols] as uPlot.AlignedData;
}

function chartOptions(model: ChartModel, width: number): uPlot.Options {
  const c = palette();
  const bars = uPlot.paths.bars!({ align: -1, size: [0.9, Infinity] });
  const narrowBars = uPlot.paths.bars!({ align: -1, size: [0.5, Infinity] });
  const series: uPlot.Series[] = [{ label: 'time' }];
  if (model.before)
    series.push({
      label: model.before.label,
      scale: 'n',
      paths: bars,
      points: { show: false },
      stroke: c.before,
      fill: `${c.before}55`,
      width: 1,
    });
  series.push(
    {
      label: model.primary.label,
      scale: 'n',
      paths: model.before ? narrowBars : bars,
      points: { show: false },
      stroke: c.after,
      fill: `${c.after}99`,
      width: 1,
    },
    {
      label: `eligible by then (${model.primary.label})`,
      scale: 'c',
      stroke: c.line,
      width: 3,
      points: { show: false },
    },
  );
  if (model.before)
    series.push({
      label: `eligible by then (${model.before.label})`,
      scale: 'c',
      stroke: c.lineBefore,
      width: 2,
      dash: [6, 4],
      points: { show: false },
    });
  const axis = (scale?: string, side?: 1 | 3): uPlot.Axis => ({
    ...(scale ? { scale } : {}),
    ...(side ? { side } : {}),
    stroke: c.fg,
    font: c.font,
    grid: { stroke: c.lines, width: 1, show: scale !== 'c' },
    ticks: { stroke: c.lines, width: 1 },
    ...(scale ? { values: (_u: uPlot, vals: number[]) => vals.map((v) => fmt(v)), size: 84 } : {}),
  });
  return {
    width,
    height: 340,
    legend: { show: false },
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: {
      x: { time: true, range: () => [model.now / 1000, model.to[model.to.length - 1] / 1000] },
      n: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] },
      c: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] },
    },
    axes: [axis(), axis('n', 3), axis('c', 1)],
    series,
    hooks: { draw: [(u) => drawOverlays(u, model)] },
  };
}

/** The now marker, the monitor's passes and the visit cap where a bucket exceeds it. */
function drawOverlays(u: uPlot, model: ChartModel): void {
  const c = palette();
  const ctx = u.ctx;
  const { left, top, width, height } = u.bbox;
  const px = (t: number) => u.valToPos(t / 1000, 'x', true);
  ctx.save();
  // Passes: short ticks along the bottom edge.
  ctx.strokeStyle = c.fg;
  ctx.globalAlpha = 0.6;
  ctx.lineWidth = 1;
  for (const t of model.passTimes) {
    const x = px(t);
    ctx.beginPath();
    ctx.moveTo(x, top + height);
    ctx.lineTo(x, top + height - 6 * devicePixelRatio);
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
  // The cap, over each bucket that exceeds it.
  if (model.capPerBucket !== null) {
    const y = u.valToPos(model.capPerBucket, 'n', true);
    const over = new Set([...model.primary.overCap, ...(model.before?.overCap ?? [])]);
    ctx.strokeStyle = c.cap;
    ctx.lineWidth = 2 * devicePixelRatio;
    ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
    for (const i of over) {
      ctx.beginPath();
      ctx.moveTo(px(model.from[i]), y);
      ctx.lineTo(px(model.to[i]), y);
      ctx.stroke();
    }
    ctx.setLineDash([]);
  }
  // Now.
  const x = px(model.now);
  ctx.strokeStyle = c.now;
  ctx.lineWidth = 2 * devicePixelRatio;
  ctx.beginPath();
  ctx.moveTo(x, top);
  ctx.lineTo(x, top + height);
  ctx.stroke();
  ctx.fillStyle = c.now;
  ctx.font = `${12 * devicePixelRatio}px ${cssVar('--vscode-font-family', 'sans-serif')}`;
  ctx.fillText(
    'now',
    Math.min(x + 4 * devicePixelRatio, left + width - 30 * devicePixelRatio),
    top + 12 * devicePixelRatio,
  );
  ctx.restore();
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function legend(model: ChartModel): void {
  const c = palette();
  const box = $('legend');
  box.replaceChildren();
  const item = (color: string, text: string, kind: 'bar' | 'line' | 'dash' | 'tick') => {
    const li = el('li');
    const sw = el('span', undefined, `swatch ${kind}`);
    sw.style.setProperty('--swatch', color);
    li.append(sw, el('span', text));
    box.append(li);
  };
  if (model.before) item(c.before, `${model.before.label} (per bucket)`, 'bar');
  item(c.after, `${model.primary.label} (per bucket)`, 'bar');
  item(c.line, `eligible by then, ${model.primary.label}`, 'line');
  if (model.before) item(c.lineBefore, `eligible by then, ${model.before.label}`, 'dash');
  item(c.now, 'now', 'line');
  if (model.passTimes.length) item(c.fg, 'TTL monitor passes', 'tick');
  if (model.capPerBucket !== null && (model.primary.overCap.length || model.before?.overCap.length))
    item(c.cap, `visit cap: ${fmt(model.capPerBucket)} per bucket`, 'dash');
}

function renderTables(model: ChartModel): void {
  const summary = $('summary-body');
  summary.replaceChildren();
  $('summary-head').replaceChildren(
    ...['', ...(model.before ? ['Before', 'After'] : ['Documents'])].map((h) => {
      const th = el('th', h);
      th.scope = 'col';
      return th;
    }),
  );
  for (const row of model.summary) {
    const tr = el('tr');
    const th = el('th', row.label);
    th.scope = 'row';
    tr.append(th);
    if (model.before) tr.append(el('td', row.before ?? ''));
    tr.append(el('td', row.primary));
    summary.append(tr);
  }
  $('table-caption').textContent = model.table.caption;
  $('table-head').replaceChildren(
    ...model.table.headers.map((h) => {
      const th = el('th', h);
      th.scope = 'col';
      return th;
    }),
  );
  const body = $('table-body');
  body.replaceChildren(
    ...model.table.rows.map((r) => {
      const tr = el('tr');
      tr.append(...r.map((cell) => el('td', cell)));
      return tr;
    }),
  );
}

function showTable(show: boolean): void {
  tableShown = show;
  $('table-area').hidden = !show;
  $('chart-area').hidden = show;
  const button = $<HTMLButtonElement>('toggle-table');
  button.setAttribute('aria-pressed', String(show));
  button.textContent = show ? 'Show as chart' : 'Show as table';
}

function drawChart(): void {
  if (!current) return;
  const box = $('chart');
  const width = Math.max(320, box.clientWidth || 600);
  chart?.destroy();
  chart = new uPlot(chartOptions(current.model, width), chartData(current.model), box);
}

function report(seq: number, error?: string): void {
  const cells = (sel: string) =>
    Array.from(document.querySelectorAll<HTMLTableRowElement>(sel)).map((tr) =>
      Array.from(tr.cells).map((c) => c.textContent ?? ''),
    );
  const view: RenderedView = {
    seq,
    title: $('title').textContent ?? '',
    summary: cells('#summary-body tr'),
    headers: Array.from(document.querySelectorAll('#table-head th')).map((t) => t.textContent ?? ''),
    rows: cells('#table-body tr'),
    tableShown,
    chartPoints: chart ? chart.data[0].length - 1 : 0,
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
  const warnings = $('warnings');
  warnings.replaceChildren(...model.warnings.map((w) => el('li', w)));
  for (const b of document.querySelectorAll<HTMLButtonElement>('[data-horizon]'))
    b.setAttribute('aria-pressed', String(b.dataset.horizon === model.horizon));
  const input = $<HTMLInputElement>('what-if');
  if (document.activeElement !== input) input.value = message.whatIfText;
  $('what-if-error').textContent = message.whatIfError ?? '';
  $('chart-area').setAttribute(
    'aria-label',
    `${model.title}. ${model.summary.map((s) => `${s.label}: ${s.primary}`).join('; ')}. Use "Show as table" for every bucket.`,
  );
  legend(model);
  renderTables(model);
  drawChart();
  report(message.seq);
}

window.addEventListener('message', (event: MessageEvent<ToView>) => {
  const m = event.data;
  if (m.type === 'state') render(m);
  else {
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
  if (!tableShown) drawChart();
  if (current) report(current.seq);
});

// Follow the width of the panel and theme changes (VS Code swaps the body's classes and variables).
let resizeTimer: ReturnType<typeof setTimeout> | undefined;
new ResizeObserver(() => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    if (chart && !tableShown) chart.setSize({ width: Math.max(320, $('chart').clientWidth), height: 340 });
  }, 100);
}).observe($('chart'));
new MutationObserver(() => {
  if (current && !tableShown) {
    drawChart();
    legend(current.model);
  }
}).observe(document.body, { attributes: true, attributeFilter: ['class'] });

post({ type: 'ready' });
