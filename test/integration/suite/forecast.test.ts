// The Expiry Forecast panel in a real VS Code: opened from a TTL index's tree node, a clustered
// collection's TTL row and a Change expireAfterSeconds preview (before vs after), its figures read
// back from the webview's own table equal Backend.forecast, the table toggle shows the same
// numbers, and moving the virtual clock redraws it. The TTL Monitor History panel: opened from the
// tree, a pass appears after the clock moves, its figures equal Backend.monitorHistory. And
// ttl.forecast(…) in a .ttlbook cell drawn by the forecast renderer. Screenshots of each, dark and
// light (TTL_WORKBENCH_SCREENSHOT_DIR=docs/forecast).
import * as assert from 'node:assert/strict';
import { suite, suiteSetup, suiteTeardown, test } from 'mocha';
import * as vscode from 'vscode';
import type { TTLWorkbenchApi } from '../../../src/extension/api';
import type { ForecastRequest } from '../../../src/engine/ttl/forecast';
import type { RenderedView } from '../../../src/extension/forecast/protocol';
import type { HistoryPoint } from '../../../src/extension/logic/history-chart';
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

  test('the table toggle shows the same numbers the chart draws, and back', async () => {
    await show({ db: DB, collection: 'events', index: 'createdAt_1', horizon: '24h' });
    const chartShown = (await show({ current: true, showTable: false })).rendered!;
    assert.equal(chartShown.tableShown, false);
    assert.deepEqual(chartShown.visibleRows, [], 'the table is hidden while the chart shows');
    assert.equal(chartShown.chartPoints, 24);
    const r = await show({ current: true, showTable: true });
    const view = r.rendered!;
    assert.equal(view.tableShown, true);
    assert.equal(view.chartPoints, 0, 'the chart is hidden while the table shows');
    const want = await expected('events', { index: 'createdAt_1' });
    const i = view.headers.indexOf('Documents');
    assert.deepEqual(
      view.visibleRows.map((row) => count(row[i])),
      want.buckets.map((b) => b.count),
    );
    assert.deepEqual(view.visibleRows, view.rows);
    const back = (await show({ current: true, showTable: false })).rendered!;
    assert.deepEqual([back.tableShown, back.chartPoints], [false, 24]);
  });

  test("opens from a clustered collection's TTL row, with the collection rule's figures", async () => {
    await api.backend.runCommand(DB, {
      create: 'clustered',
      clusteredIndex: { key: { _id: 1 }, unique: true },
      expireAfterSeconds: 7200,
    });
    const ids = Array.from({ length: 48 }, (_, i) => ({ _id: new Date(now + 3 * HOUR - i * 1800_000) }));
    await api.backend.runCommand(DB, { insert: 'clustered', documents: [...ids, { _id: 'not a date' }] });
    const engine = (await treeRows(api))[0];
    const coll = await findRow(await findRow(engine, DB), 'clustered');
    const row = (await treeRows(api, coll.node)).find((k) => /collectionTTLRow/.test(String(k.item.contextValue)));
    assert.ok(row, 'the clustered collection shows its TTL row');
    const r = await show(row.node);
    const want = await expected('clustered', {});
    const view = r.rendered!;
    assert.match(view.title, /forecastit\.clustered, the collection TTL/);
    assert.deepEqual(
      column(view, 'Documents'),
      want.buckets.map((b) => b.count),
    );
    assert.equal(summary(view, 'Never'), 1, 'the string _id never expires (rule 5.4)');
    assert.equal(summary(view, 'Total'), want.total);
  });

  test('looks right in a light theme', async () => {
    await show({ db: DB, collection: 'events', index: 'createdAt_1', horizon: '24h' });
    await setTheme('Default Light Modern');
    await screenshot('screenshot-forecast-light.png', 2500);
    const r = await show({ current: true });
    assert.equal(r.rendered?.error, undefined);
  });
});

interface HistoryResult {
  ok: boolean;
  scope: Record<string, string>;
  passes: number;
  points?: HistoryPoint[];
  rendered?: RenderedView;
  message?: string;
}

async function history(arg: unknown): Promise<HistoryResult> {
  const r = await vscode.commands.executeCommand<HistoryResult>('ttlWorkbench.showMonitorHistory', arg);
  assert.ok(r && r.ok, `showMonitorHistory failed: ${JSON.stringify(r)}`);
  return r;
}

