/**
 * A `ttl.forecast(…)` result carries, out of sight, what a playground needs to draw it as a chart
 * beside its figures: the namespace and the TTL monitor's cadence and visit cap when it was
 * computed. The value itself stays the engine's forecast (mongosh's rendering and EJSON ignore a
 * symbol key), so the CLI prints it as text and a notebook adds the chart (cell-outputs.ts).
 */

/** The monitor as the chart needs it (logic/forecast-chart.ts's MonitorFacts). */
export interface ForecastMonitorFacts {
  sleepSecs: number;
  /** Milliseconds since the epoch, or null when no pass is scheduled. */
  nextPassAt: number | null;
  enabled: boolean;
  /** Documents per index per visit (ttlIndexDeleteTargetDocs; 0 = no cap). */
  visitCap: number;
}

export interface ForecastContext {
  db: string;
  collection: string;
  monitor: ForecastMonitorFacts;
}

const CONTEXT = Symbol('ttlWorkbench.forecastContext');

/** Marks a forecast value with its context (a key no script enumerates or copies). */
export function markForecast<T extends object>(value: T, context: ForecastContext): T {
  Object.defineProperty(value, CONTEXT, { value: context, enumerable: false });
  return value;
}

/** The context of a value `ttl.forecast` returned, if it is one. */
export function forecastContextOf(value: unknown): ForecastContext | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  return (value as { [CONTEXT]?: ForecastContext })[CONTEXT];
}
