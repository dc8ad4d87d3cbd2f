// Playground notebooks inside a real VS Code: every example .ttlbook opened through the
// serializer and run through the "TTL Engine" controller (notebook.execute), its outputs checked
// by mime type and content, the Databases tree checked afterwards, and the same file run by the
// CLI giving the same text. Also: single cells with execution order, interrupting a long cell,
// the statement time limit, an isolated engine, completion, byte-identical saves, and a screenshot.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { suite, suiteSetup, suiteTeardown, test } from 'mocha';
import * as vscode from 'vscode';
import type { TTLWorkbenchApi } from '../../../src/extension/api';
import type { TreeNode } from '../../../src/extension/tree/nodes';
import { canDriveUi, driveUi, screenshot } from './index';
import { treeRows, type Row } from './tree-rows';

const EXTENSION_ID = 'ttl-workbench.ttl-workbench';
const NOTEBOOK_TYPE = 'ttl-workbench-playground';
const CONTROLLER_ID = 'ttl-workbench-engine';
const STDOUT = 'application/vnd.code.notebook.stdout';
const ERROR = 'application/vnd.code.notebook.error';
const TABLE = 'application/vnd.ttl-workbench.documents+json';

let api: TTLWorkbenchApi;
let extensionPath: string;
const decoder = new TextDecoder();
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Item {
  mime: string;
  text: string;
}

function items(cell: vscode.NotebookCell): Item[] {
  return cell.outputs.flatMap((o) => o.items.map((i) => ({ mime: i.mime, text: decoder.decode(i.data) })));
}

function codeCells(nb: vscode.NotebookDocument): vscode.NotebookCell[] {
  return nb.getCells().filter((c) => c.kind === vscode.NotebookCellKind.Code);
}

/** The text a notebook's outputs show as plain text: what the CLI prints for the same file. */
function plainText(nb: vscode.NotebookDocument): string {
  let out = '';
  for (const cell of codeCells(nb)) {
    for (const o of cell.outputs) {
      const stdout = o.items.filter((i) => i.mime === STDOUT);
      if (stdout.length) out += stdout.map((i) => decoder.decode(i.data)).join('');
      const text = o.items.find((i) => i.mime === 'text/plain');
      if (text) out += `${decoder.decode(text.data)}\n`;
    }
  }
  return out;
}

/** Generated ObjectIds differ between processes in their random bytes only; the timestamp is the engine clock's. */
const maskIds = (t: string) => t.replace(/ObjectId\('([0-9a-f]{8})[0-9a-f]{16}'\)/g, "ObjectId('$1…')");

function runCli(file: string): string {
  // The extension host is Node (code-server) or Electron (desktop): either runs the CLI as Node.
  return execFileSync(process.execPath, [path.join(extensionPath, 'dist', 'cli.js'), 'run', file], {
    encoding: 'utf8',
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
  });
}

async function show(nb: vscode.NotebookDocument): Promise<vscode.NotebookEditor> {
  const editor = await vscode.window.showNotebookDocument(nb);
  await vscode.commands.executeCommand('notebook.selectKernel', { id: CONTROLLER_ID, extension: EXTENSION_ID });
  return editor;
}

async function untitled(
  header: Record<string, unknown>,
  cells: Array<string | { md: string }>,
): Promise<vscode.NotebookDocument> {
  const data = new vscode.NotebookData(
    cells.map((c) =>
      typeof c === 'string'
        ? new vscode.NotebookCellData(vscode.NotebookCellKind.Code, c, 'ttl-mongosh')
        : new vscode.NotebookCellData(vscode.NotebookCellKind.Markup, c.md, 'markdown'),
    ),
  );
  data.metadata = { ttlbook: { header } };
  const nb = await vscode.workspace.openNotebookDocument(NOTEBOOK_TYPE, data);
  await show(nb);
  return nb;
}

/**
 * Close every editor without "Save changes?" dialogs: the tests' untitled notebooks are dirty, and a
 * modal dialog would stall desktop VS Code.
 */
async function closeAll(): Promise<void> {
  for (let i = 0; i < 100 && vscode.window.tabGroups.all.some((g) => g.tabs.length > 0); i++) {
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  }
}

async function runAll(nb: vscode.NotebookDocument): Promise<void> {
  await vscode.commands.executeCommand('notebook.execute', nb.uri);
  await api.notebooks.whenIdle(nb);
}

// ---- the tree, through the extension's API ---------------------------------------------------

const rows = (node?: TreeNode): Promise<Row[]> => treeRows(api, node);

/** `label — description` of every row under the path of labels below the engine node. */
async function tree(...labels: string[]): Promise<string[]> {
  let [current] = await rows();
  for (const label of labels) {
    const kids = await rows(current.node);
    const next = kids.find((r) => r.label === label);
    assert.ok(next, `no "${label}" under "${current.label}": ${kids.map((r) => r.label).join(', ')}`);
    current = next;
  }
  return (await rows(current.node)).map((r) => `${r.label} — ${r.description}`);
}

