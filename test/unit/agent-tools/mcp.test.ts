/**
 * The MCP door, driven by the SDK's own client over stdio against the bundled CLI (dist/cli.js
 * mcp): tools/list, each tool's answer compared with the language model tool's answer for the same
 * input (the shared core run in-process on an engine in the same state), ttl_apply's limit with
 * and without the user's word (elicitation), and bad input answered with an error, never a crash
 * or a hang.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { LIMITS, runTool, TOOL_DEFINITIONS } from '../../../src/agent-tools';
import { EmbeddedToolHost } from '../../../src/agent-tools/mcp/embedded-host';
import { languageModelToolText } from '../../../src/extension/agent-tools/answer';

const root = path.resolve(__dirname, '../../../..');
const cli = path.join(root, 'dist/cli.js');
const NOW = '2026-01-01T00:00:00Z';

/** 1,500 events an hour old or more, a plain index on createdAt, a TTL index on seenAt. */
const SEED = `
db.events.createIndex({ createdAt: 1 });
db.events.createIndex({ seenAt: 1 }, { expireAfterSeconds: 86400 });
const docs = [];
for (let i = 0; i < 1500; i++) docs.push({ createdAt: new Date(Date.now() - (i + 60) * 60000), seenAt: new Date(), n: i });
db.events.insertMany(docs);
db.small.insertMany([{ at: new Date(Date.now() - 7200e3) }, { at: new Date() }]);
`;

function seedFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-mcp-'));
  const script = path.join(dir, '..', `${path.basename(dir)}-seed.js`);
  fs.writeFileSync(script, SEED);
  const r = spawnSync(process.execPath, [cli, 'run', '--data', dir, '--now', NOW, script], { encoding: 'utf8' });
  fs.rmSync(script);
  assert.equal(r.status, 0, r.stderr);
  return dir;
}

async function connect(args: string[], options: { elicit?: 'accept' | 'decline' } = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', ...args],
    stderr: 'pipe',
    cwd: root,
  });
  const client = new Client(
    { name: 'ttl-workbench-test', version: '1' },
    options.elicit ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  const asked: string[] = [];
  if (options.elicit) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(String(request.params.message));
      return { action: options.elicit! };
    });
  }
  await client.connect(transport);
  return { client, asked };
}

function textOf(result: unknown): string {
  const content = (result as { content: Array<{ type: string; text: string }> }).content;
  assert.equal(content.length, 1);
  assert.equal(content[0].type, 'text');
  return content[0].text;
}

/** The write the read-only tests ask for: a TTL index on the seeded folder's `test.small`. */
const CREATE_TTL_ON_SMALL = {
  operation: 'createTTLIndex',
  db: 'test',
  collection: 'small',
  field: 'at',
  expireAfterSeconds: 60,
};

