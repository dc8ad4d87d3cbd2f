// The Expiry Forecast panel in a real VS Code: opened from a TTL index's tree node and from a
// Change expireAfterSeconds preview (before vs after), its figures read back from the webview's
// own table equal Backend.forecast, and moving the virtual clock redraws it. Screenshots of the
// panel in a dark and a light theme.
import * as assert from 'node:assert/strict';
import { suite, suiteSetup, suiteTeardown, test } from 'mocha';
import * as vscode from 'vscode';
import type { TTLWorkbenchApi } from '../../../src/extension/api';
import type { ForecastRequest } from '../../../src/engine/ttl/forecast';
import type { RenderedView } from '../../../src/extension/forecast/protocol';
import type { ForecastFigures } from '../../../src/extension/logic/forecast-chart';
import { screenshot } from './index';
import { treeRows, type Row } from './tree-rows';
import { until } from './wait';

const EXTENSION_ID = 'ttl-workbench.ttl-workbench';
const DB = 'forecastit';
const HOUR = 3600_000;
let api: TTLWorkbenchApi;

interface ForecastResult {
  ok: boolean;
  db: string;
  collection: string;
  horizon: string;
  forecast?: ForecastFigures;
  before?: ForecastFigures;
  rendered?: RenderedView;
  message?: string;
}

async function show(arg: unknown): Promise<ForecastResult> {
  const r = await vscode.commands.executeCommand<ForecastResult>('ttlWorkbench.showExpiryForecast', arg);
  assert.ok(r && r.ok, `showExpiryForecast failed: ${JSON.stringify(r)}`);
  return r;
}

const count = (text: string) => Number(text.replace(/,/g, ''));

/** The bucket counts of one table column, as the webview shows them. */
function column(view: RenderedView, header: string): number[] {
  const i = view.headers.indexOf(header);
  assert.ok(i >= 0, `no "${header}" column in ${JSON.stringify(view.headers)}`);
  return view.rows.map((r) => count(r[i]));
}

function summary(view: RenderedView, label: string, col = 1): number {
  const row = view.summary.find((r) => r[0] === label);
  assert.ok(row, `no "${label}" in the summary ${JSON.stringify(view.summary)}`);
  return count(row[col]);
}

async function expected(collection: string, request: ForecastRequest) {
  return api.backend.forecast(DB, collection, { horizonMs: 24 * HOUR, buckets: 24, ...request });
}

async function findRow(parent: Row | undefined, label: string): Promise<Row> {
  const kids = await treeRows(api, parent?.node);
  const found = kids.find((r) => r.label === label || r.label.startsWith(`${label} `));
  assert.ok(found, `no "${label}" in ${kids.map((k) => k.label).join(', ')}`);
  return found;
}

async function setTheme(theme: string): Promise<void> {
  await vscode.workspace.getConfiguration('workbench').update('colorTheme', theme, vscode.ConfigurationTarget.Global);
}

