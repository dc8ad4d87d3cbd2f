/**
 * The Mongoose schema rules (src/analysis/checks/schema-rules.ts, rule 7.8: a document expires
 * `expireAfterSeconds` after the date its indexed field holds): the fixtures pin where TTL019,
 * TTL020 and TTL021 are reported; these pin what they say (the field, the durations, the paths the
 * schema stores, the suggestion) and the fixes they offer, and where they stay silent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText, applyEdits, type Problem } from '../../../src/analysis';

function problems(text: string, file = 'a.js'): Problem[] {
  return analyzeText(text, file, {}).problems;
}

function only(text: string, code: string, file = 'a.js'): Problem {
  const all = problems(text, file);
  assert.deepEqual(
    all.map((p) => p.code),
    [code],
    `expected exactly one ${code}: ${all.map((p) => p.message).join('\n')}`,
  );
  return all[0];
}

const codes = (text: string, file = 'a.js') => problems(text, file).map((p) => p.code);

describe('TTL019: a default date computed once', () => {
  it('rule 7.8 (TTL019): the message names the field, the lifetime after which documents expire on write, and default: Date.now', () => {
    const text = `const s = new Schema({ createdAt: { type: Date, default: Date.now(), expires: 300 } });`;
    const p = only(text, 'TTL019');
    assert.equal(text.slice(p.start, p.end), 'Date.now()');
    assert.equal(
      p.message,
      "default: Date.now() is computed once, when the schema is built, so every document gets that same time in 'createdAt', taken when the process started: documents written later expire early, and once the process has run 5 minutes they expire as soon as they are written. Give Mongoose a function, called for each document: default: Date.now.",
    );
    assert.deepEqual(
      p.fixes.map((f) => [f.title, f.preferred]),
      [['Use default: Date.now (called for each document)', true]],
    );
    assert.equal(
      applyEdits(text, p.fixes[0].edits),
      `const s = new Schema({ createdAt: { type: Date, default: Date.now, expires: 300 } });`,
    );
  });

  it('rule 7.8 (TTL019): a default set ahead of now adds its lead to the lifetime; one behind now does not shorten it', () => {
    // (TTL020 is reported on it too: the lead and the delay add up.)
    const ahead = problems(
      `const s = new Schema({ at: { type: Date, default: new Date(Date.now() + 60000), expires: 300 } });`,
    ).find((p) => p.code === 'TTL019');
    assert.ok(ahead);
    assert.match(ahead.message, /once the process has run 6 minutes they expire/);
    const behind = only(
      `const s = new Schema({ at: { type: Date, default: new Date(Date.now() - 60000), expires: 300 } });`,
      'TTL019',
    );
    assert.match(behind.message, /once the process has run 5 minutes they expire/);
  });

  it('TTL019: any other computed default is wrapped in an arrow function, so it is computed per document', () => {
    const text = `const s = new Schema({ at: { type: Date, default: new Date(Date.now() - 60000), expires: 300 } });`;
    const [fix] = only(text, 'TTL019').fixes;
    assert.equal(fix.title, 'Use default: () => new Date(Date.now() - 60000) (computed for each document)');
    assert.equal(fix.preferred, true);
    assert.equal(
      applyEdits(text, fix.edits),
      `const s = new Schema({ at: { type: Date, default: () => new Date(Date.now() - 60000), expires: 300 } });`,
    );
  });

  it('TTL019: a call that only starts with Date.now() keeps its arithmetic: it is wrapped, not replaced', () => {
    const text = `const s = new Schema({ at: { type: Date, default: Date.now() + 60000, expires: 300 } });`;
    const fix = problems(text).find((p) => p.code === 'TTL019')?.fixes[0];
    assert.ok(fix);
    assert.equal(
      applyEdits(text, fix.edits),
      `const s = new Schema({ at: { type: Date, default: () => Date.now() + 60000, expires: 300 } });`,
    );
  });

  it('TTL019: now() and new Date( ) with any spacing become Date.now', () => {
    for (const written of ['now()', 'new  Date( )', 'new Date()']) {
      const text = `const s = new Schema({ at: { type: Date, default: ${written}, expires: 300 } });`;
      const [fix] = only(text, 'TTL019').fixes;
      assert.equal(fix.title, 'Use default: Date.now (called for each document)', written);
      assert.equal(
        applyEdits(text, fix.edits),
        `const s = new Schema({ at: { type: Date, default: Date.now, expires: 300 } });`,
      );
    }
  });

  it('TTL019: a function default, or a computed default on a path without TTL, is not reported', () => {
    assert.deepEqual(codes(`const s = new Schema({ at: { type: Date, default: Date.now, expires: 300 } });`), []);
    assert.deepEqual(
      codes(`const s = new Schema({ at: { type: Date, default: () => new Date(Date.now() - 60000), expires: 300 } });`),
      [],
    );
    assert.deepEqual(codes(`const s = new Schema({ at: { type: Date, default: Date.now() } });`), []);
  });

  it('TTL019: a path whose name is computed is not named in the message', () => {
    const p = only(`const s = new Schema({ [name()]: { type: Date, default: Date.now(), expires: 300 } });`, 'TTL019');
    assert.match(
      p.message,
      /^default: Date\.now\(\) is computed once, when the schema is built, so every document gets that same time, taken when the process started:/,
    );
  });

  it('TTL019: a default written as a name or behind a type assertion gets no fix: the fix edits only the expression itself', () => {
    // Wrapping the constant in a function would still return the one time it holds.
    const constant = `const NOW = Date.now();\nconst s = new Schema({ at: { type: Date, default: NOW, expires: 300 } });`;
    assert.deepEqual(only(constant, 'TTL019').fixes, []);
    const asserted = `const s = new Schema({ at: { type: Date, default: <number>Date.now(), expires: 300 } });`;
    assert.deepEqual(only(asserted, 'TTL019', 'a.ts').fixes, []);
  });
});

describe('TTL020: an expiry time stored and a delay added', () => {
  it('rule 7.8 (TTL020): the message gives the lead, the delay and their sum, and the fix sets the delay to 0', () => {
    const text = `const s = new Schema({ expiresAt: { type: Date, default: () => new Date(Date.now() + 300000), index: { expires: '5m' } } });`;
    const p = only(text, 'TTL020');
    assert.equal(text.slice(p.start, p.end), `'5m'`);
    assert.equal(
      p.message,
      "'expiresAt' defaults to 5 minutes from now, already the expiry time, and expires: '5m' adds 5 minutes on top: documents live 10 minutes. Use expires: 0 to expire at the stored time (or store the creation time and keep the delay).",
    );
    assert.deepEqual(
      p.fixes.map((f) => [f.title, f.preferred]),
      [['Use expires: 0 (expire at the stored time)', true]],
    );
    assert.equal(
      applyEdits(text, p.fixes[0].edits),
      `const s = new Schema({ expiresAt: { type: Date, default: () => new Date(Date.now() + 300000), index: { expires: 0 } } });`,
    );
  });

  it('TTL020: a delay of 0, or a default that is not ahead of now, is not reported', () => {
    assert.deepEqual(
      codes(`const s = new Schema({ at: { type: Date, default: () => new Date(Date.now() + 60000), expires: 0 } });`),
      [],
    );
    assert.deepEqual(
      codes(`const s = new Schema({ at: { type: Date, default: () => new Date(Date.now() - 60000), expires: 300 } });`),
      [],
    );
    assert.deepEqual(codes(`const s = new Schema({ at: { type: Date, default: Date.now, expires: 300 } });`), []);
  });

  it('TTL020: a path whose name is computed is called "This path"', () => {
    const text = `const s = new Schema({ [name()]: { type: Date, default: new Date(Date.now() + 60000), expires: 300 } });`;
    const p = problems(text).find((q) => q.code === 'TTL020');
    assert.ok(p);
    assert.match(
      p.message,
      /^This path defaults to 1 minute from now, already the expiry time, and expires: 300 adds 5 minutes on top/,
    );
  });
});

describe('TTL021: a TTL index on a path the schema never stores', () => {
  it('TTL021: a compound key is not checked for a stored path (it is no TTL index: TTL006 says so)', () => {
    assert.deepEqual(
      codes(`const s = new Schema({ at: Date });\ns.index({ nope: 1, at: 1 }, { expireAfterSeconds: 60 });`),
      ['TTL006'],
    );
  });

  it('rule 7.8 (TTL021): a complete schema: the message lists the stored paths and suggests the near one, whose fix renames the key', () => {
    const text = `const s = new Schema({ token: String, expiresAt: Date });\ns.index({ expiredAt: 1 }, { expireAfterSeconds: 0 });`;
    const p = only(text, 'TTL021');
    assert.equal(text.slice(p.start, p.end), 'expiredAt: 1');
    assert.equal(
      p.message,
      "The TTL index is on 'expiredAt', but the schema never stores 'expiredAt' (it stores 'token', 'expiresAt'; Mongoose drops undeclared paths): no document has the field, so nothing ever expires. Did you mean 'expiresAt'?",
    );
    assert.deepEqual(
      p.fixes.map((f) => [f.title, f.preferred]),
      [["Index 'expiresAt' instead", true]],
    );
    assert.equal(
      applyEdits(text, p.fixes[0].edits),
      `const s = new Schema({ token: String, expiresAt: Date });\ns.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });`,
    );
  });

  it('TTL021: with no declared path within two edits there is no suggestion and no fix', () => {
    const p = only(
      `const s = new Schema({ expiresAt: Date });\ns.index({ expiAt: 1 }, { expireAfterSeconds: 60 });`,
      'TTL021',
    );
    assert.equal(
      p.message,
      "The TTL index is on 'expiAt', but the schema never stores 'expiAt' (it stores 'expiresAt'; Mongoose drops undeclared paths): no document has the field, so nothing ever expires.",
    );
    assert.deepEqual(p.fixes, []);
  });

  it('TTL021: a declared path two edits away is still suggested', () => {
    const p = only(
      `const s = new Schema({ expiresAt: Date });\ns.index({ expiresOn: 1 }, { expireAfterSeconds: 60 });`,
      'TTL021',
    );
    assert.match(p.message, /Did you mean 'expiresAt'\?$/);
  });

  it('TTL021: a schema with no paths says it stores no date', () => {
    const p = only(`const s = new Schema({});\ns.index({ at: 1 }, { expireAfterSeconds: 60 });`, 'TTL021');
    assert.match(p.message, /\(it stores no date; Mongoose drops undeclared paths\)/);
  });

  it('TTL021: the near path is found whatever its case, and the fix writes it as declared', () => {
    const text = `const s = new Schema({ EXPIRESat: Date });\ns.index({ expiresat: 1 }, { expireAfterSeconds: 60 });`;
    const p = only(text, 'TTL021');
    assert.match(p.message, /Did you mean 'EXPIRESat'\?$/);
    assert.equal(
      applyEdits(text, p.fixes[0].edits),
      `const s = new Schema({ EXPIRESat: Date });\ns.index({ EXPIRESat: 1 }, { expireAfterSeconds: 60 });`,
    );
  });

  it('TTL021: a subpath of a declared path, a timestamps path and _id are stored', () => {
    assert.deepEqual(
      codes(`const s = new Schema({ meta: { at: Date } });\ns.index({ 'meta.at': 1 }, { expireAfterSeconds: 60 });`),
      [],
    );
    assert.ok(
      !codes(
        `const s = new Schema({ token: String }, { timestamps: true });\ns.index({ updatedAt: 1 }, { expireAfterSeconds: 60 });`,
      ).includes('TTL021'),
    );
    assert.ok(
      !codes(`const s = new Schema({ token: String });\ns.index({ _id: 1 }, { expireAfterSeconds: 60 });`).includes(
        'TTL021',
      ),
    );
  });

  it('TTL021: a class that may inherit paths is reported only when it declares a near path, and says so', () => {
    const cls = (key: string) =>
      `@Schema()\nclass Lock extends Base {\n  @Prop()\n  expiresAt: Date;\n}\nconst LockSchema = SchemaFactory.createForClass(Lock);\nLockSchema.index({ ${key}: 1 }, { expireAfterSeconds: 0 });`;
    const p = only(cls('expireAt'), 'TTL021', 'a.ts');
    assert.equal(
      p.message,
      "The TTL index is on 'expireAt', which this schema does not declare (unless a base class or plugin adds it), while it declares 'expiresAt': documents without 'expireAt' never expire. Did you mean 'expiresAt'?",
    );
    assert.deepEqual(
      p.fixes.map((f) => f.title),
      ["Index 'expiresAt' instead"],
    );
    assert.deepEqual(codes(cls('zzzzz'), 'a.ts'), []);
  });
});
