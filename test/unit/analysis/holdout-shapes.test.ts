/**
 * Shapes the holdout corpus of issue 25 showed the checker missing (a second set of real projects,
 * found without starting from the checker's rule shapes). Every fixture is written here: CommonJS
 * models bound with `var`, index options handed inline to code the finder does not know (TypeORM
 * and MikroORM `@Index`, a project's own `defineIndex`), `process.env.X || fallback`, and a config
 * object imported from the workspace. The editor's AnalysisSession must agree with `check` on each.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AnalysisSession, analyzeText, applyEdits, LineIndex, type AnalysisOptions } from '../../../src/analysis';

/** Seconds of every TTL value the analysis sees, with the 1-based line it is on. */
function seen(text: string, file: string, options: AnalysisOptions = {}): Array<[number, number]> {
  const index = new LineIndex(text);
  return analyzeText(text, file, options).ttlValues.map((v) => [index.position(v.start).line + 1, v.seconds]);
}

/** [1-based line, code] of every problem. */
function problemsOf(text: string, file: string, options: AnalysisOptions = {}): Array<[number, string]> {
  const index = new LineIndex(text);
  return analyzeText(text, file, options).problems.map((p) => [index.position(p.start).line + 1, p.code]);
}

const VAR_MODEL = `var mongoose = require('mongoose');

var resetToken = mongoose.Schema({
  email: String,
  createdAt: { type: Date, default: new Date() }
});

resetToken.index({ createdAt: 1 }, { expireAfterSeconds: 3600 });
module.exports = mongoose.model('ResetToken', resetToken);
`;

const TYPEORM = `import { Column, Entity, Index, ObjectIdColumn } from 'typeorm';

@Entity()
@Index('session_expire', () => ({ lastSeen: 1 }), { expireAfterSeconds: 1800 })
export class Session {
  @ObjectIdColumn()
  id: string;

  @Column()
  @Index({ expireAfterSeconds: 0 })
  expireAt: Date;
}
`;

const MIKRO = `import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

@Entity({ tableName: 'heartbeats' })
export class Heartbeat {
  @PrimaryKey({ name: '_id' })
  id!: string;

  @Property()
  @Index({ options: { expireAfterSeconds: 60 * 60 } })
  seenAt!: Date;
}
`;

const DEFINE_INDEX = `import { defineIndex, Schema } from '../common/mongo';

const CacheSchema = new Schema({ key: String, expireAt: { type: Date, required: true } });

try {
  defineIndex(CacheSchema, { key: { key: 1 }, options: { unique: true } });
  defineIndex(CacheSchema, {
    key: { expireAt: -1 },
    options: { expireAfterSeconds: 5 }
  });
} catch (error) {
  console.log(error);
}
`;

