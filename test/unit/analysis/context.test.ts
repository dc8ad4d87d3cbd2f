/**
 * What every check gets from src/analysis/checks/context.ts: which collection a definition is for
 * (the last creation in the file, then the connected engine), which inserts go into it (matched by
 * collection and, when both name one, database), how a namespace is written in messages, and the
 * fields a reported problem carries.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText, type AnalysisOptions, type Problem } from '../../../src/analysis';
import { Engine, VirtualClock } from '../../../src/engine';
import { RULES } from '../../../src/analysis/rules';
import { factsOf } from './engine-fixture';

function problems(text: string, options: AnalysisOptions = {}): Problem[] {
  return analyzeText(text, 'a.js', options).problems;
}

const codes = (text: string, options: AnalysisOptions = {}) => problems(text, options).map((p) => p.code);

const CAPPED = `createCollection('c', { capped: true, size: 1000 });`;
const INDEX = `c.createIndex({ at: 1 }, { expireAfterSeconds: 60 });`;

describe('collection facts: the creation in the file that a definition is for', () => {
  it('rule 1.8 (TTL008): the last createCollection of a name decides, as at runtime after a drop and re-create', () => {
    assert.deepEqual(codes(`db.${CAPPED}\ndb.c.drop();\ndb.createCollection('c');\ndb.${INDEX}`), []);
    assert.deepEqual(codes(`db.createCollection('c');\ndb.c.drop();\ndb.${CAPPED}\ndb.${INDEX}`), ['TTL008']);
  });

  it("rule 1.8 (TTL008): a creation in a named database is the index's when either side leaves the database unnamed, not when both name different ones", () => {
    assert.deepEqual(codes(`db.getSiblingDB('x').${CAPPED}\ndb.${INDEX}`), ['TTL008']);
    assert.deepEqual(codes(`db.${CAPPED}\ndb.getSiblingDB('y').${INDEX}`), ['TTL008']);
    assert.deepEqual(codes(`db.getSiblingDB('y').${CAPPED}\ndb.getSiblingDB('y').${INDEX}`), ['TTL008']);
    assert.deepEqual(codes(`db.getSiblingDB('x').${CAPPED}\ndb.getSiblingDB('y').${INDEX}`), []);
    assert.deepEqual(codes(`db.${CAPPED}\ndb.d.createIndex({ at: 1 }, { expireAfterSeconds: 60 });`), []);
  });

  it('rule 1.8 (TTL008): the message writes the namespace with its database when the index names one, the bare collection otherwise', () => {
    const [named] = problems(`db.${CAPPED}\ndb.getSiblingDB('y').${INDEX}`);
    assert.match(named.message, /^y\.c \(created in this file\) is capped:/);
    const [bare] = problems(`db.getSiblingDB('x').${CAPPED}\ndb.${INDEX}`);
    assert.match(bare.message, /^c \(created in this file\) is capped:/);
  });

  it("rule 6.4 (TTL010): a collection made in the file is taken over the connected engine's of the same name", () => {
    const engine = new Engine({ clock: new VirtualClock(new Date('2026-01-01T00:00:00Z')) });
    engine.runCommand('app', { create: 'w', timeseries: { timeField: 'ts', metaField: 'm' }, expireAfterSeconds: 60 });
    const text = `use('app');\ndb.createCollection('w', { timeseries: { timeField: 'ts', metaField: 'm' }, expireAfterSeconds: 600 });\ndb.w.createIndex({ ts: 1 }, { expireAfterSeconds: 300, partialFilterExpression: { m: 1 } });`;
    // 300 s is shorter than the file's 600 s but not than the engine's 60 s.
    assert.deepEqual(codes(text, { engine: factsOf(engine) }), []);
    const longer = text.replace('300', '900');
    const [p] = problems(longer, { engine: factsOf(engine) });
    assert.equal(p.code, 'TTL010');
    assert.match(
      p.message,
      /\(15 minutes\) is not shorter than the collection's own expireAfterSeconds \(10 minutes\) on w \(created in this file\)/,
    );
  });

  it('rule 6.4 (TTL010): a time-series collection of the connected engine without a TTL of its own gives no duration to compare with', () => {
    const engine = new Engine({ clock: new VirtualClock(new Date('2026-01-01T00:00:00Z')) });
    engine.runCommand('app', { create: 'w', timeseries: { timeField: 'ts', metaField: 'm' } });
    const text = `use('app');\ndb.w.createIndex({ ts: 1 }, { expireAfterSeconds: 900, partialFilterExpression: { m: 1 } });`;
    assert.deepEqual(codes(text, { engine: factsOf(engine) }), []);
  });
});

describe('inserts: what the file stores in the collection of an index', () => {
  it('rule 7.8 (TTL012): inserts count into the same collection of any database unless both name different ones', () => {
    const index = `.e.createIndex({ a: 1 }, { expireAfterSeconds: 60 });`;
    assert.deepEqual(codes(`db.getSiblingDB('x').e.insertOne({ a: 5 });\ndb${index}`), ['TTL012']);
    assert.deepEqual(codes(`db.e.insertOne({ a: 5 });\ndb.getSiblingDB('y')${index}`), ['TTL012']);
    assert.deepEqual(codes(`db.getSiblingDB('x').e.insertOne({ a: 5 });\ndb.getSiblingDB('y')${index}`), []);
  });

  it("rule 7.8 (TTL012): the message writes the insert's namespace with its database", () => {
    const [p] = problems(
      `db.getSiblingDB('x').e.insertOne({ a: 5 });\ndb.e.createIndex({ a: 1 }, { expireAfterSeconds: 60 });`,
    );
    assert.match(p.message, /, but x\.e gets 'a' as a number in this file:/);
  });

  it('rule 7.8 (TTL012): inserts into several collections are each kept to their own', () => {
    const text = [
      `db.e.insertOne({ a: new Date() });`,
      `db.f.insertOne({ a: 'x' });`,
      `db.e.insertOne({ b: 1 });`,
      `db.e.createIndex({ a: 1 }, { expireAfterSeconds: 60 });`,
      `db.f.createIndex({ a: 1 }, { expireAfterSeconds: 60 });`,
    ].join('\n');
    const found = problems(text);
    assert.deepEqual(
      found.map((p) => [p.code, p.start > text.indexOf('db.f.createIndex')]),
      [['TTL012', true]],
    );
  });
});

describe('a reported problem', () => {
  it("carries its rule's code, severity, documentation and spec rule, its fixes, and related spans only when it has some", () => {
    const [p] = problems(`db.s.createIndex({ a: 1, b: 1 }, { expireAfterSeconds: 60 });`);
    assert.equal(p.code, 'TTL006');
    assert.equal(p.severity, RULES.TTL006.severity);
    assert.equal(p.docs, RULES.TTL006.docs);
    assert.equal(p.specRule, RULES.TTL006.specRule);
    assert.equal(p.fixes.length, 2);
    assert.equal('related' in p, false);
    const [q] = problems(`db.e.insertOne({ a: 5 });\ndb.e.createIndex({ a: 1 }, { expireAfterSeconds: 60 });`);
    assert.equal(q.related?.length, 1);
  });

  it("a severity given by the check overrides the rule's own", () => {
    // TTL008's rule severity is a warning; on 7.0 the check reports the refusal as an error.
    assert.equal(RULES.TTL008.severity, 'warning');
    const [p] = problems(`db.${CAPPED}\ndb.${INDEX}`, { serverVersion: '7.0' });
    assert.equal(p.severity, 'error');
  });

  it("rule 5.3 (TTL004): without a time given, a collection's TTL is measured against the current time", () => {
    const text = `db.createCollection('k', { clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: 3000000000 });`;
    const before = Math.floor(Date.now() / 1000);
    const [p] = problems(text);
    const after = Math.floor(Date.now() / 1000);
    assert.equal(p.code, 'TTL004');
    const now = Number(/\(at most (\d+) now\)/.exec(p.message)?.[1]);
    assert.ok(now >= before && now <= after, p.message);
    // Given a time (2100) when 3e9 seconds no longer reach back before 1970, it is accepted.
    assert.ok(!codes(text, { nowMs: Date.parse('2100-01-01T00:00:00Z') }).includes('TTL004'));
  });

  it('rule 1.8 (TTL008): without a server version the checks answer for 8.0', () => {
    const [p] = problems(`db.${CAPPED}\ndb.${INDEX}`);
    assert.equal(p.severity, 'warning');
    assert.match(p.message, /MongoDB 7\.1 and later accept this TTL index/);
  });

  it("TTL022: where reading stops is reported with the rule's severity, documentation and spec rule, without fixes", () => {
    const text = `db.s.createIndex({ at: 1 }, { expireAfterSeconds: 60 });\nconst x = ;\n`;
    const found = problems(text).filter((p) => p.code === 'TTL022');
    assert.equal(found.length, 1);
    const [p] = found;
    assert.equal(p.severity, RULES.TTL022.severity);
    assert.equal(p.docs, RULES.TTL022.docs);
    assert.equal(p.specRule, RULES.TTL022.specRule);
    assert.deepEqual(p.fixes, []);
    assert.match(p.message, /^TTL checks stop here/);
  });
});
