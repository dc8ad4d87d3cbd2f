/**
 * TTL options written where nothing makes a TTL index of them (src/analysis/checks/slip-rules.ts,
 * rule 1.1: only an `expireAfterSeconds` option makes a TTL index): the fixtures pin where TTL017
 * and TTL018 are reported; these pin what they say and what their fixes write.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText, applyEdits, type Problem } from '../../../src/analysis';

function only(text: string, code: string, file = 'a.js'): Problem {
  const all = analyzeText(text, file, {}).problems;
  assert.deepEqual(
    all.map((p) => p.code),
    [code],
    `expected exactly one ${code}: ${all.map((p) => p.message).join('\n')}`,
  );
  return all[0];
}

/** The text after each fix, with its title and whether it is preferred. */
const fixed = (text: string, p: Problem) =>
  p.fixes.map((f) => ({ title: f.title, preferred: f.preferred, text: applyEdits(text, f.edits) }));

describe('TTL017: a TTL option in the key pattern', () => {
  it('rule 1.1 (TTL017): the message names the field it indexes instead and shows the key with the other field', () => {
    const text = `db.s.createIndex({ lastSeen: 1, expireAfterSeconds: 3600 });`;
    const p = only(text, 'TTL017');
    assert.equal(text.slice(p.start, p.end), 'expireAfterSeconds: 3600');
    assert.equal(
      p.message,
      "expireAfterSeconds is in the key pattern, so this builds an ordinary index on a field named 'expireAfterSeconds', not a TTL index: nothing ever expires. The key names the date field and the options carry the TTL: { lastSeen: 1 }, { expireAfterSeconds: 3600 }.",
    );
  });

  it('TTL017: the fix moves the option into new options, into empty ones, or after the last existing option', () => {
    const cases: Array<[string, string]> = [
      [
        `db.s.createIndex({ lastSeen: 1, expireAfterSeconds: 3600 });`,
        `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 });`,
      ],
      [
        `db.s.createIndex({ lastSeen: 1, expireAfterSeconds: 3600 }, {});`,
        `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 });`,
      ],
      [
        `db.s.createIndex({ lastSeen: 1, expireAfterSeconds: 3600 }, { name: 'x' });`,
        `db.s.createIndex({ lastSeen: 1 }, { name: 'x', expireAfterSeconds: 3600 });`,
      ],
    ];
    for (const [text, after] of cases)
      assert.deepEqual(fixed(text, only(text, 'TTL017')), [
        { title: 'Move expireAfterSeconds from the key pattern to the index options', preferred: true, text: after },
      ]);
  });

  it('TTL017: with no other key field the example names createdAt and there is no fix; options held in a variable get no fix', () => {
    const alone = only(`db.s.createIndex({ expireAfterSeconds: 3600 });`, 'TTL017');
    assert.match(alone.message, /carry the TTL: \{ createdAt: 1 \}, \{ expireAfterSeconds: 3600 \}\.$/);
    assert.deepEqual(alone.fixes, []);
    const held = only(
      `const o = { name: 'x' };\ndb.s.createIndex({ lastSeen: 1, expireAfterSeconds: 3600 }, o);`,
      'TTL017',
    );
    assert.deepEqual(held.fixes, []);
  });

  it('TTL017: a key pattern held in a constant, or options the analysis cannot read, are reported without a fix', () => {
    const constKey = only(
      `const k = { lastSeen: 1, expireAfterSeconds: 3600 };\ndb.s.createIndex(k, { name: 'x' });`,
      'TTL017',
    );
    assert.match(constKey.message, /carry the TTL: \{ lastSeen: 1 \}, \{ expireAfterSeconds: 3600 \}\.$/);
    assert.deepEqual(constKey.fixes, []);
    assert.deepEqual(only(`db.s.createIndex({ lastSeen: 1, expireAfterSeconds: 3600 }, opts);`, 'TTL017').fixes, []);
  });

  it("TTL017: the driver's option is expireAfterSeconds even when the key says expires; Mongoose keeps expires", () => {
    const driver = `await db.collection('s').createIndex({ lastSeen: 1, expires: 3600 });`;
    const d = only(driver, 'TTL017', 'a.ts');
    assert.match(
      d.message,
      /^expires is in the key pattern, so this builds an ordinary index on a field named 'expires'/,
    );
    assert.match(d.message, /\{ lastSeen: 1 \}, \{ expireAfterSeconds: 3600 \}\.$/);
    assert.deepEqual(fixed(driver, d), [
      {
        title: 'Move expires from the key pattern to the index options',
        preferred: true,
        text: `await db.collection('s').createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 });`,
      },
    ]);
    const mongoose = `const s = new Schema({ lastSeen: Date });\ns.index({ lastSeen: 1, expires: '1d' });`;
    const m = only(mongoose, 'TTL017');
    assert.match(m.message, /\{ lastSeen: 1 \}, \{ expires: '1d' \}\.$/);
    assert.equal(
      fixed(mongoose, m)[0].text,
      `const s = new Schema({ lastSeen: Date });\ns.index({ lastSeen: 1 }, { expires: '1d' });`,
    );
  });
});