describe('holdout shapes (issue 25): definitions the first corpus did not show', () => {
  test('a CommonJS model bound with var is followed: default: new Date() on its TTL path is TTL019', () => {
    assert.deepEqual(problemsOf(VAR_MODEL, 'reset-token.js'), [[5, 'TTL019']]);
    // `let` too, and without `new` (mongoose.Schema(...) is the same call).
    const withLet = VAR_MODEL.replace('var resetToken', 'let resetToken');
    assert.deepEqual(problemsOf(withLet, 'reset-token.js'), [[5, 'TTL019']]);
  });

  test('a var assigned again is not followed (its declaration is not its only value)', () => {
    const reassigned = VAR_MODEL.replace(
      'resetToken.index({ createdAt: 1 }',
      'if (process.env.OTHER) resetToken = other;\nresetToken.index({ createdAt: 1 }',
    );
    assert.deepEqual(problemsOf(reassigned, 'reset-token.js'), []);
    const counted = `var ttl = -1;\nttl += 2;\ndb.a.createIndex({ at: 1 }, { expireAfterSeconds: ttl });\n`;
    assert.deepEqual(problemsOf(counted, 'a.js'), []);
    const followed = `var ttl = -1;\ndb.a.createIndex({ at: 1 }, { expireAfterSeconds: ttl });\n`;
    assert.deepEqual(problemsOf(followed, 'a.js'), [[2, 'TTL003']]);
  });

  test('TypeORM @Index(name, fields, {expireAfterSeconds}) and @Index({expireAfterSeconds}) on a member are seen and checked', () => {
    assert.deepEqual(seen(TYPEORM, 'session.entity.ts'), [
      [10, 0],
      [4, 1800],
    ]);
    assert.deepEqual(problemsOf(TYPEORM.replace('expireAfterSeconds: 1800', 'expireAfterSeconds: -1'), 'x.ts'), [
      [4, 'TTL003'],
    ]);
    assert.deepEqual(problemsOf(TYPEORM.replace('expireAfterSeconds: 0', "expireAfterSeconds: '0'"), 'x.ts'), [
      [10, 'TTL001'],
    ]);
  });

  test('MikroORM @Index({options: {expireAfterSeconds}}) is seen and checked', () => {
    assert.deepEqual(seen(MIKRO, 'heartbeat.ts'), [[9, 3600]]);
    assert.deepEqual(problemsOf(MIKRO.replace('60 * 60', 'NaN'), 'heartbeat.ts'), [[9, 'TTL002']]);
  });

  test("a project's own defineIndex(schema, {key, options: {expireAfterSeconds}}) is seen and checked", () => {
    assert.deepEqual(seen(DEFINE_INDEX, 'cache.ts'), [[9, 5]]);
    assert.deepEqual(problemsOf(DEFINE_INDEX.replace('expireAfterSeconds: 5', 'expireAfterSeconds: 2.5'), 'c.ts'), [
      [9, 'TTL005'],
    ]);
  });

  test('options a call reads are not counted twice: a const passed to createIndex, createCollection and collMod options', () => {
    const text = `const opts = { expireAfterSeconds: 3600 };
db.a.createIndex({ at: 1 }, opts);
db.createCollection('b', { clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: 60 });
db.runCommand({ collMod: 'a', index: { keyPattern: { at: 1 }, expireAfterSeconds: 7200 } });
`;
    // Once each: the const's value shows where it is written.
    assert.deepEqual(seen(text, 'setup.js'), [
      [3, 60],
      [4, 7200],
      [1, 3600],
    ]);
  });

  test('inline options that say "no TTL" (expireAfterSeconds: undefined / null) and schema options are not read as index options', () => {
    const text = `const a = build({ expireAfterSeconds: undefined });
const b = build({ expireAfterSeconds: null });
const s = new Schema({ at: Date }, { timeseries: { timeField: 'at' }, expireAfterSeconds: 86400 });
`;
    assert.deepEqual(problemsOf(text, 'x.ts'), []);
    assert.deepEqual(seen(text, 'x.ts'), []);
    // A schema-level TTL option on a plain schema stays TTL017 alone (no second diagnostic on its value).
    const nest = `@Schema({ timestamps: true, expireAfterSeconds: -1 })\nclass Session {}\n`;
    assert.deepEqual(problemsOf(nest, 'session.ts'), [[1, 'TTL017']]);
  });

  test('expireAfterSeconds: process.env.TTL || 3600 is still a string whenever TTL is set (TTL001), fixed by Number(...)', () => {
    const text = `db.sessions.createIndex({ at: 1 }, { expireAfterSeconds: process.env.SESSION_TTL || 3600 });\n`;
    const [problem] = analyzeText(text, 'setup.js').problems;
    assert.equal(problem.code, 'TTL001');
    assert.match(problem.message, /whenever SESSION_TTL is set: process\.env\.SESSION_TTL is a string/);
    const fixed = applyEdits(text, problem.fixes[0].edits);
    assert.equal(
      fixed,
      `db.sessions.createIndex({ at: 1 }, { expireAfterSeconds: Number(process.env.SESSION_TTL || 3600) });\n`,
    );
    assert.deepEqual(problemsOf(fixed, 'setup.js'), []);
    // Converted first, then the fallback: a number either way, nothing to say.
    const converted = `db.s.createIndex({ at: 1 }, { expireAfterSeconds: Number(process.env.TTL) || 3600 });\n`;
    assert.deepEqual(problemsOf(converted, 'setup.js'), []);
  });

  test('Mongoose expires: process.env.TTL || 300 reads "300" as milliseconds (TTL001); a duration fallback or none is left alone', () => {
    const text = `const otpSchema = new Schema({
  createdAt: { type: Date, default: Date.now, expires: process.env.OTP_TTL || 300 },
});
`;
    const [problem] = analyzeText(text, 'otp.js').problems;
    assert.equal(problem.code, 'TTL001');
    assert.match(
      problem.message,
      /bare number means milliseconds: OTP_TTL=300 gives a TTL of 0 seconds, not 5 minutes/,
    );
    const fixed = applyEdits(text, problem.fixes[0].edits);
    assert.match(fixed, /expires: Number\(process\.env\.OTP_TTL \|\| 300\) \}/);
    assert.deepEqual(problemsOf(fixed, 'otp.js'), []);
    // "5m" in the variable is what Mongoose expects: without a numeric fallback, nothing is guessed.
    assert.deepEqual(problemsOf(text.replace(' || 300', ''), 'otp.js'), []);
    assert.deepEqual(problemsOf(text.replace('|| 300', "|| '5m'"), 'otp.js'), []);
  });

  test('a property of a config object imported from the workspace is followed, an environment read included', () => {
    const files: Record<string, string> = {
      '../config/app': `export const appConf: any = {\n  port: process.env.PORT || 3000,\n  cacheTtl: process.env.CACHE_TTL || 60,\n  logDays: 14 * 86400,\n};\n`,
    };
    const options: AnalysisOptions = {
      imports: {
        moduleText: (specifier) =>
          files[specifier] !== undefined ? { text: files[specifier], fileName: `${specifier}.ts` } : undefined,
      },
    };
    const text = `import { Schema } from 'mongoose';
import { appConf } from '../config/app';

const cacheSchema = new Schema({
  text: String,
  expire: { type: Date, default: Date.now, expires: appConf.cacheTtl },
  loggedAt: { type: Date, default: Date.now, expires: appConf.logDays },
  other: { type: Date, default: Date.now, expires: appConf.missing },
});
`;
    assert.deepEqual(problemsOf(text, 'cache.model.ts', options), [[6, 'TTL001']]);
    assert.deepEqual(seen(text, 'cache.model.ts', options), [[7, 1209600]]);
    // Without a workspace, nothing is guessed.
    assert.deepEqual(problemsOf(text, 'cache.model.ts'), []);
  });

  test('the editor (AnalysisSession) gives the same result as check (analyzeText) on every holdout shape', () => {
    for (const [text, file] of [
      [VAR_MODEL, 'reset-token.js'],
      [TYPEORM, 'session.entity.ts'],
      [MIKRO, 'heartbeat.ts'],
      [DEFINE_INDEX, 'cache.ts'],
      [`const opts = { expireAfterSeconds: 3600 };\ndb.a.createIndex({ at: 1 }, opts);\n`, 'a.js'],
    ] as const) {
      const session = new AnalysisSession(file);
      assert.deepStrictEqual(session.update(text), analyzeText(text, file));
      const edited = text.replace(/\d+/, '7');
      assert.deepStrictEqual(session.update(edited), analyzeText(edited, file));
    }
  });
});