const HDB = 'historyit';

suite('Expiry forecast charts: the TTL Monitor History panel', () => {
  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<TTLWorkbenchApi>(EXTENSION_ID);
    assert.ok(ext);
    api = await ext.activate();
    await api.backend.runCommand(HDB, { dropDatabase: 1 });
    const now = (await api.backend.clock()).now.getTime();
    // A document falls due every 2 minutes over the next hour, 3 at a time.
    const docs = Array.from({ length: 90 }, (_, i) => ({
      i,
      at: new Date(now - 60_000 + Math.floor(i / 3) * 120_000),
    }));
    await api.backend.runCommand(HDB, { insert: 'logs', documents: docs });
    await api.backend.runCommand(HDB, {
      createIndexes: 'logs',
      indexes: [{ key: { at: 1 }, name: 'at_1', expireAfterSeconds: 60 }],
    });
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await setTheme('Default Dark Modern');
  });

  test("opens from the TTL monitor's tree row, and a pass appears after the clock moves, with the engine's figures", async () => {
    await setTheme('Default Dark Modern');
    const monitor = (await treeRows(api, (await treeRows(api))[0].node)).find((r) =>
      /\bmonitor\b/.test(String(r.item.contextValue)),
    );
    assert.ok(monitor, 'the engine shows the TTL monitor row');
    const before = await history(monitor.node);
    assert.deepEqual(before.scope, {});
    // The ring keeps 200 passes: count the new ones by time, not by length.
    const lastBefore = new Date((await api.backend.monitorHistory()).at(-1)?.startedAt ?? 0).getTime();
    const moved = await vscode.commands.executeCommand<{ ok: boolean }>('ttlWorkbench.advanceClock', {
      duration: '30m',
      quiet: true,
    });
    assert.equal(moved.ok, true);
    const view = await until('the history panel to show the passes the clock move ran', async () => {
      const r = await history({ current: true });
      const engine = await api.backend.monitorHistory();
      const fresh = engine.filter((p) => new Date(p.startedAt).getTime() > lastBefore).length;
      const newest = new Date(engine.at(-1)!.startedAt).getTime();
      return fresh >= 30 && r.points?.at(-1)?.startedAt === newest && r.points.length === Math.min(50, engine.length)
        ? r
        : undefined;
    });
    const engine = (await api.backend.monitorHistory()).slice(-50);
    assert.deepEqual(
      view.points!.map((p) => [p.startedAt, p.deleted, p.subPasses, p.backlog]),
      engine.map((p) => [new Date(p.startedAt).getTime(), p.deleted, p.subPasses, p.backlog]),
    );
    const rendered = view.rendered!;
    const deletedColumn = rendered.headers.indexOf('Deleted');
    assert.deepEqual(
      rendered.rows.map((r) => count(r[deletedColumn])),
      engine.map((p) => p.deleted),
      "the page's table holds the engine's figures",
    );
    assert.ok(engine.reduce((a, p) => a + p.deleted, 0) >= 45, 'the passes deleted what fell due in 30 minutes');
    assert.equal(rendered.chartPoints, engine.length);
    await screenshot('screenshot-history-dark.png', 2500);
  });

  test('narrowed to one TTL index from its tree row; the table toggle shows the same numbers', async () => {
    const engineRow = (await treeRows(api))[0];
    const index = await findRow(await findRow(await findRow(engineRow, HDB), 'logs'), 'at_1');
    const r = await history(index.node);
    assert.deepEqual(r.scope, { db: HDB, collection: 'logs', target: 'index at_1' });
    const engine = (await api.backend.monitorHistory()).slice(-50);
    const mine = engine.map((p) =>
      p.targets.filter((t) => t.collection === 'logs' && t.db === HDB).reduce((a, t) => a + t.deleted, 0),
    );
    assert.deepEqual(
      r.points!.map((p) => p.deleted),
      mine,
    );
    const table = (await history({ current: true, showTable: true })).rendered!;
    assert.equal(table.tableShown, true);
    assert.equal(table.chartPoints, 0);
    const i = table.headers.indexOf('Deleted');
    assert.deepEqual(
      table.visibleRows.map((row) => count(row[i])),
      mine,
    );
    const back = (await history({ current: true, showTable: false })).rendered!;
    assert.deepEqual([back.tableShown, back.visibleRows.length], [false, 0]);
  });

  test('looks right in a light theme', async () => {
    await history({});
    await setTheme('Default Light Modern');
    await screenshot('screenshot-history-light.png', 2500);
    const r = await history({ current: true });
    assert.equal(r.rendered?.error, undefined);
  });
});