suite('Expiry Forecast panel', () => {
  let now: number;

  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<TTLWorkbenchApi>(EXTENSION_ID);
    assert.ok(ext);
    api = await ext.activate();
    await api.backend.runCommand(DB, { dropDatabase: 1 });
    now = (await api.backend.clock()).now.getTime();
    // events: one document expiring every 5 minutes from an hour ago on, a few that never expire.
    const docs = Array.from({ length: 360 }, (_, i) => ({ n: i, createdAt: new Date(now - 2 * HOUR + i * 300_000) }));
    await api.backend.runCommand(DB, {
      insert: 'events',
      documents: [...docs, { n: -1, createdAt: 'not a date' }, { n: -2 }],
    });
    await api.backend.runCommand(DB, {
      createIndexes: 'events',
      indexes: [{ key: { createdAt: 1 }, name: 'createdAt_1', expireAfterSeconds: 3600 }],
    });
    // big: 1,500 documents two hours old under a one-day rule; a one-hour rule makes them all due.
    const big = Array.from({ length: 1500 }, (_, i) => ({ i, seenAt: new Date(now - 2 * HOUR - i * 1000) }));
    await api.backend.runCommand(DB, { insert: 'big', documents: big });
    await api.backend.runCommand(DB, {
      createIndexes: 'big',
      indexes: [{ key: { seenAt: 1 }, name: 'seenAt_1', expireAfterSeconds: 86_400 }],
    });
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await setTheme('Default Dark Modern');
  });

  test('opens from a TTL index in the Databases tree with the figures of Backend.forecast', async () => {
    const engine = (await treeRows(api))[0];
    const index = await findRow(await findRow(await findRow(engine, DB), 'events'), 'createdAt_1');
    assert.match(String(index.item.contextValue), /\bttl\b/, 'the "Show Expiry Forecast" menu entry applies');
    const r = await show(index.node);
    const want = await expected('events', { index: 'createdAt_1' });
    const view = r.rendered;
    assert.ok(view, 'the webview reported what it drew');
    assert.match(view.title, /Expiry forecast: forecastit\.events, index createdAt_1/);
    assert.deepEqual(
      column(view, 'Documents'),
      want.buckets.map((b) => b.count),
    );
    assert.deepEqual(
      column(view, 'Eligible by then'),
      want.buckets.map((_, i) => want.dueNow + want.buckets.slice(0, i + 1).reduce((a, b) => a + b.count, 0)),
    );
    assert.equal(summary(view, 'Due now'), want.dueNow);
    assert.equal(summary(view, 'Later'), want.later);
    assert.equal(summary(view, 'Never'), want.never);
    assert.equal(summary(view, 'Total'), want.total);
    assert.ok(want.never >= 1, 'the non-date is covered and never expires');
    assert.ok(want.dueNow > 0 && want.buckets.some((b) => b.count > 0));
    assert.equal(view.chartPoints, 24, 'the chart drew 24 buckets');
    assert.equal(view.error, undefined);
  });

  test('advancing the virtual clock redraws it with the new figures', async () => {
    const before = (await show({ current: true })).rendered!;
    const moved = await vscode.commands.executeCommand<{ ok: boolean }>('ttlWorkbench.advanceClock', {
      duration: '3h',
      quiet: true,
    });
    assert.equal(moved.ok, true);
    const after = await until('the panel to redraw after the clock moved', async () => {
      const r = await show({ current: true });
      const want = await expected('events', { index: 'createdAt_1' });
      const view = r.rendered!;
      const same =
        view.seq !== before.seq &&
        JSON.stringify(column(view, 'Documents')) === JSON.stringify(want.buckets.map((b) => b.count)) &&
        summary(view, 'Due now') === want.dueNow;
      return same ? view : undefined;
    });
    // The monitor's passes on the way deleted what fell due, and the window moved 3 hours on.
    assert.notDeepEqual(after.summary, before.summary);
    assert.notEqual(after.rows[0][0], before.rows[0][0]);
  });

  test('switches horizon (7 days in 168 hourly buckets)', async () => {
    const r = await show({ db: DB, collection: 'events', index: 'createdAt_1', horizon: '7d' });
    const want = await api.backend.forecast(DB, 'events', {
      index: 'createdAt_1',
      horizonMs: 7 * 24 * HOUR,
      buckets: 168,
    });
    assert.equal(r.rendered!.rows.length, 168);
    assert.deepEqual(
      column(r.rendered!, 'Documents'),
      want.buckets.map((b) => b.count),
    );
  });

  test('opens from the Change expireAfterSeconds preview with before and after overlaid', async () => {
    const change = await vscode.commands.executeCommand<Record<string, unknown>>(
      'ttlWorkbench.changeExpireAfterSeconds',
      { db: DB, collection: 'big', index: 'seenAt_1', expireAfterSeconds: 3600, showForecast: true, quiet: true },
    );
    assert.equal(change.needsConfirmation, true, 'above confirmExpiryAbove: not run without confirm');
    const view = await until('the preview forecast', async () => {
      const r = await show({ current: true });
      return r.collection === 'big' && r.before && r.rendered?.headers.includes('After') ? r.rendered : undefined;
    });
    const now = await expected('big', { index: 'seenAt_1' });
    const next = await expected('big', { index: 'seenAt_1', expireAfterSeconds: 3600 });
    assert.deepEqual(
      column(view, 'Before'),
      now.buckets.map((b) => b.count),
    );
    assert.deepEqual(
      column(view, 'After'),
      next.buckets.map((b) => b.count),
    );
    assert.equal(summary(view, 'Due now', 1), now.dueNow, 'before');
    assert.equal(summary(view, 'Due now', 2), next.dueNow, 'after');
    assert.equal(next.dueNow, 1500);
    await setTheme('Default Dark Modern');
    await screenshot('screenshot-forecast-dark.png', 2500);
  });

  test('looks right in a light theme', async () => {
    await show({ db: DB, collection: 'events', index: 'createdAt_1', horizon: '24h' });
    await setTheme('Default Light Modern');
    await screenshot('screenshot-forecast-light.png', 2500);
    const r = await show({ current: true });
    assert.equal(r.rendered?.error, undefined);
  });
});