// ---- what each example must leave in the shared engine, as the tree shows it -------------------

const TREE_AFTER: Record<string, () => Promise<void>> = {
  '01-expire-after-seconds.ttlbook': async () => {
    assert.deepEqual(await tree('test'), ['eventlog — 1 doc']);
    assert.deepEqual(await tree('test', 'eventlog'), [
      '_id_ — unique on _id',
      'lastModifiedDate_1 — TTL 1 h after lastModifiedDate',
    ]);
  },
  '02-expire-at-clock-time.ttlbook': async () => {
    assert.deepEqual(await tree('test'), ['log_events — 1 doc']);
    assert.ok((await tree('test', 'log_events')).includes('expireAt_1 — expires at the date in expireAt'));
  },
  '03-partial-ttl.ttlbook': async () => {
    assert.deepEqual(await tree('test'), ['sessions — 1 doc']);
  },
  '04-convert-with-collmod.ttlbook': async () => {
    const rowsNow = await tree('test', 'tickets');
    assert.ok(
      rowsNow.some((r) => /^lastModifiedDate_1 — TTL .* after lastModifiedDate$/.test(r)),
      rowsNow.join('\n'),
    );
    assert.deepEqual(await tree('test'), ['tickets — 0 docs']);
  },
  '05-time-series-retention.ttlbook': async () => {
    assert.match((await tree('test')).join('\n'), /^weather — .*TTL 1 d after ts/m);
  },
  '06-cosmos-per-document-ttl.ttlbook': async () => {
    // A Cosmos notebook runs on an isolated Cosmos engine: the window's engine stays MongoDB.
    const [engine] = await rows();
    assert.doesNotMatch(engine.label, /Cosmos/);
    assert.equal((await api.backend.info()).flavor, 'mongodb');
  },
  '07-find-nan-indexes.ttlbook': async () => {
    const rowsNow = await tree('test', 'events');
    assert.ok(
      rowsNow.some((r) => /NaN/.test(r)),
      rowsNow.join('\n'),
    );
    assert.deepEqual(await tree('test'), ['events — 1 doc']);
  },
};

