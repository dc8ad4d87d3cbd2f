/**
 * Model-based TTL test: thousands of random operations from a seeded PRNG against the engine and
 * against a tiny reference model written here, independently of src/engine/ttl. After every clock
 * advance the engine's documents must equal the model's:
 *   - no document that is not expired (at the last pass) is gone, and
 *   - every document that was expired at the time of the last pass is gone
 * (rules 7.2, 7.7, 7.8, 3.5, 3.6, 3.11, 1.4 truncation; default batch limits and small data, so a
 * pass deletes everything expired).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { VirtualClock } from '../../../../src/engine/clock';
import { prng } from '../../helpers/prng';

const DB = 'app';
const COLL = 'm';
const T0 = Date.UTC(2026, 0, 1);
const FIELDS = ['a', 'b', 'c'] as const;
type Field = (typeof FIELDS)[number];

// ---- the reference model ----------------------------------------------------------------------

/** Per field: no index, a plain index, or a TTL index with its effective seconds. */
type FieldIndex = { kind: 'none' } | { kind: 'plain' } | { kind: 'ttl'; seconds: number };

class Model {
  readonly docs = new Map<number, Document>();
  readonly indexes = new Map<Field, FieldIndex>(FIELDS.map((f) => [f, { kind: 'none' }]));

  /** The earliest BSON Date directly in the value (top-level array elements count; nothing else). */
  static earliestDate(value: unknown): number | undefined {
    const candidates = Array.isArray(value) ? value : [value];
    let min: number | undefined;
    for (const v of candidates) {
      if (v instanceof Date && (min === undefined || v.getTime() < min)) min = v.getTime();
    }
    return min;
  }

  /** When the document expires under the current settings, or undefined if it never does. */
  expiresAt(doc: Document): number | undefined {
    let at: number | undefined;
    for (const f of FIELDS) {
      const idx = this.indexes.get(f)!;
      if (idx.kind !== 'ttl') continue;
      const d = Model.earliestDate(doc[f]);
      if (d === undefined) continue;
      const e = d + idx.seconds * 1000;
      if (at === undefined || e < at) at = e;
    }
    return at;
  }

  /** A pass at time t: delete everything expired at t (threshold inclusive). */
  passAt(t: number): void {
    for (const [id, doc] of this.docs) {
      const e = this.expiresAt(doc);
      if (e !== undefined && e <= t) this.docs.delete(id);
    }
  }
}

// ---- random values ----------------------------------------------------------------------------

function randomValue(rnd: () => number, now: number): unknown {
  const r = rnd();
  const span = 3 * 3_600_000;
  // Half of the dates sit on whole seconds / minutes, so expiry instants often coincide exactly with
  // pass times (passes run on whole minutes after T0): the inclusive threshold gets exercised.
  const date = () => {
    const offset = (rnd() * 2 - 1) * span;
    const k = rnd();
    const unit = k < 0.25 ? 60_000 : k < 0.5 ? 1000 : 1;
    return new Date(Math.floor((now + offset) / unit) * unit);
  };
  if (r < 0.45) return date();
  if (r < 0.5) return new Date(Math.floor(-rnd() * 1e12)); // before 1970
  if (r < 0.7) {
    const n = Math.floor(rnd() * 4);
    const arr: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const k = rnd();
      arr.push(k < 0.6 ? date() : k < 0.8 ? 'x' : k < 0.9 ? Math.floor(rnd() * 1e12) : null);
    }
    return arr;
  }
  if (r < 0.8) return date().toISOString();
  if (r < 0.9) return Math.floor(now - rnd() * 1e9);
  if (r < 0.95) return null;
  return undefined; // missing
}

function randomSeconds(rnd: () => number): number {
  const r = rnd();
  if (r < 0.1) return 0;
  if (r < 0.3) return Math.floor(rnd() * 3600) + 0.5; // fractional: truncated
  return Math.floor(rnd() * 7200);
}

// ---- the run ----------------------------------------------------------------------------------