interface RendererReport {
  type: 'rendered';
  outputId: string;
  view: Omit<RenderedView, 'seq'>;
}

suite('Expiry forecast charts: ttl.forecast in a .ttlbook cell', () => {
  test('the cell shows the forecast renderer first (its figures = Backend.forecast), JSON and text behind it', async () => {
    const ext = vscode.extensions.getExtension<TTLWorkbenchApi>(EXTENSION_ID);
    assert.ok(ext);
    api = await ext.activate();
    await setTheme('Default Dark Modern');
    // The renderer reports what it drew when someone listens (renderer messaging, not a mock).
    const reports: RendererReport[] = [];
    const messaging = vscode.notebooks.createRendererMessaging('ttl-workbench-forecast');
    const listening = messaging.onDidReceiveMessage((e) => reports.push(e.message as RendererReport));
    try {
      // The data go in through the backend: the cell holds only the forecast, as the screenshot shows it.
      await api.backend.runCommand('test', { drop: 'forecast_sessions' }).catch(() => undefined);
      const now = (await api.backend.clock()).now.getTime();
      await api.backend.runCommand('test', {
        insert: 'forecast_sessions',
        documents: Array.from({ length: 240 }, (_, i) => ({ i, lastSeen: new Date(now - HOUR + i * 360_000) })),
      });
      await api.backend.runCommand('test', {
        createIndexes: 'forecast_sessions',
        indexes: [{ key: { lastSeen: 1 }, name: 'lastSeen_1', expireAfterSeconds: 7200 }],
      });
      const data = new vscode.NotebookData([
        new vscode.NotebookCellData(
          vscode.NotebookCellKind.Code,
          'ttl.forecast("forecast_sessions", { horizon: "24h", buckets: 24 })',
          'ttl-mongosh',
        ),
      ]);
      data.metadata = { ttlbook: { header: {} } };
      const nb = await vscode.workspace.openNotebookDocument('ttl-workbench-playground', data);
      await vscode.window.showNotebookDocument(nb);
      await vscode.commands.executeCommand('notebook.selectKernel', {
        id: 'ttl-workbench-engine',
        extension: EXTENSION_ID,
      });
      await vscode.commands.executeCommand('notebook.execute', nb.uri);
      await api.notebooks.whenIdle(nb);
      const cell = nb.cellAt(0);
      const last = cell.outputs.at(-1)!;
      assert.deepEqual(
        last.items.map((i) => i.mime),
        ['application/vnd.ttl-workbench.forecast+json', 'application/json', 'text/plain'],
      );
      const payload = JSON.parse(new TextDecoder().decode(last.items[0].data)) as {
        db: string;
        collection: string;
        forecast: { dueNow: number; buckets: Array<{ count: number }>; total: number };
      };
      const want = await api.backend.forecast('test', 'forecast_sessions', { horizonMs: 24 * HOUR, buckets: 24 });
      assert.deepEqual(
        payload.forecast.buckets.map((b) => b.count),
        want.buckets.map((b) => b.count),
      );
      assert.equal(payload.forecast.dueNow, want.dueNow);
      assert.equal(payload.forecast.total, 240);
      const drawn = await until('the forecast renderer to report what it drew', () =>
        Promise.resolve(reports.find((m) => m.type === 'rendered')),
      );
      const i = drawn.view.headers.indexOf('Documents');
      assert.deepEqual(
        drawn.view.rows.map((row) => count(row[i])),
        want.buckets.map((b) => b.count),
      );
      assert.equal(drawn.view.chartPoints, 24, 'the chart drew 24 buckets');
      assert.match(drawn.view.title, /test\.forecast_sessions, index lastSeen_1/);
      await screenshot('screenshot-notebook-forecast.png', 3000);
    } finally {
      listening.dispose();
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });
});
