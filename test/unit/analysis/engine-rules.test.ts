/**
 * TTL011 (src/analysis/checks/engine-rules.ts, rule 2.3): a createIndex whose index the connected
 * engine already has with another expireAfterSeconds fails with IndexOptionsConflict (85). Against a
 * real engine's facts: what the message says about the existing index, the collMod fix and where it
 * is offered, and where the rule stays silent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText, applyEdits, type EngineFacts, type Problem } from '../../../src/analysis';
import { Engine, VirtualClock } from '../../../src/engine';
import { factsOf } from './engine-fixture';

/** app.sessions: `seen` on lastSeen (3600 s), and `plain_1` on plain without a TTL. */
function engineFacts(): EngineFacts {
  const engine = new Engine({ clock: new VirtualClock(new Date('2026-01-01T00:00:00Z')) });
  engine.runCommand('app', {
    createIndexes: 'sessions',
    indexes: [
      { key: { lastSeen: 1 }, name: 'seen', expireAfterSeconds: 3600 },
      { key: { plain: 1 }, name: 'plain_1' },
    ],
  });
  return factsOf(engine);
}

const facts = engineFacts();

function problems(text: string, file = 'a.js', engine: EngineFacts | null = facts): Problem[] {
  return analyzeText(text, file, engine ? { engine } : {}).problems;
}

function only(text: string, file = 'a.js'): Problem {
  const all = problems(text, file);
  assert.deepEqual(
    all.map((p) => p.code),
    ['TTL011'],
    all.map((p) => p.message).join('\n'),
  );
  return all[0];
}

const COLLMOD = `db.runCommand({ collMod: "sessions", index: { keyPattern: { lastSeen: 1 }, expireAfterSeconds: 60 } });`;

describe('TTL011: a createIndex that would change an index the engine has', () => {
  it("rule 2.3 (TTL011): the message names the existing index and its value, then the engine's 85; the fix is the collMod, preferred", () => {
    const text = `db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 60 });`;
    const p = only(text);
    assert.equal(text.slice(p.start, p.end), '60');
    assert.equal(p.severity, 'error');
    assert.ok(
      p.message.startsWith(
        "app.sessions already has index 'seen' with expireAfterSeconds 3600: this createIndex fails with IndexOptionsConflict (85) instead of changing it. An equivalent index already exists with a different name and options.",
      ),
      p.message,
    );
    assert.deepEqual(
      p.fixes.map((f) => [f.title, f.preferred]),
      [["Change 'seen' with collMod instead", true]],
    );
    assert.equal(applyEdits(text, p.fixes[0].edits), COLLMOD);
  });

  it("rule 2.3 (TTL011): under the index's own name the engine's message is the same-name one; ensureIndex gets the collMod too", () => {
    const named = only(`db.sessions.createIndex({ lastSeen: 1 }, { name: 'seen', expireAfterSeconds: 60 });`);
    assert.match(
      named.message,
      /\(85\) instead of changing it\. An equivalent index already exists with the same name but different options\./,
    );
    const text = `db.sessions.ensureIndex({ lastSeen: 1 }, { expireAfterSeconds: 60 });`;
    assert.equal(applyEdits(text, only(text).fixes[0].edits), COLLMOD);
  });

  it('rule 2.3 (TTL011): adding a TTL to an index without one conflicts too, and says the index has no expireAfterSeconds', () => {
    const text = `db.sessions.createIndex({ plain: 1 }, { expireAfterSeconds: 60 });`;
    const p = only(text);
    assert.match(
      p.message,
      /^app\.sessions already has index 'plain_1' with no expireAfterSeconds: this createIndex fails/,
    );
    assert.equal(
      applyEdits(text, p.fixes[0].edits),
      `db.runCommand({ collMod: "sessions", index: { keyPattern: { plain: 1 }, expireAfterSeconds: 60 } });`,
    );
  });

  it("TTL011: the driver's collMod is db.command on the same database expression", () => {
    const text = `await client.db('app').collection('sessions').createIndex({ lastSeen: 1 }, { expireAfterSeconds: 60 });`;
    assert.equal(
      applyEdits(text, only(text, 'a.ts').fixes[0].edits),
      `await client.db('app').command({ collMod: "sessions", index: { keyPattern: { lastSeen: 1 }, expireAfterSeconds: 60 } });`,
    );
  });

  it('TTL011: createIndexes, a raw createIndexes command or a key held in a variable get no rewrite', () => {
    for (const text of [
      `db.sessions.createIndexes([{ lastSeen: 1 }], { expireAfterSeconds: 60 });`,
      `db.runCommand({ createIndexes: 'sessions', indexes: [{ key: { lastSeen: 1 }, name: 'seen', expireAfterSeconds: 60 }] });`,
      `const k = { lastSeen: 1 };\ndb.sessions.createIndex(k, { expireAfterSeconds: 60 });`,
    ])
      assert.deepEqual(only(text).fixes, [], text);
  });

  it('TTL011 is about the TTL: a conflict over another option with the same expireAfterSeconds is not reported', () => {
    for (const text of [
      // hidden does not identify an index: these are the existing one with other options (85 over hidden, not the TTL).
      `db.sessions.createIndex({ lastSeen: 1 }, { name: 'seen', expireAfterSeconds: 3600, hidden: true });`,
      `db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600, hidden: true });`,
      // sparse does: these are another index (or a key clash under the same name), not this rule's either.
      `db.sessions.createIndex({ lastSeen: 1 }, { name: 'seen', expireAfterSeconds: 3600, sparse: true });`,
      `db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600, sparse: true });`,
    ])
      assert.deepEqual(problems(text), [], text);
  });

  it('TTL011: the same value, another key, another collection, no engine, or a Mongoose schema index are not reported', () => {
    for (const text of [
      `db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 });`,
      `db.sessions.createIndex({ other: 1 }, { expireAfterSeconds: 60 });`,
      `db.other.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 60 });`,
      `db.getSiblingDB('elsewhere').sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 60 });`,
      `db.sessions.createIndex({ lastSeen: 1 }, { unique: true });`,
    ])
      assert.deepEqual(problems(text), [], text);
    assert.deepEqual(
      problems(`db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 60 });`, 'a.js', null),
      [],
    );
    // Mongoose builds its indexes itself, through a model whose collection the analysis does not follow here.
    assert.deepEqual(problems(`sessionSchema.index({ lastSeen: 1 }, { expireAfterSeconds: 60 });`), []);
  });
});
