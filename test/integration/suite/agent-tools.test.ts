// The language model tools inside a real VS Code: each ttl_* tool called with vscode.lm.invokeTool
// (no model needed), ttl_apply's confirmation (prepareInvocation's confirmationMessages, read
// through the API since VS Code's own dialog answers itself in an extension test host) and its
// eligibility preview against Convert to TTL Index's preview for the same change.
import * as assert from 'node:assert/strict';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import { TOOL_DEFINITIONS } from '../../../src/agent-tools/definitions';
import type { TTLWorkbenchApi } from '../../../src/extension/api';

const EXTENSION_ID = 'ttl-workbench.ttl-workbench';
let api: TTLWorkbenchApi;

async function invoke(name: string, input: object): Promise<any> {
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  const part = result.content[0];
  assert.ok(part instanceof vscode.LanguageModelTextPart, `${name} answers with text`);
  return JSON.parse(part.value);
}

suite('Language model tools', function () {
  this.timeout(120_000);

  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<TTLWorkbenchApi>(EXTENSION_ID);
    assert.ok(ext);
    api = await ext.activate();
  });

  test('vscode.lm.tools lists the five tools with the schemas of src/agent-tools', () => {
    for (const def of TOOL_DEFINITIONS) {
      const tool = vscode.lm.tools.find((t) => t.name === def.name);
      assert.ok(tool, `${def.name} is registered (VS Code ${vscode.version})`);
      assert.deepEqual(tool.inputSchema, def.inputSchema);
      assert.equal(tool.description, def.description);
    }
  });

  test('ttl_check_definitions finds milliseconds in a snippet, with the line and the fix, without starting the engine', async () => {
    const startedBefore = api.engineStartedBy();
    const r = await invoke('ttl_check_definitions', {
      code: 'const x = 1;\ndb.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 86400000 });\n',
    });
    assert.equal(r.problems.length, 1);
    assert.deepEqual(
      { code: r.problems[0].code, line: r.problems[0].line, with: r.problems[0].fixes[0].edits[0].with },
      { code: 'TTL014', line: 2, with: '86400' },
    );
    if (startedBefore === undefined) assert.equal(api.engineStartedBy(), undefined, 'the engine did not start');
  });

  test('ttl_explain_index: refused on _id with 197; the samples the monitor deletes now and within the hour', async () => {
    const refused = await invoke('ttl_explain_index', { key: { _id: 1 }, options: { expireAfterSeconds: 60 } });
    assert.equal(refused.accepted, false);
    assert.equal(refused.error.code, 197);
    const r = await invoke('ttl_explain_index', {
      key: { createdAt: 1 },
      options: { expireAfterSeconds: 3600 },
      now: '2026-01-01T00:00:00Z',
      samples: [
        { createdAt: { $date: '2025-12-31T22:00:00Z' } },
        { createdAt: { $date: '2025-12-31T23:30:00Z' } },
        { createdAt: '2020-01-01' },
      ],
    });
    assert.equal(r.accepted, true);
    assert.equal(r.index.description, 'TTL 1 h after createdAt');
    assert.deepEqual([r.samples.deletedNow.samples, r.samples.deletedWithin1h.samples], [[0], [1]]);
    assert.equal(r.samples.remaining, 1);
  });

  test("ttl_simulate runs on an engine of its own: clock moves with their deletions, the window's engine untouched", async () => {
    const before = (await api.backend.listDatabases()).map((d) => d.name);
    const r = await invoke('ttl_simulate', {
      code: 'use("agentsim")\ndb.s.createIndex({ t: 1 }, { expireAfterSeconds: 3600 })\ndb.s.insertMany([{ t: new Date() }, { t: new Date(Date.now() - 7200e3) }])\nclock.advance("2h")\ndb.s.countDocuments()',
      now: '2026-01-01T00:00:00Z',
    });
    assert.equal(r.ok, true);
    const move = r.statements.find((s: any) => s.clock);
    assert.deepEqual([move.line, move.clock.advanced, move.clock.ttlPasses, move.clock.deleted], [4, '2 h', 120, 2]);
    assert.equal(r.statements.at(-1).result, '0');
    assert.deepEqual(
      (await api.backend.listDatabases()).map((d) => d.name),
      before,
      'the window engine is untouched',
    );
  });

  test('ttl_simulate: a snippet that loops forever fails at the time limit with MaxTimeMSExpired', async () => {
    const started = Date.now();
    await assert.rejects(
      Promise.resolve(
        vscode.lm.invokeTool('ttl_simulate', {
          input: { code: 'while (true) {}', timeLimitMs: 300 },
          toolInvocationToken: undefined,
        }),
      ),
      /MaxTimeMSExpired/,
    );
    assert.ok(Date.now() - started < 15_000);
  });

  test('ttl_engine_state describes the window engine; an unknown collection is an error naming what exists', async () => {
    await api.backend.runCommand('agents', {
      createIndexes: 'sessions',
      indexes: [{ key: { lastSeen: 1 }, name: 'lastSeen_1', expireAfterSeconds: 3600 }],
    });
    const r = await invoke('ttl_engine_state', { db: 'agents', collection: 'sessions' });
    const ix = r.collections[0].indexes.find((i: any) => i.name === 'lastSeen_1');
    assert.equal(ix.description, 'TTL 1 h after lastSeen');
    assert.equal(ix.expiredNow, 0);
    await assert.rejects(
      Promise.resolve(
        vscode.lm.invokeTool('ttl_engine_state', {
          input: { db: 'agents', collection: 'nope' },
          toolInvocationToken: undefined,
        }),
      ),
      /no collection 'nope'; it has 'sessions'/,
    );
  });

  test("ttl_apply's confirmation shows Convert to TTL Index's preview, and the change runs after it", async () => {
    const now = (await api.backend.clock()).now.getTime();
    await api.backend.runCommand('agents', {
      createIndexes: 'events',
      indexes: [{ key: { createdAt: 1 }, name: 'createdAt_1' }],
    });
    const docs = Array.from({ length: 1500 }, (_, i) => ({ createdAt: new Date(now - (i + 60) * 60_000) }));
    await api.backend.runCommand('agents', { insert: 'events', documents: docs });
    const limit = vscode.workspace.getConfiguration('ttlWorkbench').get<number>('confirmExpiryAbove', 1000);
    assert.ok(limit < 1500);

    // The command from code, without confirm: it stops at its preview.
    const command = await vscode.commands.executeCommand<any>('ttlWorkbench.convertToTTLIndex', {
      db: 'agents',
      collection: 'events',
      index: 'createdAt_1',
      expireAfterSeconds: 60,
      quiet: true,
    });
    assert.equal(command.needsConfirmation, true);
    const input = {
      operation: 'convertToTTLIndex',
      db: 'agents',
      collection: 'events',
      index: 'createdAt_1',
      expireAfterSeconds: 60,
    };
    const confirmation = await api.agentTools.prepare('ttl_apply', input);
    assert.ok(confirmation);
    assert.match(confirmation.title, /Convert createdAt_1 of agents\.events to a TTL index/);
    // The command's own closing advice (confirm: true, or the batch-delete playground) is for callers from code.
    const sentence = String(command.message).replace(/ Pass confirm: true to go ahead.*$/s, '');
    assert.ok(confirmation.message.includes(sentence), `${confirmation.message}\n  should include\n${sentence}`);
    assert.ok(confirmation.message.includes(`(${limit.toLocaleString('en-US')})`));
    assert.equal(command.eligibleNow, 1500);

    // The tool: VS Code asks first (in an extension test host its dialog answers Continue by itself).
    const r = await invoke('ttl_apply', input);
    assert.equal(r.eligibleNow, 1500);
    assert.equal(r.reply.expireAfterSeconds_new, 60);
    const ix = (await api.backend.listIndexes('agents', 'events')).find((i) => i.name === 'createdAt_1');
    assert.equal(Number(ix?.spec.expireAfterSeconds), 60);
  });

  test('ttl_apply below the limit: a new TTL index, with a confirmation that says what becomes eligible', async () => {
    const input = {
      operation: 'createTTLIndex',
      db: 'agents',
      collection: 'sessions',
      field: 'seenAt',
      expireAfterSeconds: '1h',
    };
    const confirmation = await api.agentTools.prepare('ttl_apply', input);
    assert.match(confirmation!.message, /No existing document becomes eligible at once/);
    const r = await invoke('ttl_apply', input);
    assert.match(r.summary, /Create TTL index seenAt_1 on agents\.sessions: TTL 1 h after seenAt/);
  });
});