describe('TTL017: a TTL option in the schema options', () => {
  it('rule 1.1 (TTL017): a schema-level expires says Mongoose has no such option and where to put it', () => {
    const p = only(`@Schema({ expires: 3600 })\nclass A { @Prop() at: Date; }`, 'TTL017', 'a.ts');
    assert.equal(
      p.message,
      'Mongoose has no schema-level expires option: no TTL index is made and nothing expires. Put it on the date path ({ type: Date, expires: 3600 } or @Prop({ expires: 3600 })), or index the date: schema.index({ createdAt: 1 }, { expireAfterSeconds: 3600 }).',
    );
    assert.deepEqual(p.fixes, []);
  });

  it('rule 1.1 (TTL017): a schema-level expireAfterSeconds says only time-series or clustered collections take one', () => {
    const p = only(`@Schema({ expireAfterSeconds: 3600 })\nclass A { @Prop() at: Date; }`, 'TTL017', 'a.ts');
    assert.equal(
      p.message,
      'A schema-level expireAfterSeconds is a collection-level TTL, which only a time-series or clustered collection takes (the schema declares neither): no TTL index is made. Index the date path instead: schema.index({ createdAt: 1 }, { expireAfterSeconds: 3600 }).',
    );
  });
});

describe('TTL018: a misspelled TTL option', () => {
  it('rule 1.1 (TTL018): a misspelled Mongoose path option is ignored: a warning, with a rename', () => {
    const text = `const s = new Schema({ createdAt: { type: Date, exexpires: 60 } });`;
    const p = only(text, 'TTL018');
    assert.equal(p.severity, 'warning');
    assert.equal(text.slice(p.start, p.end), 'exexpires');
    assert.equal(
      p.message,
      "Mongoose does not know the path option 'exexpires' and ignores it: no TTL index is made and nothing expires. Did you mean expires?",
    );
    assert.deepEqual(fixed(text, p), [
      {
        title: 'Rename exexpires to expires',
        preferred: true,
        text: `const s = new Schema({ createdAt: { type: Date, expires: 60 } });`,
      },
    ]);
  });

  it("rule 1.1 (TTL018): a misspelled createIndex option is mongod's 197 for the spec as written, with its key and name", () => {
    const text = `db.s.createIndex({ at: 1 }, { expiresAfterSeconds: 60 });`;
    const p = only(text, 'TTL018');
    assert.equal(p.severity, 'error');
    assert.equal(
      p.message,
      'mongod refuses the whole index with InvalidIndexSpecificationOption (197): The field \'expiresAfterSeconds\' is not valid for an index specification. Specification: { key: { at: 1 }, name: "at_1", expiresAfterSeconds: 60 } Did you mean expireAfterSeconds?',
    );
    assert.deepEqual(fixed(text, p), [
      {
        title: 'Rename expiresAfterSeconds to expireAfterSeconds',
        preferred: true,
        text: `db.s.createIndex({ at: 1 }, { expireAfterSeconds: 60 });`,
      },
    ]);
  });

  it('TTL018: a value the analysis cannot read is probed as 0; the rename keeps the expression', () => {
    const text = `db.s.createIndex({ at: 1 }, { expiresAfterSeconds: x });`;
    const p = only(text, 'TTL018');
    assert.match(p.message, /Specification: \{ key: \{ at: 1 \}, name: "at_1", expiresAfterSeconds: 0 \}/);
    assert.equal(fixed(text, p)[0].text, `db.s.createIndex({ at: 1 }, { expireAfterSeconds: x });`);
  });

  it('TTL018: with a key the analysis cannot read, the 197 is asked for a createdAt stand-in key (the option alone decides it)', () => {
    const p = only(`db.s.createIndex(k, { expiresAfterSeconds: 60 });`, 'TTL018');
    assert.match(
      p.message,
      /^mongod refuses the whole index with InvalidIndexSpecificationOption \(197\): The field 'expiresAfterSeconds' is not valid for an index specification\. Specification: \{ key: \{ createdAt: 1 \}, name: "createdAt_1", expiresAfterSeconds: 60 \} Did you mean expireAfterSeconds\?$/,
    );
  });

  it("TTL018: on a Mongoose schema.index the message adds that the failure shows only in the model's index event", () => {
    const p = only(
      `const s = new Schema({ createdAt: Date });\ns.index({ createdAt: 1 }, { expireAfterSecond: 60 });`,
      'TTL018',
    );
    assert.equal(
      p.message,
      'mongod refuses the whole index with InvalidIndexSpecificationOption (197): The field \'expireAfterSecond\' is not valid for an index specification. Specification: { key: { createdAt: 1 }, name: "createdAt_1", expireAfterSecond: 60 } Mongoose builds indexes in the background and reports the failure only in the model\'s "index" event: the app runs without the index and nothing expires. Did you mean expireAfterSeconds?',
    );
  });
});
