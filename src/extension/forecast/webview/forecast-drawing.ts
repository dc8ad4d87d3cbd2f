/**
 * The expiry forecast chart drawn with uPlot from the model of logic/forecast-chart.ts: bars per
 * bucket, the cumulative line, now, the monitor's passes and the visit cap. Shared by the Expiry
 * Forecast panel and the notebook renderer of `ttl.forecast(…)`, so both draw the same figures
 * the same way. It computes nothing: every figure is in the model.
 */
import uPlot from 'uplot';
import type { ChartModel } from '../../logic/forecast-chart';
import { fmt, legendItem, palette, type Palette } from './theme';

export const CHART_HEIGHT = 340;

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

function chartOptions(model: ChartModel, width: number, c: Palette): uPlot.Options {
  const bars = uPlot.paths.bars!({ align: -1, size: [0.9, Infinity] });
  const narrowBars = uPlot.paths.bars!({ align: -1, size: [0.5, Infinity] });
  const series: uPlot.Series[] = [{ label: 'time' }];
  if (model.before)
    series.push({
      label: model.before.label,
      scale: 'n',
      paths: bars,
      points: { show: false },
      stroke: c.purple,
      fill: `${c.purple}55`,
      width: 1,
    });
  series.push(
    {
      label: model.primary.label,
      scale: 'n',
      paths: model.before ? narrowBars : bars,
      points: { show: false },
      stroke: c.blue,
      fill: `${c.blue}99`,
      width: 1,
    },
    {
      label: `eligible by then (${model.primary.label})`,
      scale: 'c',
      stroke: c.orange,
      width: 3,
      points: { show: false },
    },
  );
  if (model.before)
    series.push({
      label: `eligible by then (${model.before.label})`,
      scale: 'c',
      stroke: c.yellow,
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
    height: CHART_HEIGHT,
    legend: { show: false },
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: {
      x: { time: true, range: () => [model.now / 1000, model.to[model.to.length - 1] / 1000] },
      n: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] },
      c: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] },
    },
    axes: [axis(), axis('n', 3), axis('c', 1)],
    series,
    hooks: { draw: [(u) => drawOverlays(u, model, c)] },
  };
}

/** The now marker, the monitor's passes and the visit cap where a bucket exceeds it. */
function drawOverlays(u: uPlot, model: ChartModel, c: Palette): void {
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
    ctx.strokeStyle = c.red;
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
  ctx.strokeStyle = c.green;
  ctx.lineWidth = 2 * devicePixelRatio;
  ctx.beginPath();
  ctx.moveTo(x, top);
  ctx.lineTo(x, top + height);
  ctx.stroke();
  ctx.fillStyle = c.green;
  ctx.font = `${12 * devicePixelRatio}px ${c.fontFamily}`;
  ctx.fillText(
    'now',
    Math.min(x + 4 * devicePixelRatio, left + width - 30 * devicePixelRatio),
    top + 12 * devicePixelRatio,
  );
  ctx.restore();
}

/** Draws the chart into `box` (replacing `previous`), in the theme's colours read at `themeFrom`. */
export function drawForecastChart(
  model: ChartModel,
  box: HTMLElement,
  width: number,
  previous?: uPlot,
  themeFrom?: Element,
): uPlot {
  previous?.destroy();
  return new uPlot(chartOptions(model, width, palette(themeFrom)), chartData(model), box);
}

/** The legend's entries for a model. */
export function forecastLegend(model: ChartModel, box: HTMLElement, themeFrom?: Element): void {
  const c = palette(themeFrom);
  const items: HTMLLIElement[] = [];
  if (model.before) items.push(legendItem(c.purple, `${model.before.label} (per bucket)`, 'bar'));
  items.push(
    legendItem(c.blue, `${model.primary.label} (per bucket)`, 'bar'),
    legendItem(c.orange, `eligible by then, ${model.primary.label}`, 'line'),
  );
  if (model.before) items.push(legendItem(c.yellow, `eligible by then, ${model.before.label}`, 'dash'));
  items.push(legendItem(c.green, 'now', 'line'));
  if (model.passTimes.length) items.push(legendItem(c.fg, 'TTL monitor passes', 'tick'));
  if (model.capPerBucket !== null && (model.primary.overCap.length || model.before?.overCap.length))
    items.push(legendItem(c.red, `visit cap: ${fmt(model.capPerBucket)} per bucket`, 'dash'));
  box.replaceChildren(...items);
}

/** The summary table beside the chart: one row per figure, before/after columns with a what-if. */
export function forecastSummary(model: ChartModel, head: HTMLElement, body: HTMLElement): void {
  const th = (text: string) => {
    const e = document.createElement('th');
    e.textContent = text;
    e.scope = 'col';
    return e;
  };
  head.replaceChildren(...['', ...(model.before ? ['Before', 'After'] : ['Documents'])].map(th));
  body.replaceChildren(
    ...model.summary.map((row) => {
      const tr = document.createElement('tr');
      const label = document.createElement('th');
      label.textContent = row.label;
      label.scope = 'row';
      tr.append(label);
      const td = (t: string) => {
        const e = document.createElement('td');
        e.textContent = t;
        return e;
      };
      if (model.before) tr.append(td(row.before ?? ''));
      tr.append(td(row.primary));
      return tr;
    }),
  );
}