suite('Playground notebooks', function () {
  this.timeout(120_000);
  const examples = () =>
    fs
      .readdirSync(path.join(extensionPath, 'examples'))
      .filter((f) => f.endsWith('.ttlbook'))
      .sort();

  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<TTLWorkbenchApi>(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not installed in the host`);
    api = await ext.activate();
    extensionPath = ext.extensionPath;
  });

  suiteTeardown(async () => {
    await closeAll();
    await vscode.commands.executeCommand('ttlWorkbench.resetEngine', {
      quiet: true,
      flavor: 'mongodb',
      serverVersion: '8.0',
    });
  });

  test("every example notebook runs through the controller with the CLI's results, and the tree shows what the cells did", async () => {
    assert.ok(examples().length >= 7);
    for (const name of examples()) {
      const file = path.join(extensionPath, 'examples', name);
      const nb = await vscode.workspace.openNotebookDocument(vscode.Uri.file(file));
      assert.equal(nb.notebookType, NOTEBOOK_TYPE);
      assert.ok(
        codeCells(nb).every((c) => c.document.languageId === 'ttl-mongosh'),
        name,
      );
      await show(nb);
      // A fresh engine at the notebook's clock start, as the CLI gives each file: the shared one
      // (reset with the window's flavor) where the notebook can share it, else an isolated one.
      const cosmos = name.includes('cosmos');
      const r = await vscode.commands.executeCommand<{ ok: boolean; cells: number; failed: number; isolated: boolean }>(
        'ttlWorkbench.runAllFresh',
        { notebook: nb.uri.toString(), ...(cosmos ? {} : { engine: 'shared' }) },
      );
      assert.equal(r.ok, true, name);
      assert.equal(r.isolated, cosmos, name);
      assert.equal(r.failed, 0, `${name}: ${JSON.stringify(codeCells(nb).map(items))}`);
      const cells = codeCells(nb);
      assert.equal(r.cells, cells.length);
      cells.forEach((c, i) => {
        assert.equal(c.executionSummary?.success, true, `${name} cell ${i + 1}`);
        assert.equal(c.executionSummary?.executionOrder, i + 1, `${name} cell ${i + 1} order`);
        const t = c.executionSummary?.timing;
        assert.ok(t && t.endTime >= t.startTime && t.startTime > 0, `${name} cell ${i + 1} timing`);
      });
      assert.ok(
        cells.every((c) => items(c).every((i) => i.mime !== ERROR)),
        name,
      );
      assert.equal(maskIds(plainText(nb)), maskIds(runCli(file)), `${name}: notebook and CLI differ`);
      await TREE_AFTER[name]();
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });

  test("outputs: print as stdout, values as mongosh prints them (the documents renderer's mime, drawing mongosh text with a table a click away, plus text/plain; no JSON view), errors wrapped with code and codeName (issue 18.8)", async () => {
    await vscode.commands.executeCommand('ttlWorkbench.resetEngine', { quiet: true, flavor: 'mongodb' });
    const nb = await untitled({ title: 'outputs' }, [
      'print("hello")\nprint("world")',
      'db.out.insertMany([{ _id: 1, at: ISODate("2026-01-01T00:00:00Z") }, { _id: 2, n: NumberLong("7") }])\ndb.out.find()',
      'db.out.findOne({ _id: 2 })',
      'db.out.countDocuments()',
      'db.out.insertOne({ _id: 1 })',
      'print("never runs: the run stopped at the failing cell")',
    ]);
    await runAll(nb);
    const [printCell, findCell, oneCell, countCell, errorCell, afterCell] = codeCells(nb);
    // Consecutive prints make one stdout output (VS Code joins the stream items).
    assert.equal(printCell.outputs.length, 1);
    assert.equal(
      items(printCell)
        .map((i) => (i.mime === STDOUT ? i.text : `<${i.mime}>`))
        .join(''),
      'hello\nworld\n',
    );

    // insertMany's result as mongosh prints it, not canonical EJSON ("insertedIds": {"0": …}).
    const inserted = findCell.outputs[0].items.find((i) => i.mime === 'text/plain')!;
    assert.equal(decoder.decode(inserted.data), "{ acknowledged: true, insertedIds: { '0': 1, '1': 2 } }");
    const table = findCell.outputs.at(-1)!;
    assert.deepEqual(
      table.items.map((i) => i.mime),
      [TABLE, 'text/plain'],
      'no application/json: VS Code would show it (tab-indented JSON) instead of mongosh text',
    );
    const findText = "[\n  { _id: 1, at: ISODate('2026-01-01T00:00:00.000Z') },\n  { _id: 2, n: Long('7') }\n]";
    assert.deepEqual(JSON.parse(decoder.decode(table.items[0].data)), {
      documents: [
        { _id: 1, at: { $date: '2026-01-01T00:00:00Z' } },
        { _id: 2, n: 7 },
      ],
      hasMore: false,
      text: findText,
      shape: 'documents',
    });
    assert.equal(decoder.decode(table.items[1].data), findText);

    const one = items(oneCell);
    assert.deepEqual(
      one.map((i) => i.mime),
      [TABLE, 'text/plain'],
    );
    assert.equal((JSON.parse(one[0].text) as { text: string }).text, "{ _id: 2, n: Long('7') }");
    assert.equal(one[1].text, "{ _id: 2, n: Long('7') }");
    assert.deepEqual(items(countCell), [{ mime: 'text/plain', text: '2' }]);

    const [err] = items(errorCell);
    assert.equal(err.mime, ERROR);
    const e = JSON.parse(err.text) as { name: string; message: string; stack: string };
    assert.equal(e.name, 'MongoServerError[DuplicateKey]');
    assert.match(e.message, /E11000 duplicate key error .* \(code 11000, DuplicateKey\)$/);
    assert.ok(
      e.stack.split('\n').every((line) => line.length <= 100),
      `the error's text is wrapped (the error view neither wraps nor scrolls): ${e.stack}`,
    );
    assert.equal(errorCell.executionSummary?.success, false);
    assert.equal(afterCell.outputs.length, 0);
    assert.equal(afterCell.executionSummary?.executionOrder, undefined);

    // The shared engine: the tree shows what the cells wrote.
    assert.deepEqual(await tree('test'), ['out — 2 docs']);
    // The status bar clock stays while a notebook is open.
    assert.match(api.statusBarText(), /^\$\(history\) \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · TTL deleted \d+$/);
  });

  test('cells run one at a time keep their variables and count execution order up', async () => {
    const nb = await untitled({}, ['const base = 40', 'base + 2', 'use("other")', 'db.getName()']);
    const cells = codeCells(nb);
    for (const i of [0, 1]) {
      await vscode.commands.executeCommand('notebook.cell.execute', {
        ranges: [{ start: cells[i].index, end: cells[i].index + 1 }],
        document: nb.uri,
      });
      await api.notebooks.whenIdle(nb);
    }
    assert.deepEqual(items(cells[1]), [{ mime: 'text/plain', text: '42' }]);
    assert.deepEqual([cells[0].executionSummary?.executionOrder, cells[1].executionSummary?.executionOrder], [1, 2]);
    await vscode.commands.executeCommand('notebook.cell.execute', { ranges: [{ start: 1, end: 2 }], document: nb.uri });
    await api.notebooks.whenIdle(nb);
    assert.equal(cells[1].executionSummary?.executionOrder, 3);
    await vscode.commands.executeCommand('notebook.cell.execute', { ranges: [{ start: 2, end: 4 }], document: nb.uri });
    await api.notebooks.whenIdle(nb);
    assert.deepEqual(items(cells[3]), [{ mime: 'text/plain', text: 'other' }]);
  });

  test('print streams: a loop printing every 100 inserts appends each line to the running cell, long before the statement ends (issue 20)', async () => {
    const nb = await untitled({ engine: { isolated: true } }, [
      '{ for (let i = 1; i <= 40000; i++) { db.stream.insertOne({ i }); if (i % 100 === 0) print(`inserted ${i}`); } }',
    ]);
    const [cell] = codeCells(nb);
    const stdout = () =>
      items(cell)
        .filter((i) => i.mime === STDOUT)
        .map((i) => i.text)
        .join('');
    const started = Date.now();
    const running = vscode.commands.executeCommand('notebook.execute', nb.uri);
    // Watch the cell while it runs: when its first line shows, and whether the cell had ended by then.
    let firstSeen: { at: number; ended: boolean } | undefined;
    while (Date.now() - started < 60_000 && cell.executionSummary?.success === undefined) {
      if (!firstSeen && stdout().includes('inserted 100\n'))
        firstSeen = { at: Date.now(), ended: cell.executionSummary?.success !== undefined };
      await delay(10);
    }
    await running;
    await api.notebooks.whenIdle(nb);
    const ended = Date.now();
    assert.equal(cell.executionSummary?.success, true);
    assert.ok(firstSeen, 'the first printed line never showed while the cell ran');
    assert.equal(firstSeen.ended, false, 'the first line showed only once the cell had ended');
    assert.ok(
      ended - firstSeen.at > 200,
      `the first line showed ${ended - firstSeen.at} ms before the cell ended: it was not streamed`,
    );
    assert.equal(stdout(), Array.from({ length: 400 }, (_, k) => `inserted ${(k + 1) * 100}\n`).join(''));
  });

  test('interrupting a long cell stops it, inside a statement or between two (code 11601 Interrupted), and skips the queued cells', async () => {
    // A system clock makes sleep() take real time, so there is something to interrupt.
    const nb = await untitled({ engine: { isolated: true, clock: 'system' } }, [
      `${Array.from({ length: 12 }, () => 'sleep(300)').join('\n')}\nprint("finished")`,
      'print("second cell")',
    ]);
    const [long, second] = codeCells(nb);
    const started = Date.now();
    const running = vscode.commands.executeCommand('notebook.execute', nb.uri);
    await delay(1000);
    await vscode.commands.executeCommand('notebook.cancelExecution', nb.uri);
    await running;
    await api.notebooks.whenIdle(nb);
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 3000, `interrupt took effect after ${elapsed} ms (the cell alone needs 3600 ms)`);
    const out = items(long);
    assert.equal(out.at(-1)?.mime, ERROR);
    const e = JSON.parse(out.at(-1)!.text) as { name: string; message: string };
    assert.match(e.name, /Interrupted/);
    // The engine host reaches a running statement at its next safe point; between statements the rest is left unrun.
    assert.match(
      e.message,
      /(Execution interrupted after \d+ statements|operation was interrupted).*\(code 11601, Interrupted\)/,
    );
    assert.ok(!out.some((i) => i.text.includes('finished')));
    assert.equal(long.executionSummary?.success, false);
    assert.equal(second.outputs.length, 0);
  });

  test('engine host: interrupting an endless plain-JavaScript loop restarts the worker; the tree still shows every document written before it', async () => {
    const config = vscode.workspace.getConfiguration('ttlWorkbench');
    await config.update('playgroundTimeLimitMs', 120_000, vscode.ConfigurationTarget.Global);
    try {
      await vscode.commands.executeCommand('ttlWorkbench.resetEngine', { quiet: true });
      const nb = await untitled({}, [
        'use("loop")\nfor (let i = 0; i < 50; i++) db.kept.insertOne({ i })',
        'let spins = 0\nwhile (true) { spins++ }',
        'print("not reached")',
      ]);
      const running = vscode.commands.executeCommand('notebook.execute', nb.uri);
      const started = Date.now();
      // Wait until the loop runs (the first cell has ended), then interrupt.
      while (codeCells(nb)[0].executionSummary?.success === undefined && Date.now() - started < 20_000) await delay(50);
      await delay(500);
      await vscode.commands.executeCommand('notebook.cancelExecution', nb.uri);
      await running;
      await api.notebooks.whenIdle(nb);
      const [, loop, after] = codeCells(nb);
      const e = JSON.parse(items(loop).at(-1)!.text) as { name: string; message: string };
      assert.match(e.name, /^EngineHostRestarted/);
      assert.match(
        e.message,
        /never reached a point where the engine could stop it.*reopened from its data folder as of the last acknowledged write/s,
      );
      assert.equal(after.outputs.length, 0);
      assert.deepEqual(await tree('loop'), ['kept — 50 docs']);
      // The window goes on: the same notebook runs again (on a new session).
      await vscode.commands.executeCommand('notebook.cell.execute', {
        ranges: [{ start: 2, end: 3 }],
        document: nb.uri,
      });
      await api.notebooks.whenIdle(nb);
      assert.equal(items(after).at(-1)?.text, 'not reached\n');
    } finally {
      await config.update('playgroundTimeLimitMs', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  test('engine host: a cell that exhausts the worker heap ends with a clear error and the engine comes back from disk', async () => {
    const config = vscode.workspace.getConfiguration('ttlWorkbench');
    await config.update('engineHost.maxHeapMb', 192, vscode.ConfigurationTarget.Global);
    await config.update('playgroundTimeLimitMs', 120_000, vscode.ConfigurationTarget.Global);
    try {
      const restarted = await vscode.commands.executeCommand<{ ok: boolean; heapLimitMb: number }>(
        'ttlWorkbench.restartEngineHost',
        {},
      );
      assert.ok(restarted.ok && restarted.heapLimitMb < 400, JSON.stringify(restarted));
      await vscode.commands.executeCommand('ttlWorkbench.resetEngine', { quiet: true });
      const nb = await untitled({}, [
        'use("heap")\ndb.kept.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }])',
        'const hog = []\nwhile (true) hog.push({ pad: "x".repeat(100) + hog.length })',
      ]);
      await runAll(nb);
      const [, hog] = codeCells(nb);
      const e = JSON.parse(items(hog).at(-1)!.text) as { name: string; message: string };
      assert.match(e.name, /^EngineHostRestarted/);
      assert.match(e.message, /ran out of memory.*ttlWorkbench\.engineHost\.maxHeapMb.*reopened from its data folder/s);
      assert.ok(
        api.messages().some((m) => /ran out of memory/.test(m.text)),
        'a notification says so',
      );
      assert.deepEqual(await tree('heap'), ['kept — 3 docs']);
    } finally {
      await config.update('engineHost.maxHeapMb', undefined, vscode.ConfigurationTarget.Global);
      await config.update('playgroundTimeLimitMs', undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('ttlWorkbench.restartEngineHost', {});
    }
  });

  test('engine host: the tree and the status bar follow writes of one notebook while a long cell of another runs', async () => {
    await vscode.commands.executeCommand('ttlWorkbench.resetEngine', { quiet: true });
    // Many statements, each real work (a scan of 20,000 documents) and no output, far more than the
    // test needs (it interrupts the cell at the end): the worker serves other requests between them.
    const long = await untitled({}, [
      `use("busy")\nvoid db.work.insertMany(Array.from({ length: 20000 }, (_, i) => ({ i })))\n${Array.from({ length: 5000 }, () => 'void db.work.countDocuments({ i: { $gte: 0 } })').join('\n')}`,
    ]);
    const running = vscode.commands.executeCommand('notebook.execute', long.uri);
    await delay(300);
    const other = await untitled({}, ['use("side")\ndb.notes.insertOne({ n: 1 })\nsleep(3600 * 1000)']);
    const clockBefore = api.statusBarText();
    await runAll(other);
    assert.equal(codeCells(other)[0].executionSummary?.success, true);
    const stillRunning = codeCells(long)[0].executionSummary?.success === undefined;
    const side = await tree('side');
    const statusAfter = api.statusBarText();
    assert.ok(stillRunning, 'the long cell was still running while the other notebook ran');
    assert.deepEqual(side, ['notes — 1 doc']);
    assert.notEqual(
      statusAfter,
      clockBefore,
      `the status bar clock moved by the hour the other notebook slept (${clockBefore} → ${statusAfter})`,
    );
    await vscode.commands.executeCommand('notebook.cancelExecution', long.uri);
    await running;
    await api.notebooks.whenIdle(long);
  });

  test('a statement that never ends is stopped by the time limit (ttlWorkbench.playgroundTimeLimitMs)', async () => {
    const config = vscode.workspace.getConfiguration('ttlWorkbench');
    await config.update('playgroundTimeLimitMs', 500, vscode.ConfigurationTarget.Global);
    try {
      const nb = await untitled({ engine: { isolated: true } }, [
        'let spins = 0\nwhile (true) { spins++ }',
        'print("not reached")',
      ]);
      // No wall-clock bound here (a loaded machine makes one flaky): a loop the limit did not stop
      // would never end, and the test would fail on mocha's timeout instead.
      await runAll(nb);
      const [loop, after] = codeCells(nb);
      const e = JSON.parse(items(loop).at(-1)!.text) as { name: string; message: string };
      assert.equal(e.name, 'TimeoutError[MaxTimeMSExpired]');
      assert.match(e.message, /Execution stopped after 500 ms.*\(code 50, MaxTimeMSExpired\)/);
      assert.equal(after.outputs.length, 0);
    } finally {
      await config.update('playgroundTimeLimitMs', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  test('an isolated notebook gets its own engine on its own virtual clock and flavor, shown in the status bar; the shared engine stays untouched', async () => {
    await vscode.commands.executeCommand('ttlWorkbench.resetEngine', { quiet: true, flavor: 'mongodb' });
    const nb = await untitled(
      { title: 'isolated', engine: { isolated: true, now: '2030-01-01T00:00:00Z', flavor: 'cosmos' } },
      [
        'db.iso.insertOne({ _id: 1 })\nnew Date().toISOString()',
        'sleep(90 * 1000)\ndb.serverStatus().metrics.ttl.passes',
      ],
    );
    await runAll(nb);
    const [first, second] = codeCells(nb);
    assert.deepEqual(items(first).at(-1), { mime: 'text/plain', text: '2030-01-01T00:00:00.000Z' });
    assert.equal(items(second).at(-1)?.text, "Long('1')");
    const engine = api.notebooks.engineFor(nb);
    assert.equal(engine.isolated, true);
    assert.equal((await engine.backend.info()).flavor, 'cosmos');
    assert.equal((await engine.backend.clock()).now.toISOString(), '2030-01-01T00:01:30.000Z');
    assert.deepEqual(
      (await api.backend.listDatabases()).map((d) => d.name).filter((n) => n === 'test'),
      [],
      'nothing reached the shared engine',
    );
    assert.equal((await api.backend.info()).flavor, 'mongodb');
    assert.match(
      await api.notebooks.engineStatusText(),
      /^\$\(beaker\) Isolated Cosmos engine: \$\(history\) 2030-01-01 00:01:30 UTC/,
    );
    const info = await vscode.commands.executeCommand<{ isolated: boolean; flavor: string }>(
      'ttlWorkbench.notebookIsolatedEngine',
      { notebook: nb.uri.toString() },
    );
    assert.deepEqual([info.isolated, info.flavor], [true, 'cosmos']);
    const moved = await vscode.commands.executeCommand<{ ok: boolean; now: Date }>(
      'ttlWorkbench.advanceNotebookClock',
      { notebook: nb.uri.toString(), duration: '1h', quiet: true },
    );
    assert.equal(new Date(moved.now).toISOString(), '2030-01-01T01:01:30.000Z');
    // Fresh: a new isolated engine back at "now".
    const fresh = await vscode.commands.executeCommand<{ ok: boolean; isolated: boolean; failed: number }>(
      'ttlWorkbench.runAllFresh',
      { notebook: nb.uri.toString() },
    );
    assert.deepEqual([fresh.ok, fresh.isolated, fresh.failed], [true, true, 0]);
    assert.equal((await api.notebooks.engineFor(nb).backend.clock()).now.toISOString(), '2030-01-01T00:01:30.000Z');
  });

  test('a shared notebook whose metadata names another clock start warns before its first run and offers an isolated engine; one naming another flavor runs isolated', async () => {
    await vscode.commands.executeCommand('ttlWorkbench.resetEngine', { quiet: true, flavor: 'mongodb' });
    const cosmos = await untitled({ engine: { flavor: 'cosmos' } }, ['db.getName()']);
    assert.equal(api.notebooks.engineFor(cosmos).isolated, true, 'another flavor never shares the window engine');
    assert.equal((await api.notebooks.engineFor(cosmos).backend.info()).flavor, 'cosmos');
    await closeAll();
    const before = api.messages().length;
    const nb = await untitled({ engine: { now: '2020-06-01T00:00:00Z' } }, ['db.getName()']);
    await runAll(nb);
    assert.deepEqual(
      items(codeCells(nb)[0]),
      [{ mime: 'text/plain', text: 'test' }],
      'it still runs, on the shared engine as it is',
    );
    const warning = api
      .messages()
      .slice(before)
      .find((m) => m.severity === 'warning');
    assert.ok(warning, 'no warning shown');
    assert.match(warning.text, /a clock starting at 2020-06-01T00:00:00.000Z, but runs on the shared engine/);
    assert.deepEqual(warning.actions, ['Run on an Isolated Engine']);
    await runAll(nb);
    assert.equal(
      api
        .messages()
        .slice(before)
        .filter((m) => m.severity === 'warning').length,
      1,
      'said once per notebook',
    );
  });

  test('Run All Cells Against a Fresh Engine from the UI asks first, names the databases a reset deletes, and defaults to an isolated engine (issue 18.1)', async function () {
    if (!canDriveUi()) return this.skip();
    await vscode.commands.executeCommand('ttlWorkbench.resetEngine', { quiet: true, flavor: 'mongodb' });
    await api.backend.runCommand('app', { insert: 'users', documents: [{ _id: 1 }, { _id: 2 }] });
    await api.backend.runCommand('app2', { insert: 'jobs', documents: [{ _id: 1 }] });
    const nb = await untitled({ engine: { now: '2026-01-01T00:00:00Z' } }, ['db.getName()']);
    const pending = vscode.commands.executeCommand<{ ok: boolean; isolated: boolean }>('ttlWorkbench.runAllFresh', {
      notebook: nb.uri.toString(),
      interactive: true,
    });
    try {
      const picker = await driveUi([{ waitForInput: 'A reset of the shared engine deletes' }]);
      assert.match(picker!.placeholder, /deletes 2 databases \(app: 2 documents, app2: 1 document\)/);
      assert.match(picker!.items[0], /Run on an isolated engine/, JSON.stringify(picker!.items));
      assert.match(picker!.items[1], /Reset the shared engine \(deletes 2 databases/, JSON.stringify(picker!.items));
      await driveUi([{ press: 'Enter' }, { waitForClosed: true }]);
      const r = await pending;
      assert.deepEqual([r.ok, r.isolated], [true, true]);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await pending.then(undefined, () => undefined);
    }
    assert.deepEqual(
      (await api.backend.listDatabases()).map((d) => d.name).filter((n) => n.startsWith('app')),
      ['app', 'app2'],
      'the shared engine kept its data',
    );
    assert.equal((await api.notebooks.engineFor(nb).backend.clock()).now.toISOString(), '2026-01-01T00:00:00.000Z');
    // From code without `engine`: an isolated engine too (code never deletes unasked).
    const fromCode = await vscode.commands.executeCommand<{ isolated: boolean }>('ttlWorkbench.runAllFresh', {
      notebook: nb.uri.toString(),
    });
    assert.equal(fromCode.isolated, true);
    assert.equal((await api.backend.listDatabases()).filter((d) => d.name.startsWith('app')).length, 2);
    await closeAll();
  });

  test('bad engine metadata is an error output with code 2 BadValue', async () => {
    const nb = await untitled({ engine: { isolate: true } }, ['print(1)']);
    await runAll(nb);
    const e = JSON.parse(items(codeCells(nb)[0])[0].text) as { message: string };
    assert.match(e.message, /Unknown key in the notebook's engine metadata: isolate .*\(code 2, BadValue\)/);
  });

  test('completion offers collections after db., collection methods after db.<coll>., index options inside createIndex', async () => {
    await vscode.commands.executeCommand('ttlWorkbench.resetEngine', { quiet: true, flavor: 'mongodb' });
    const nb = await untitled({}, [
      'db.sessions.insertOne({ a: 1 })',
      'db.',
      'db.sessions.',
      'db.sessions.createIndex({ lastSeen: 1 }, { ',
    ]);
    await vscode.commands.executeCommand('notebook.cell.execute', { ranges: [{ start: 0, end: 1 }], document: nb.uri });
    await api.notebooks.whenIdle(nb);
    const labels = async (cell: vscode.NotebookCell) => {
      const doc = cell.document;
      const end = doc.lineAt(doc.lineCount - 1).range.end;
      const list = await vscode.commands.executeCommand<vscode.CompletionList>(
        'vscode.executeCompletionItemProvider',
        doc.uri,
        end,
      );
      return list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    };
    const [, dbCell, collCell, optCell] = codeCells(nb);
    const db = await labels(dbCell);
    assert.ok(db.includes('sessions') && db.includes('getSiblingDB'), db.join(', '));
    const coll = await labels(collCell);
    assert.ok(coll.includes('createIndex') && coll.includes('getIndexes'), coll.join(', '));
    const opts = await labels(optCell);
    assert.ok(opts.includes('expireAfterSeconds') && opts.includes('partialFilterExpression'), opts.join(', '));
  });

  test("cells in the notebook editor get TTL diagnostics, and a later cell sees an earlier cell's capped collection (rule 1.8)", async () => {
    const nb = await untitled({}, [
      "db.createCollection('log', { capped: true, size: 4096 })",
      { md: 'A TTL index on a capped collection, with a negative value:' },
      'db.log.createIndex({ at: 1 }, { expireAfterSeconds: -1 })',
    ]);
    const [, indexCell] = codeCells(nb);
    const codes = async () => {
      await api.whenIdle();
      const list = vscode.languages
        .getDiagnostics(indexCell.document.uri)
        .filter((d) => d.source === 'TTL Workbench')
        .map((d) => String(typeof d.code === 'object' ? d.code.value : d.code))
        .sort();
      return list.length >= 2 ? list : undefined;
    };
    let found: string[] | undefined;
    for (let i = 0; i < 100 && !(found = await codes()); i++) await delay(100);
    assert.deepEqual(found, ['TTL003', 'TTL008'], 'the negative value (TTL003) and the capped collection (TTL008)');
  });

  test('"New Playground Notebook" opens the guided sample on the shared engine, in a named database (issue 18.8); "Open Example Playgrounds" lists and opens the examples', async () => {
    await vscode.commands.executeCommand('ttlWorkbench.resetEngine', { quiet: true, flavor: 'mongodb' });
    const created = await vscode.commands.executeCommand<{ ok: boolean; uri: string }>(
      'ttlWorkbench.newPlayground',
      {},
    );
    assert.equal(created.ok, true);
    const nb = vscode.window.activeNotebookEditor!.notebook;
    assert.equal(nb.uri.toString(), created.uri);
    assert.equal(nb.isUntitled, true);
    await runAll(nb);
    const last = codeCells(nb).at(-1)!;
    const documents = (
      JSON.parse(items(last).find((i) => i.mime === TABLE)!.text) as { documents: Array<{ user: string }> }
    ).documents;
    assert.deepEqual(
      documents.map((d) => d.user),
      ['ada'],
      'bob expired after 11 minutes',
    );
    assert.deepEqual(await tree('playground'), ['sessions — 1 doc'], 'the guided sample use()s a named database');

    const listed = await vscode.commands.executeCommand<{ examples: string[] }>(
      'ttlWorkbench.openExamplePlaygrounds',
      {},
    );
    assert.deepEqual(listed.examples, examples());
    const opened = await vscode.commands.executeCommand<{ ok: boolean; example: string }>(
      'ttlWorkbench.openExamplePlaygrounds',
      { example: '03-partial-ttl' },
    );
    assert.equal(opened.example, '03-partial-ttl.ttlbook');
    const copy = vscode.window.activeNotebookEditor!.notebook;
    assert.equal(copy.isUntitled, true, 'examples open as untitled copies');
    assert.equal(copy.getCells()[0].kind, vscode.NotebookCellKind.Markup);
  });

  test('saving: an edit rewrites only its cell, and undoing it restores the file byte for byte', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttlbook-'));
    const file = path.join(dir, 'copy.ttlbook');
    const original = fs.readFileSync(path.join(extensionPath, 'examples', '03-partial-ttl.ttlbook'), 'utf8');
    fs.writeFileSync(file, original);
    const nb = await vscode.workspace.openNotebookDocument(vscode.Uri.file(file));
    const cell = codeCells(nb)[1];
    const before = cell.document.getText();
    const edit = async (text: string) => {
      const e = new vscode.WorkspaceEdit();
      e.replace(cell.document.uri, new vscode.Range(0, 0, cell.document.lineCount, 0), text);
      assert.ok(await vscode.workspace.applyEdit(e));
      assert.ok(await nb.save());
    };
    await edit('db.sessions.countDocuments()');
    const edited = fs.readFileSync(file, 'utf8');
    assert.equal(edited, original.replace(before, 'db.sessions.countDocuments()'));
    await edit(before);
    assert.equal(fs.readFileSync(file, 'utf8'), original);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('screenshot: a notebook with executed cells and their output as mongosh prints it', async () => {
    await closeAll();
    const nb = await vscode.workspace.openNotebookDocument(
      vscode.Uri.file(path.join(extensionPath, 'examples', '01-expire-after-seconds.ttlbook')),
    );
    await show(nb);
    await vscode.commands.executeCommand('ttlWorkbench.runAllFresh', { notebook: nb.uri.toString(), engine: 'shared' });
    await vscode.commands.executeCommand('workbench.view.extension.ttlWorkbench');
    await vscode.commands.executeCommand('notifications.clearAll');
    // The same side bar width whatever ran before: down to the minimum, then up a fixed number of
    // steps ("view size" acts on the focused part), leaving the notebook most of the window.
    for (const [step, times] of [
      ['workbench.action.decreaseViewSize', 10],
      ['workbench.action.increaseViewSize', 4],
    ] as const) {
      for (let i = 0; i < times; i++) {
        await vscode.commands.executeCommand('ttlWorkbench.databases.focus');
        await vscode.commands.executeCommand(step).then(undefined, () => undefined);
      }
    }
    await vscode.commands
      .executeCommand('workbench.actions.treeView.ttlWorkbench.databases.collapseAll')
      .then(undefined, () => undefined);
    // The tree beside it shows what the cells left: the collection and its TTL index.
    let node: TreeNode | undefined;
    for (const label of ['test', 'eventlog'])
      node =
        (await rows(node)).find((r) => r.label === label)?.node ??
        (await rows((await rows())[0].node)).find((r) => r.label === label)!.node;
    await api.treeView.reveal(node!, { expand: true, select: false });
    const editor = await show(nb);
    const tableCell = codeCells(nb).find((c) => c.outputs.some((o) => o.items.some((i) => i.mime === TABLE)))!;
    // Outputs render asynchronously in the notebook's webview: let them settle before scrolling.
    await delay(1500);
    editor.revealRange(
      new vscode.NotebookRange(tableCell.index - 1, tableCell.index + 1),
      vscode.NotebookEditorRevealType.AtTop,
    );
    await api.whenIdle();
    const shot = await screenshot('screenshot-notebook.png', 4000);
    if (shot) assert.ok(fs.statSync(shot).size > 10_000);
  });
});