interface Options {
  /** Create indexes descending ({f: -1}) half of the time. */
  mixedDirections: boolean;
}

function runScenario(
  seed: number,
  operations: number,
  options: Options,
): { advances: number; passes: number; ttlDeleted: number } {
  const rnd = prng(seed);
  const clock = new VirtualClock(T0);
  const engine = new Engine({ clock });
  const c = engine.db(DB).collection(COLL);
  const model = new Model();
  /** The engine-side key pattern and name of each field's index (the model ignores direction). */
  const directionOf = new Map<Field, 1 | -1>();
  const keyOf = (f: Field) => ({ [f]: directionOf.get(f)! });
  const nameOf = (f: Field) => `${f}_${directionOf.get(f)!}`;
  engine.runCommand(DB, { create: COLL });
  let nextId = 0;
  let advances = 0;
  const log: string[] = [];

  const check = (label: string) => {
    const engineDocs = new Map(c.find({}).map((d) => [d._id as number, d]));
    const actual = new Set(engineDocs.keys());
    const gone = [...model.docs.keys()].filter((id) => !actual.has(id));
    const survived = [...actual].filter((id) => !model.docs.has(id));
    if (gone.length || survived.length) {
      const show = (id: number) => {
        const doc = model.docs.get(id);
        return JSON.stringify({ id, doc, expiresAt: doc ? model.expiresAt(doc) : 'deleted in model' });
      };
      assert.fail(
        `seed ${seed}, ${label} at ${new Date(clock.now()).toISOString()} (last pass ${engine.ttl.status().lastPassAt?.toISOString()}):\n` +
          `  unexpired documents gone: ${gone.slice(0, 5).map(show).join(', ')}\n` +
          `  expired documents that survived a pass: ${survived
            .slice(0, 5)
            .map((id) => {
              const doc = engineDocs.get(id)!;
              const at = model.expiresAt(doc);
              return JSON.stringify({ id, doc, expiresAt: at === undefined ? undefined : new Date(at).toISOString() });
            })
            .join(', ')}\n` +
          `  indexes: ${JSON.stringify([...model.indexes].map(([f, i]) => ({ key: i.kind === 'none' ? f : nameOf(f), ...i })))}\n` +
          `  recent operations: ${log.slice(-10).join(' | ')}`,
      );
    }
  };

  for (let op = 0; op < operations; op++) {
    const r = rnd();
    const now = clock.now();
    if (r < 0.35) {
      // insert
      const id = nextId++;
      const doc: Document = { _id: id };
      for (const f of FIELDS) {
        const v = randomValue(rnd, now);
        if (v !== undefined) doc[f] = v;
      }
      c.insertOne(doc);
      model.docs.set(id, doc);
      log.push(`insert ${id}`);
    } else if (r < 0.42) {
      // update one field of an existing document
      const keys = [...model.docs.keys()];
      if (keys.length === 0) continue;
      const id = keys[Math.floor(rnd() * keys.length)];
      const f = FIELDS[Math.floor(rnd() * FIELDS.length)];
      const v = randomValue(rnd, now);
      const doc = { ...model.docs.get(id)! };
      if (v === undefined) {
        c.updateOne({ _id: id }, { $unset: { [f]: '' } });
        delete doc[f];
      } else {
        c.updateOne({ _id: id }, { $set: { [f]: v } });
        doc[f] = v;
      }
      model.docs.set(id, doc);
      log.push(`update ${id}.${f}`);
    } else if (r < 0.48) {
      // delete a document
      const keys = [...model.docs.keys()];
      if (keys.length === 0) continue;
      const id = keys[Math.floor(rnd() * keys.length)];
      assert.equal(
        c.deleteOne({ _id: id }).deletedCount,
        1,
        `seed ${seed}: document ${id} exists in the engine before deleteOne`,
      );
      model.docs.delete(id);
      log.push(`delete ${id}`);
    } else if (r < 0.56) {
      // index changes on a random field
      const f = FIELDS[Math.floor(rnd() * FIELDS.length)];
      const idx = model.indexes.get(f)!;
      const s = randomSeconds(rnd);
      const k = rnd();
      if (idx.kind === 'none') {
        directionOf.set(f, options.mixedDirections && rnd() < 0.5 ? -1 : 1);
        if (k < 0.6) {
          c.createIndex(keyOf(f), { expireAfterSeconds: s });
          model.indexes.set(f, { kind: 'ttl', seconds: Math.trunc(s) });
          log.push(`createIndex ttl ${nameOf(f)} ${s}`);
        } else {
          c.createIndex(keyOf(f));
          model.indexes.set(f, { kind: 'plain' });
          log.push(`createIndex plain ${nameOf(f)}`);
        }
      } else if (idx.kind === 'plain') {
        if (k < 0.7) {
          const reply = engine.runCommand(DB, {
            collMod: COLL,
            index: { keyPattern: keyOf(f), expireAfterSeconds: s },
          });
          assert.equal('expireAfterSeconds_old' in reply, false, 'conversion has no _old');
          model.indexes.set(f, { kind: 'ttl', seconds: Math.trunc(s) });
          log.push(`convert ${f} ${s}`);
        } else {
          c.dropIndex(nameOf(f));
          model.indexes.set(f, { kind: 'none' });
          log.push(`drop ${f}`);
        }
      } else if (k < 0.85) {
        const reply = engine.runCommand(DB, { collMod: COLL, index: { name: nameOf(f), expireAfterSeconds: s } });
        assert.equal(Number(reply.expireAfterSeconds_old), idx.seconds, 'collMod reports the old value');
        assert.equal(Number(reply.expireAfterSeconds_new), Math.trunc(s), 'collMod reports the new value');
        model.indexes.set(f, { kind: 'ttl', seconds: Math.trunc(s) });
        log.push(`collMod ${f} ${s}`);
      } else {
        c.dropIndex(nameOf(f));
        model.indexes.set(f, { kind: 'none' });
        log.push(`drop ${f}`);
      }
    } else {
      // advance the clock by a random amount (sometimes exactly onto a pass boundary)
      const k = rnd();
      const ms = k < 0.2 ? 60_000 : k < 0.3 ? 1 : k < 0.4 ? 0 : Math.floor(rnd() * 180_000);
      const passesBefore = engine.ttl.status().metrics.passes;
      clock.advance(ms);
      advances++;
      const status = engine.ttl.status();
      if (status.metrics.passes > passesBefore) {
        // Settings do not change during an advance, so every document expired at an earlier pass of
        // this advance is also expired at the last one.
        model.passAt(status.lastPassAt!.getTime());
      }
      log.push(`advance ${ms}`);
      check(`after advance #${advances}`);
    }
  }
  check('at the end');
  const m = engine.ttl.status().metrics;
  engine.close();
  return { advances, passes: m.passes, ttlDeleted: m.deletedDocuments };
}

describe('TTL model-based test (seeded random operations vs. a reference model)', () => {
  const cases: Array<[number, Options]> = [
    [1, { mixedDirections: false }],
    [2, { mixedDirections: false }],
    [3, { mixedDirections: false }],
    [42, { mixedDirections: false }],
    [2026, { mixedDirections: false }],
    [7, { mixedDirections: true }],
    [8, { mixedDirections: true }],
    [9, { mixedDirections: true }],
  ];
  for (const [seed, options] of cases) {
    const what = options.mixedDirections ? 'ascending and descending indexes' : 'ascending indexes';
    it(`seed ${seed} (${what}): 4000 operations keep the engine equal to the model after every advance`, () => {
      const stats = runScenario(seed, 4000, options);
      // The scenario must actually exercise the monitor.
      assert.ok(stats.advances > 500, `advances: ${stats.advances}`);
      assert.ok(stats.passes > 100, `passes: ${stats.passes}`);
      assert.ok(stats.ttlDeleted > 50, `TTL deletions: ${stats.ttlDeleted}`);
    });
  }
});