describe('ttl-workbench mcp', () => {
  let data: string;
  let copy: string;
  /** The seeded folder as the seed left it, never opened (a copy of an open folder copies its lock). */
  let pristine: string;
  let client: Client;
  let local: EmbeddedToolHost;
  const settings = { confirmExpiryAbove: 1000, timeLimitMs: 10_000 };

  before(async () => {
    data = seedFolder();
    pristine = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-mcp-seed-'));
    fs.cpSync(data, pristine, { recursive: true });
    copy = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-mcp-copy-'));
    fs.cpSync(pristine, copy, { recursive: true });
    ({ client } = await connect(['--data', data, '--now', NOW]));
    // The language model tools' side: the same core in this process, on a copy of the same folder.
    local = new EmbeddedToolHost({ data: copy, now: new Date(NOW), cwd: root, settings });
  });

  after(async () => {
    await client.close();
    local.dispose();
    fs.rmSync(data, { recursive: true, force: true });
    fs.rmSync(copy, { recursive: true, force: true });
    fs.rmSync(pristine, { recursive: true, force: true });
  });

  test('tools/list shows every tool with its schema, description and read-only hint', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      TOOL_DEFINITIONS.map((t) => t.name),
    );
    for (const def of TOOL_DEFINITIONS) {
      const listed = tools.find((t) => t.name === def.name)!;
      assert.deepEqual(listed.inputSchema, def.inputSchema);
      assert.equal(listed.description, def.description);
      assert.equal(listed.annotations?.readOnlyHint, def.readOnly);
      assert.equal(listed.annotations?.destructiveHint, !def.readOnly);
    }
  });

  const sameInputs: Array<[string, Record<string, unknown>]> = [
    ['ttl_check_definitions', { code: 'db.c.createIndex({ createdAt: 1 }, { expireAfterSeconds: 86400000 })' }],
    ['ttl_check_definitions', { path: 'examples/01-expire-after-seconds.ttlbook' }],
    [
      'ttl_explain_index',
      {
        key: { createdAt: 1 },
        options: { expireAfterSeconds: 3600 },
        samples: [
          { createdAt: { $date: '2025-12-31T22:00:00Z' } },
          { createdAt: { $date: '2025-12-31T23:30:00Z' } },
          { createdAt: '2020-01-01' },
        ],
        now: NOW,
        afterHours: 1,
      },
    ],
    ['ttl_explain_index', { key: { _id: 1 }, options: { expireAfterSeconds: 60 }, now: NOW }],
    [
      'ttl_simulate',
      {
        code: 'db.s.createIndex({ t: 1 }, { expireAfterSeconds: 3600 })\ndb.s.insertMany([{ t: new Date() }, { t: new Date(Date.now() - 7200e3) }])\nttl.runPass()\nclock.advance("2h")\ndb.s.countDocuments()',
        now: NOW,
      },
    ],
    ['ttl_engine_state', {}],
    ['ttl_engine_state', { db: 'test', collection: 'events' }],
  ];

  for (const [name, input] of sameInputs) {
    test(`${name} answers the same text through MCP as the language model tool (${JSON.stringify(input).slice(0, 60)}…)`, async () => {
      const viaMcp = textOf(await client.callTool({ name, arguments: input }));
      const viaLm = await languageModelToolText(() => runTool, local, name, input, false);
      // ObjectIds the engines generate and the time a pass took differ; everything else is the same.
      const ids = (t: string) =>
        t.replace(/"\$oid": "[0-9a-f]{24}"/g, '"$oid": "…"').replace(/"millis": [0-9.e-]+/g, '"millis": …');
      assert.equal(ids(viaMcp), ids(viaLm));
      assert.ok(JSON.parse(viaMcp).summary);
    });
  }

  test('ttl_explain_index: mongod would refuse a TTL index on _id with 197, and the samples show which expire', async () => {
    const refused = JSON.parse(
      textOf(await client.callTool({ name: 'ttl_explain_index', arguments: sameInputs[3][1] })),
    );
    assert.equal(refused.accepted, false);
    assert.equal(refused.error.code, 197);
    const explained = JSON.parse(
      textOf(await client.callTool({ name: 'ttl_explain_index', arguments: sameInputs[2][1] })),
    );
    assert.equal(explained.accepted, true);
    assert.deepEqual(explained.samples.deletedNow.samples, [0]);
    assert.deepEqual(explained.samples.deletedWithin1h.samples, [1]);
    assert.equal(explained.samples.remaining, 1, 'a string is not a date: it never expires');
  });

  test('ttl_simulate reports each clock move with the passes and deletions it caused', async () => {
    const r = JSON.parse(textOf(await client.callTool({ name: 'ttl_simulate', arguments: sameInputs[4][1] })));
    assert.equal(r.ok, true);
    const move = r.statements.find((s: any) => s.clock);
    assert.equal(move.line, 4);
    assert.deepEqual(
      { from: move.clock.from, to: move.clock.to, ttlPasses: move.clock.ttlPasses, deleted: move.clock.deleted },
      { from: '2026-01-01T00:00:00.000Z', to: '2026-01-01T02:00:00.000Z', ttlPasses: 120, deleted: 1 },
    );
    assert.equal(r.statements[2].result.deleted ?? r.statements[2].result.deletedDocuments ?? 1, 1);
    assert.equal(r.statements.at(-1).result, '0');
  });

  test('results are bounded: a long list of documents is cut with a count of what was left out', async () => {
    const r = JSON.parse(
      textOf(
        await client.callTool({
          name: 'ttl_simulate',
          arguments: { code: 'for (let i = 0; i < 500; i++) db.c.insertOne({ i })\ndb.c.find().toArray()' },
        }),
      ),
    );
    const last = r.statements.at(-1).result;
    assert.equal(last.documents.length, LIMITS.documents);
    assert.equal(last.omittedDocuments, 500 - LIMITS.documents);
  });

  test('bad input: wrong types and unknown fields are InvalidParams errors with a message', async () => {
    for (const [name, args, words] of [
      ['ttl_simulate', { code: 5 }, /code must be a string, got a number/],
      ['ttl_explain_index', { options: {} }, /key is required/],
      [
        'ttl_apply',
        { operation: 'drop', db: 'test', collection: 'events', expireAfterSeconds: 1 },
        /operation must be one of/,
      ],
      ['ttl_engine_state', { database: 'test' }, /unknown field 'database'/],
      ['ttl_check_definitions', {}, /either 'code'.*or 'path'/],
      ['ttl_nothing', {}, /There is no tool 'ttl_nothing'/],
    ] as const) {
      await assert.rejects(
        client.callTool({ name, arguments: args }),
        (e: unknown) => e instanceof McpError && e.code === -32602 && words.test(e.message),
        `${name} ${JSON.stringify(args)}`,
      );
    }
  });

  test('an unknown collection is a tool error that names what exists', async () => {
    const r = await client.callTool({ name: 'ttl_engine_state', arguments: { db: 'test', collection: 'nope' } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /has no collection 'nope'; it has .*'events'/);
    const a = await client.callTool({
      name: 'ttl_apply',
      arguments: {
        operation: 'changeExpireAfterSeconds',
        db: 'test',
        collection: 'nope',
        index: 'x',
        expireAfterSeconds: 60,
      },
    });
    assert.equal(a.isError, true);
    assert.match(textOf(a), /no collection 'nope'/);
  });

  test('a snippet that loops forever ends at the time limit with MaxTimeMSExpired, and the server goes on', async () => {
    const started = Date.now();
    const r = await client.callTool({
      name: 'ttl_simulate',
      arguments: { code: 'let n = 0\nwhile (true) { n++ }', timeLimitMs: 300 },
    });
    assert.ok(Date.now() - started < 5000, 'it did not hang');
    assert.equal(r.isError, true);
    const body = JSON.parse(textOf(r));
    assert.equal(body.statements[1].error.codeName, 'MaxTimeMSExpired');
    assert.equal(body.statements[1].line, 2);
    // The server still answers.
    const after = await client.callTool({ name: 'ttl_simulate', arguments: { code: '1 + 1' } });
    assert.equal(JSON.parse(textOf(after)).statements[0].result, '2');
  });

  test('ttl_apply below the limit runs; above it needs the user (elicitation) and is refused without', async () => {
    const small = await client.callTool({
      name: 'ttl_apply',
      arguments: {
        operation: 'createTTLIndex',
        db: 'test',
        collection: 'small',
        field: 'at',
        expireAfterSeconds: '1h',
      },
    });
    assert.equal(small.isError, undefined, textOf(small));
    assert.equal(JSON.parse(textOf(small)).eligibleNow, 1);
    const convert = {
      operation: 'convertToTTLIndex',
      db: 'test',
      collection: 'events',
      index: 'createdAt_1',
      expireAfterSeconds: 60,
    };
    const refused = await client.callTool({ name: 'ttl_apply', arguments: convert });
    assert.equal(refused.isError, true);
    assert.match(
      textOf(refused),
      /not run\. 1,500 existing documents of test\.events become eligible .* above the limit of 1,000/,
    );

    const declining = await connect(['--data', copy2(), '--now', NOW], { elicit: 'decline' });
    try {
      const r = await declining.client.callTool({ name: 'ttl_apply', arguments: convert });
      assert.equal(r.isError, true);
      assert.equal(declining.asked.length, 1);
      assert.match(declining.asked[0], /1,500 existing documents of test\.events become eligible for deletion at once/);
    } finally {
      await declining.client.close();
    }
    const accepting = await connect(['--data', copy2(), '--now', NOW], { elicit: 'accept' });
    try {
      const r = await accepting.client.callTool({ name: 'ttl_apply', arguments: convert });
      assert.equal(r.isError, undefined, textOf(r));
      const body = JSON.parse(textOf(r));
      assert.equal(body.eligibleNow, 1500);
      assert.equal(body.reply.expireAfterSeconds_new, 60);
    } finally {
      await accepting.client.close();
    }
  });

  const extra: string[] = [];
  /** Another copy of the seeded folder (the first server holds `data`'s lock). */
  function copy2(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-mcp-copy-'));
    fs.cpSync(pristine, dir, { recursive: true });
    extra.push(dir);
    return dir;
  }
  after(() => {
    for (const dir of extra) fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('ttl-workbench mcp --read-only: a folder another process holds', () => {
  /** Starts `serve --data dir`, which holds the folder; resolves once it does. */
  async function holdWithServe(dir: string): Promise<ChildProcessWithoutNullStreams> {
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data', dir]);
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    return child;
  }
  const files = (dir: string) =>
    fs
      .readdirSync(dir)
      .sort()
      .map((f) => `${f}:${fs.statSync(path.join(dir, f)).size}`);

  test('the read tools and simulations work; ttl_apply is refused with IllegalOperation (20), saying why; nothing in the folder changes', async () => {
    const data = seedFolder();
    const holder = await holdWithServe(data);
    const lock = fs.readFileSync(path.join(data, 'LOCK'), 'utf8');
    const before = files(data);
    const { client } = await connect(['--data', data, '--read-only']);
    try {
      const state = JSON.parse(textOf(await client.callTool({ name: 'ttl_engine_state', arguments: {} })));
      assert.deepEqual(
        state.collections.map((c: { db: string; name: string; documents: number }) => [
          `${c.db}.${c.name}`,
          c.documents,
        ]),
        [
          ['test.events', 1500],
          ['test.small', 2],
        ],
      );
      const simulated = await client.callTool({
        name: 'ttl_simulate',
        arguments: { code: 'db.s.insertOne({ t: new Date() })\ndb.s.countDocuments()', now: NOW },
      });
      assert.equal(simulated.isError, undefined, textOf(simulated));
      const checked = await client.callTool({
        name: 'ttl_check_definitions',
        arguments: { code: 'db.c.createIndex({ at: 1 }, { expireAfterSeconds: "1h" })' },
      });
      assert.equal(checked.isError, undefined, textOf(checked));
      const refused = await client.callTool({
        name: 'ttl_apply',
        arguments: CREATE_TTL_ON_SMALL,
      });
      assert.equal(refused.isError, true);
      assert.equal(
        textOf(refused),
        'ttl_apply refused (code 20, IllegalOperation): it changes the engine, and this server is read-only (opened with --read-only). ttl_check_definitions, ttl_explain_index, ttl_simulate, ttl_engine_state still work (ttl_explain_index and ttl_simulate on a new engine of their own). To apply the change, restart ttl-workbench mcp without --read-only once no other process holds the data folder, or apply it in the process that holds it.',
      );
      const small = JSON.parse(
        textOf(await client.callTool({ name: 'ttl_engine_state', arguments: { db: 'test', collection: 'small' } })),
      );
      assert.deepEqual(
        small.collections[0].indexes.map((i: { name: string }) => i.name),
        ['_id_'],
        'no index was made',
      );
    } finally {
      await client.close();
    }
    try {
      assert.equal(fs.readFileSync(path.join(data, 'LOCK'), 'utf8'), lock, 'the holder keeps its lock');
      assert.deepEqual(files(data), before, 'nothing written to the folder');
    } finally {
      const exited = new Promise((resolve) => holder.once('exit', resolve));
      holder.kill('SIGTERM');
      await exited;
      fs.rmSync(data, { recursive: true, force: true });
    }
  });

  test('the engine itself refuses a write under --read-only (a second guard behind the server): code 20 through the same tool core', async () => {
    const data = seedFolder();
    const holder = await holdWithServe(data);
    const host = new EmbeddedToolHost({
      data,
      readOnly: 'opened with --read-only',
      cwd: root,
      settings: { confirmExpiryAbove: 1000, timeLimitMs: 10_000 },
    });
    try {
      const notes = (await host.open().storageInfo()).notes;
      assert.ok(notes.includes(`opened with --read-only: nothing is written to ${data}`), JSON.stringify(notes));
      const r = await runTool(host, 'ttl_apply', CREATE_TTL_ON_SMALL);
      assert.equal(r.isError, true);
      assert.match(
        r.text,
        /the engine is read-only \(opened with --read-only\)\. Reads work; .*\(code 20, IllegalOperation\)/,
      );
    } finally {
      host.dispose();
      const exited = new Promise((resolve) => holder.once('exit', resolve));
      holder.kill('SIGTERM');
      await exited;
      fs.rmSync(data, { recursive: true, force: true });
    }
  });
});
