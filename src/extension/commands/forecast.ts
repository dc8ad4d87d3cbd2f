/**
 * Show Expiry Forecast: from a TTL index's context menu, the palette (pick the index), a Create /
 * Convert / Change preview (`openForecastPreview`: before vs after), or code:
 * `executeCommand('ttlWorkbench.showExpiryForecast', {db, collection, index, expireAfterSeconds?, horizon?})`.
 * Resolves once the panel has drawn, with the figures it shows; `{current: true}` answers what the
 * open panel shows now without changing it (`showTable: true | false` presses its table toggle first).
 */
import * as vscode from 'vscode';
import type { Document } from '../../engine';
import { isTTLIndexSpec } from '../../engine/ttl/validation';
import { isHorizonName, type HorizonName } from '../logic/forecast-chart';
import { describeIndex } from '../logic/index-description';
import type { CollectionInfo, IndexInfo } from '../backend/backend';
import { ForecastPanel, type ForecastPanelState, type ForecastTarget } from '../forecast/panel';
import {
  registerCommand,
  resolveIndex,
  WorkbenchError,
  type CommandResult,
  type Invocation,
  type Services,
} from './context';
import { secondsArg } from './collections';

export const SHOW_FORECAST = 'ttlWorkbench.showExpiryForecast';

function resultOf(state: ForecastPanelState): CommandResult {
  const { target, horizon, primary, before, rendered, error } = state;
  const base = { db: target.db, collection: target.collection, index: target.index, horizon };
  if (error) return { ok: false, ...base, message: error, rendered };
  return { ok: true, ...base, forecast: primary, before, rendered };
}

function describe(ix: IndexInfo, c: CollectionInfo) {
  const ts = c.options.timeseries as { timeField: string; metaField?: string } | undefined;
  return describeIndex(ix, { clustered: c.kind === 'clustered', ...(ts ? { timeseries: ts } : {}) });
}

async function targetOf(services: Services, inv: Invocation): Promise<ForecastTarget> {
  const a = inv.args;
  const whatIf = a.expireAfterSeconds ?? a.duration;
  const whatIfSeconds = whatIf === undefined ? undefined : Number(secondsArg(whatIf));
  if (whatIfSeconds !== undefined && !Number.isFinite(whatIfSeconds))
    throw new WorkbenchError(`expireAfterSeconds must be a number or a duration such as '1h' (got ${String(whatIf)}).`);
  const extra = {
    ...(whatIfSeconds !== undefined ? { whatIfSeconds } : {}),
    ...(a.partialFilterExpression !== null && typeof a.partialFilterExpression === 'object'
      ? { partialFilterExpression: a.partialFilterExpression as Document }
      : {}),
  };
  const n = inv.node;
  if (n?.type === 'collectionTTL') return { db: n.db, collection: n.collection, hasCurrentRule: true, ...extra };
  // A key pattern: an index that may not exist yet (Create TTL Index's preview).
  if (typeof a.db === 'string' && typeof a.collection === 'string' && a.key !== null && typeof a.key === 'object')
    return { db: a.db, collection: a.collection, index: a.key as Document, hasCurrentRule: false, ...extra };
  if (typeof a.db === 'string' && typeof a.collection === 'string' && a.index === undefined && !inv.interactive)
    return { db: a.db, collection: a.collection, hasCurrentRule: true, ...extra };
  const { collection, index } = await resolveIndex(
    services,
    inv,
    (i, c) => describe(i, c).ttlApplies || (whatIfSeconds !== undefined && describe(i, c).convertible),
    'a TTL index',
  );
  return {
    db: collection.db,
    collection: collection.name,
    index: index.name,
    hasCurrentRule: isTTLIndexSpec(index.spec),
    ...extra,
  };
}

async function showExpiryForecast(
  services: Services,
  extensionUri: vscode.Uri,
  inv: Invocation,
): Promise<CommandResult> {
  if (inv.args.current === true) {
    const open = ForecastPanel.open;
    if (!open) return { ok: false, message: 'No Expiry Forecast panel is open.' };
    // The table toggle, as a screen reader user would press it.
    if (typeof inv.args.showTable === 'boolean') await open.showTable(inv.args.showTable);
    return resultOf(await open.state());
  }
  const target = await targetOf(services, inv);
  const horizon: HorizonName = isHorizonName(inv.args.horizon) ? inv.args.horizon : '24h';
  const panel = await ForecastPanel.show(services.backend, extensionUri, target, horizon);
  return resultOf(await panel.state());
}

/**
 * A preview's "Show Forecast": the panel with the rule as it is (if any) and the new value
 * overlaid. Does not wait for the panel.
 */
export function openForecastPreview(args: {
  db: string;
  collection: string;
  /** An existing index's name, or the key of one to be created. */
  index: string | Document;
  expireAfterSeconds: number;
  partialFilterExpression?: Document;
}): void {
  const { index, ...rest } = args;
  void vscode.commands.executeCommand(
    SHOW_FORECAST,
    typeof index === 'string' ? { ...rest, index } : { ...rest, key: index },
  );
}

export function registerForecastCommands(services: Services, extensionUri: vscode.Uri): vscode.Disposable[] {
  return [
    registerCommand(services, {
      id: 'ttlWorkbench.showExpiryForecast',
      action: 'Show Expiry Forecast',
      run: (inv) => showExpiryForecast(services, extensionUri, inv),
    }),
    { dispose: () => ForecastPanel.open?.close() },
  ];
}
