/**
 * Crash tests (durable storage issue): a child process writes to a data folder at random and is
 * killed with SIGKILL at a random moment, over and over on the same folder. After each kill the
 * folder is reopened: every acknowledged write is there (fsync mode), the one write in flight is
 * there entirely or not at all (a TTL pass in flight: some of its deletes, nothing else), the
 * indexes agree with the documents, and the TTL settings are intact.
 * 200 rounds by default; CI=true runs 100 (CRASH_ROUNDS overrides).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { VirtualClock, type Document } from '../../../src/engine';
import { closeStoredEngine, openStoredEngine } from '../../../src/storage/engine-store';
import { prng } from '../helpers/prng';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? (process.env.CI === 'true' ? 100 : 200));
const CHILD = path.join(__dirname, 'crash-child.js');

interface Model {
  docs: Map<number, { v: number; t: number }>;
  v1: boolean;
  eas: number;
  clock: number;
}

type Effect = {
  put?: Array<{ _id: number; v: number; t: string }>;
  set?: { _id: number; v: number };
  del?: number[];
  idx?: { v_1: boolean };
  eas?: number;
  ttl?: true | number[];
  now?: number;
  compact?: true;
};

function apply(model: Model, e: Effect): void {
  if (e.put) for (const d of e.put) model.docs.set(d._id, { v: d.v, t: Date.parse(d.t) });
  if (e.set) model.docs.get(e.set._id)!.v = e.set.v;
  if (e.del) for (const id of e.del) model.docs.delete(id);
  if (e.idx) model.v1 = e.idx.v_1;
  if (e.eas !== undefined) model.eas = e.eas;
  if (Array.isArray(e.ttl)) for (const id of e.ttl) model.docs.delete(id);
  if (e.now !== undefined) model.clock = e.now;
}

/** Run the child until it is killed; returns the acknowledged effects and the one in flight. */
function runChild(
  dir: string,
  seed: number,
  killAfterMs: number,
): Promise<{ acked: Effect[]; pending?: Effect; stderr: string; ready: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dir, String(seed)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      // The clock for the kill starts once the child has opened the folder (R line).
      if (!timer && out.includes('R ')) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal !== 'SIGKILL') return reject(new Error(`the child exited by itself (${code}): ${stderr}`));
      const acked: Effect[] = [];
      let pending: Effect | undefined;
      for (const line of out.split('\n')) {
        if (line.startsWith('B ')) pending = JSON.parse(line.slice(2)) as Effect;
        else if (line.startsWith('A ')) {
          acked.push(JSON.parse(line.slice(2)) as Effect);
          pending = undefined;
        }
      }
      resolve({ acked, pending, stderr, ready: out.includes('R ') });
    });
  });
}

function sameDocs(a: Model['docs'], b: Model['docs']): boolean {
  if (a.size !== b.size) return false;
  for (const [id, d] of a) {
    const o = b.get(id);
    if (!o || o.v !== d.v || o.t !== d.t) return false;
  }
  return true;
}

function cloneModel(m: Model): Model {
  return { docs: new Map([...m.docs].map(([k, v]) => [k, { ...v }])), v1: m.v1, eas: m.eas, clock: m.clock };
}

describe('crash safety: SIGKILL at random moments (fsync mode)', () => {
  it(`rounds of random writes killed mid-way: acknowledged writes survive, in-flight writes are all or nothing, indexes agree (${ROUNDS} rounds)`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-crash-'));
    const rand = prng(20261122);
    let model: Model = { docs: new Map(), v1: false, eas: 3600, clock: Date.UTC(2026, 0, 1) };
    let inFlightSeen = 0;
    let inFlightApplied = 0;
    let torn = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const { acked, pending, stderr, ready } = await runChild(dir, 1000 + round, 5 + Math.floor(rand() * 120));
      assert.ok(ready || acked.length === 0, `round ${round}: ${stderr}`);
      for (const e of acked) apply(model, e);
      // Reopen and read everything back.
      const opened = openStoredEngine(dir, { engine: { clock: new VirtualClock(Date.UTC(2026, 0, 1)) } });
      try {
        torn += opened.recovery.problems.filter((p) => /torn/.test(p)).length;
        assert.ok(
          !opened.recovery.stoppedAt,
          `round ${round}: corruption reported after a plain kill: ${opened.recovery.problems.join('; ')}`,
        );
        const engine = opened.engine;
        const coll = engine.getCollection('app', 'c');
        const docs: Model['docs'] = new Map();
        if (coll)
          for (const r of coll.records.values())
            docs.set(Number(r.doc._id), { v: Number(r.doc.v), t: (r.doc.t as Date).getTime() });
        const specs = coll ? [...coll.indexes.values()].map((i) => i.spec) : [];
        const actual: Model = {
          docs,
          v1: specs.some((s) => s.name === 'v_1'),
          eas: Number(specs.find((s) => s.name === 't_1')?.expireAfterSeconds ?? model.eas),
          clock: engine.clock.now(),
        };
        const matches = (m: Model) => sameDocs(m.docs, actual.docs) && m.v1 === actual.v1 && m.eas === actual.eas;
        if (!matches(model)) {
          assert.ok(pending, `round ${round}: state differs from the acknowledged writes and nothing was in flight`);
          inFlightSeen++;
          if (pending.ttl) {
            // A TTL pass in flight: some of its visits may be stored. Only deletions, of documents it could delete.
            for (const id of actual.docs.keys())
              assert.ok(model.docs.has(id), `round ${round}: document ${id} appeared during a TTL pass`);
            for (const [id, d] of model.docs)
              if (!actual.docs.has(id))
                assert.ok(
                  d.t + model.eas * 1000 <= actual.clock + 61_000,
                  `round ${round}: TTL deleted unexpired ${id}`,
                );
            model = { ...cloneModel(model), docs: new Map([...model.docs].filter(([id]) => actual.docs.has(id))) };
          } else {
            const withPending = cloneModel(model);
            apply(withPending, pending);
            assert.ok(
              matches(withPending),
              `round ${round}: the write in flight (${JSON.stringify(pending)}) is half-applied`,
            );
            model = withPending;
          }
          inFlightApplied++;
        }
        // TTL settings intact; indexes agree with the documents.
        if (coll) {
          assert.equal(
            coll.indexes.get('t_1')?.spec.expireAfterSeconds !== undefined,
            true,
            `round ${round}: the TTL index lost its expireAfterSeconds`,
          );
          for (const index of coll.indexes.values()) {
            const viaIndex = engine.runCommand('app', {
              find: 'c',
              filter: {},
              hint: index.name,
              projection: { _id: 1 },
              batchSize: 1_000_000,
            });
            const ids = ((viaIndex.cursor as Document).firstBatch as Document[])
              .map((d) => Number(d._id))
              .sort((a, b) => a - b);
            assert.deepEqual(
              ids,
              [...docs.keys()].sort((a, b) => a - b),
              `round ${round}: index ${index.name} disagrees with the documents`,
            );
          }
        }
        assert.ok(
          actual.clock >= model.clock,
          `round ${round}: the clock ran backwards (${actual.clock} < ${model.clock})`,
        );
        model.clock = actual.clock;
      } finally {
        closeStoredEngine(opened);
      }
    }
    console.log(
      `crash rounds: ${ROUNDS}; documents at the end: ${model.docs.size}; kills with a write in flight that was stored: ${inFlightApplied} of ${inFlightSeen} differing; torn tails cut: ${torn}`,
    );
  });
});
