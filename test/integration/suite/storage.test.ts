// Durable storage inside a real VS Code: the engine lives in the workspace's storage folder by
// default (ttlWorkbench.storage = workspace), commits reach its journal, Compact Now writes a
// snapshot, Export / Import EJSON round-trip a database, Reveal Data Folder names the folder, and
// a second writer (the CLI with --data on the same folder) is refused while the window holds it.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import type { TTLWorkbenchApi } from '../../../src/extension/api';
import { treeRows } from './tree-rows';

const EXTENSION_ID = 'ttl-workbench.ttl-workbench';
let api: TTLWorkbenchApi;
let extensionPath: string;

type Result = Record<string, unknown> & { ok: boolean };

async function ok(command: string, args: Record<string, unknown> = {}): Promise<Result> {
  const r = await vscode.commands.executeCommand<Result>(`ttlWorkbench.${command}`, { quiet: true, ...args });
  assert.equal(r?.ok, true, `ttlWorkbench.${command} failed: ${JSON.stringify(r)}`);
  return r;
}

suite('Durable storage', function () {
  this.timeout(120_000);

  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<TTLWorkbenchApi>(EXTENSION_ID);
    assert.ok(ext);
    extensionPath = ext.extensionPath;
    api = await ext.activate();
  });

  test('the engine lives in the workspace storage folder; commits reach its journal; Compact Now writes a snapshot', async () => {
    const info = await api.backend.storageInfo();
    assert.equal(info.mode, 'folder');
    assert.equal(info.readOnly, false);
    assert.ok(info.dir && fs.existsSync(info.dir), `data folder ${info.dir}`);
    await api.backend.runCommand('kept', {
      createIndexes: 'sessions',
      indexes: [{ key: { lastSeen: 1 }, name: 'lastSeen_1', expireAfterSeconds: 3600 }],
    });
    await api.backend.runCommand('kept', {
      insert: 'sessions',
      documents: [
        { _id: 1, lastSeen: new Date() },
        { _id: 2, lastSeen: new Date() },
      ],
    });
    const journals = fs.readdirSync(info.dir).filter((f) => /^journal-\d+\.ttlj$/.test(f));
    assert.ok(
      journals.length >= 1 && (await api.backend.storageInfo()).journalBytes > 0,
      'the writes are in the journal',
    );
    const compacted = await ok('compactNow');
    assert.ok((compacted.documents as number) >= 2);
    assert.ok(
      fs.readdirSync(info.dir).some((f) => /^snapshot-\d+\.ttls$/.test(f)),
      'a snapshot was written',
    );
    const revealed = await ok('revealDataFolder');
    assert.equal(revealed.dir, info.dir);
  });

  test('Export Database as EJSON and Import EJSON round-trip a database with its TTL index and types', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-export-')), 'kept.ejson.json');
    const exported = await ok('exportDatabase', { db: 'kept', file });
    assert.ok((exported.bytes as number) > 0);
    assert.match(fs.readFileSync(file, 'utf8'), /"expireAfterSeconds"/);
    const imported = await ok('importEJSON', { file, into: 'keptCopy' });
    assert.deepEqual([imported.database, imported.collections, imported.documents], ['keptCopy', 1, 2]);
    const indexes = await api.backend.listIndexes('keptCopy', 'sessions');
    assert.deepEqual(
      indexes.map((i) => [i.name, i.spec.expireAfterSeconds === undefined ? null : Number(i.spec.expireAfterSeconds)]),
      [
        ['_id_', null],
        ['lastSeen_1', 3600],
      ],
    );
    const again = await vscode.commands.executeCommand<Result>('ttlWorkbench.importEJSON', {
      quiet: true,
      file,
      into: 'keptCopy',
    });
    assert.equal(again.ok, false, 'importing over existing collections is refused');
  });

  test('one writer per folder: the CLI cannot write to the folder this window holds', async () => {
    const info = await api.backend.storageInfo();
    const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-lock-')), 'w.js');
    fs.writeFileSync(script, 'db.c.insertOne({ a: 1 })\n');
    const r = spawnSync(
      process.execPath,
      [path.join(extensionPath, 'dist', 'cli.js'), 'run', '--data', info.dir!, script],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /is in use by process \d+ \(a VS Code window\)/);
  });

  test('a damage report in the data folder shows as a warning row in the Databases view until Acknowledge Storage Damage removes it (the kept files stay)', async () => {
    const info = await api.backend.storageInfo();
    const record = path.join(info.dir!, 'ttl-store.damage.json');
    // What a recovery from a damaged journal leaves (the unit tests make it for real; here the view and the command are under test).
    fs.writeFileSync(
      record,
      JSON.stringify({
        recoveries: [
          {
            at: '2026-11-25T12:00:00.000Z',
            notes: [
              'journal-0.ttlj: damaged at byte offset 4096 (a record fails its CRC-32 check); everything before it was recovered, nothing after it was applied',
            ],
            documents: { 'kept.sessions': 2 },
          },
        ],
      }),
    );
    await vscode.commands.executeCommand('ttlWorkbench.refresh');
    const [engine] = await treeRows(api);
    const warning = (await treeRows(api, engine.node)).find((r) => /Data folder damage recovered/.test(r.label));
    assert.ok(warning, 'the warning row is shown');
    assert.equal(warning.item.command?.command, 'ttlWorkbench.acknowledgeStorageDamage');
    const tooltip = warning.item.tooltip;
    assert.match(
      typeof tooltip === 'string' ? tooltip : (tooltip?.value ?? ''),
      /kept kept\.sessions: 2[^]*damaged at byte offset 4096/,
    );
    const r = await ok('acknowledgeStorageDamage');
    assert.equal(r.acknowledged, 1);
    assert.equal(fs.existsSync(record), false, 'the report is gone');
    assert.ok(
      !(await treeRows(api, engine.node)).some((row) => /Data folder damage recovered/.test(row.label)),
      'the row is gone',
    );
    assert.equal((await ok('acknowledgeStorageDamage')).acknowledged, 0, 'nothing left to acknowledge');
  });
});
