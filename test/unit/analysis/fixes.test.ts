/**
 * Every quick fix, applied to the text and the result analysed again: it must come out clean.
 * Cases come in the three forms (mongosh JavaScript, TypeScript, .ttlbook); a few also pin the
 * exact text a fix writes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyzeText, applyEdits, type AnalysisOptions } from '../../../src/analysis';
import { factsOf, sessionsEngine } from './engine-fixture';

interface Case {
  name: string;
  file: string;
  text: string;
  /** What the user types for fixes that ask (NaN). */
  input?: string;
  engine?: boolean;
  /** The text after the preferred fix, when pinned. */
  preferred?: string;
}

const book = (code: string) =>
  `// ---\n// title: fixes\n// ---\n\n// %% [markdown]\n// # A notebook\n\n// %%\n${code}\n`;

const CASES: Case[] = [
  {
    name: 'TTL001 string of digits → number',
    file: 'a.js',
    text: `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: "3600" });`,
    preferred: `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 });`,
  },
  {
    name: 'TTL001 duration string → seconds',
    file: 'a.ts',
    text: `await db.collection('s').createIndex({ lastSeen: 1 }, { expireAfterSeconds: '2h' as never });`,
    preferred: `await db.collection('s').createIndex({ lastSeen: 1 }, { expireAfterSeconds: 7200 as never });`,
  },
  {
    name: 'TTL001 in a notebook',
    file: 'a.ttlbook',
    text: book(`db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: "90" })`),
  },
  {
    name: 'TTL002 NaN → typed value',
    file: 'a.js',
    text: `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: NaN });`,
    input: '600',
    preferred: `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 600 });`,
  },
  {
    name: 'TTL002 NaN in a const (TS)',
    file: 'a.ts',
    text: `const TTL: number = Number.NaN;\nawait db.collection('s').createIndex({ lastSeen: 1 }, { expireAfterSeconds: TTL });`,
    input: '3600',
    preferred: `const TTL: number = 3600;\nawait db.collection('s').createIndex({ lastSeen: 1 }, { expireAfterSeconds: TTL });`,
  },
  {
    name: 'TTL002 collMod NaN in a notebook',
    file: 'a.ttlbook',
    text: book(`db.runCommand({ collMod: 's', index: { keyPattern: { lastSeen: 1 }, expireAfterSeconds: NaN } })`),
    input: '60',
  },
  {
    name: 'TTL003 negative → absolute or 0',
    file: 'a.js',
    text: `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: -3600 });`,
    preferred: `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 });`,
  },
  {
    name: 'TTL003 negative (TS)',
    file: 'a.ts',
    text: `await db.collection('s').createIndexes([{ key: { lastSeen: 1 }, expireAfterSeconds: -1 }]);`,
  },
  {
    name: 'TTL003 negative in a notebook',
    file: 'a.ttlbook',
    text: book(`db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: -60 })`),
  },
  {
    name: 'TTL004 clamp or milliseconds → seconds',
    file: 'a.js',
    text: `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 2592000000 });`,
    preferred: `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 2592000 });`,
  },
  {
    name: 'TTL004 clustered collection (TS)',
    file: 'a.ts',
    text: `await db.createCollection('c', { clusteredIndex: { key: { _id: 1 }, unique: true }, expireAfterSeconds: 2592000000 });`,
  },
  {
    name: 'TTL004 collMod clamp in a notebook',
    file: 'a.ttlbook',
    text: book(`db.runCommand({ collMod: 's', index: { name: 'x', expireAfterSeconds: 1e12 } })`),
  },
  {
    name: 'TTL005 truncate or round',
    file: 'a.js',
    text: `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600.7 });`,
    preferred: `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 });`,
  },
  {
    name: 'TTL005 (TS)',
    file: 'a.ts',
    text: `await db.collection('s').createIndex({ lastSeen: 1 }, { expireAfterSeconds: 1.5 });`,
  },
  {
    name: 'TTL005 in a notebook',
    file: 'a.ttlbook',
    text: book(`db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 99.9 })`),
  },
  {
    name: 'TTL006 split a compound TTL index',
    file: 'a.js',
    text: `function setup() {\n  db.events.createIndex({ tenant: 1, createdAt: 1 }, { expireAfterSeconds: 3600, partialFilterExpression: { tenant: { $exists: true } } });\n}`,
    preferred: `function setup() {\n  db.events.createIndex({ createdAt: 1 }, { expireAfterSeconds: 3600, partialFilterExpression: { tenant: { $exists: true } } });\n  db.events.createIndex({ tenant: 1, createdAt: 1 }, { partialFilterExpression: { tenant: { $exists: true } } });\n}`,
  },
  {
    name: 'TTL006 split, awaited, TTL the only option (TS)',
    file: 'a.ts',
    text: `const events = db.collection('events');\nconst name = await events.createIndex({ tenant: 1, seenAt: -1 }, { expireAfterSeconds: 60 });`,
    preferred: `const events = db.collection('events');\nawait events.createIndex({ seenAt: -1 }, { expireAfterSeconds: 60 });\nconst name = await events.createIndex({ tenant: 1, seenAt: -1 });`,
  },
  {
    name: 'TTL006 split a Mongoose schema.index (TS)',
    file: 'b.ts',
    text: `schema.index({ user: 1, lastSeen: 1 }, { expires: '1d' });`,
  },
  {
    name: 'TTL006 split in a notebook',
    file: 'a.ttlbook',
    text: book(`db.events.createIndex({ tenant: 1, createdAt: 1 }, { expireAfterSeconds: 3600 })`),
  },
  {
    name: 'TTL011 createIndex → collMod',
    file: 'a.js',
    engine: true,
    text: `db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 7200 });`,
    preferred: `db.runCommand({ collMod: "sessions", index: { keyPattern: { lastSeen: 1 }, expireAfterSeconds: 7200 } });`,
  },
  {
    name: 'TTL011 driver createIndex → db.command (TS)',
    file: 'a.ts',
    engine: true,
    text: `const db = client.db('app');\nawait db.collection('sessions').createIndex({ lastSeen: 1 }, { expireAfterSeconds: 60 });`,
    preferred: `const db = client.db('app');\nawait db.command({ collMod: "sessions", index: { keyPattern: { lastSeen: 1 }, expireAfterSeconds: 60 } });`,
  },
  {
    name: 'TTL011 in a notebook',
    file: 'a.ttlbook',
    engine: true,
    text: book(`db.getSiblingDB('app').sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 10 })`),
  },
  {
    name: 'TTL014 milliseconds → seconds',
    file: 'a.js',
    text: `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 86400000 });`,
    preferred: `db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 86400 });`,
  },
  {
    name: 'TTL014 (TS)',
    file: 'a.ts',
    text: `await db.collection('s').createIndex({ lastSeen: 1 }, { expireAfterSeconds: 7 * 24 * 3600 * 1000 });`,
  },
  {
    name: 'TTL014 in a notebook',
    file: 'a.ttlbook',
    text: book(`db.s.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600000 })`),
  },
  {
    name: "TTL016 merge the docs' split options",
    file: 'a.js',
    text: `db.weather.createIndex({ timestamp: 1 }, { partialFilterExpression: { 'metadata.sensorId': 123 } }, { expireAfterSeconds: 3600 });`,
    preferred: `db.weather.createIndex({ timestamp: 1 }, { partialFilterExpression: { 'metadata.sensorId': 123 }, expireAfterSeconds: 3600 });`,
  },
  {
    name: 'TTL016 merge into empty options (TS)',
    file: 'a.ts',
    text: `await db.collection('w').createIndex({ t: 1 }, {}, { expireAfterSeconds: 60, name: 't_ttl' });`,
    preferred: `await db.collection('w').createIndex({ t: 1 }, { expireAfterSeconds: 60, name: 't_ttl' });`,
  },
  {
    name: 'TTL016 merge in a notebook',
    file: 'a.ttlbook',
    text: book(`db.w.createIndex({ t: 1 }, { sparse: true }, { expireAfterSeconds: 60 })`),
  },
  {
    name: 'TTL001 process.env → Number(... ?? fallback)',
    file: 'a.js',
    text: `userSchema.index({ verifyExpires: 1 }, { expireAfterSeconds: process.env.TIME_VERIFY });`,
    preferred: `userSchema.index({ verifyExpires: 1 }, { expireAfterSeconds: Number(process.env.TIME_VERIFY ?? 3600) });`,
  },
  {
    name: 'TTL001 process.env on a Mongoose path (TS)',
    file: 'a.ts',
    text: `const s = new Schema({ createdAt: { type: Date, index: { expireAfterSeconds: process.env['DISABLE_TIME'] } } });`,
    preferred: `const s = new Schema({ createdAt: { type: Date, index: { expireAfterSeconds: Number(process.env['DISABLE_TIME'] ?? 3600) } } });`,
  },
  {
    name: 'TTL017 move expireAfterSeconds from the key to the options',
    file: 'a.js',
    text: `db.events.createIndex({ at: 1, expireAfterSeconds: 60 });`,
    preferred: `db.events.createIndex({ at: 1 }, { expireAfterSeconds: 60 });`,
  },
  {
    name: 'TTL017 move into existing options (TS)',
    file: 'a.ts',
    text: `schema.index({ expireAt: 1, expireAfterSeconds: 5 }, { name: 'ttl' });`,
    preferred: `schema.index({ expireAt: 1 }, { name: 'ttl', expireAfterSeconds: 5 });`,
  },
  {
    name: 'TTL017 in a notebook',
    file: 'a.ttlbook',
    text: book(`db.sessions.createIndex({ lastSeen: 1, expireAfterSeconds: 1800 })`),
  },
  {
    name: 'TTL018 expiresAfterSeconds → expireAfterSeconds',
    file: 'a.js',
    text: `tokens.index({ expiryTime: 1 }, { expiresAfterSeconds: 3600 });`,
    preferred: `tokens.index({ expiryTime: 1 }, { expireAfterSeconds: 3600 });`,
  },
  {
    name: 'TTL018 exexpires on a path → expires (TS)',
    file: 'a.ts',
    text: `const s = new Schema({ createdAt: { type: Date, default: Date.now, exexpires: 24 * 60 * 60 } });`,
    preferred: `const s = new Schema({ createdAt: { type: Date, default: Date.now, expires: 24 * 60 * 60 } });`,
  },
  {
    name: 'TTL018 the driver has no ttl option, in a notebook',
    file: 'a.ttlbook',
    text: book(`db.cache.createIndex({ at: 1 }, { ttl: 3600 })`),
  },
  {
    name: 'TTL019 default: Date.now() → Date.now',
    file: 'a.js',
    text: `const s = new Schema({ createdAt: { type: Date, default: Date.now(), expires: 300 } });`,
    preferred: `const s = new Schema({ createdAt: { type: Date, default: Date.now, expires: 300 } });`,
  },
  {
    name: 'TTL019 default: new Date() on a schema.index path (TS)',
    file: 'a.ts',
    text: `const s = new Schema({ createdAt: { type: Date, default: new Date() } });\ns.index({ createdAt: 1 }, { expireAfterSeconds: 600 });`,
    preferred: `const s = new Schema({ createdAt: { type: Date, default: Date.now } });\ns.index({ createdAt: 1 }, { expireAfterSeconds: 600 });`,
  },
  {
    name: 'TTL019 a computed default becomes a function, in a notebook',
    file: 'a.ttlbook',
    text: book(`const s = new Schema({ at: { type: Date, default: new Date(Date.now()), index: { expires: '1d' } } })`),
  },
  {
    name: 'TTL020 expire at the stored time',
    file: 'a.js',
    text: `const s = new Schema({ expiresAt: { type: Date, default: () => new Date(Date.now() + 300000), index: { expires: '5m' } } });`,
    preferred: `const s = new Schema({ expiresAt: { type: Date, default: () => new Date(Date.now() + 300000), index: { expires: 0 } } });`,
  },
  {
    name: 'TTL020 on a Typegoose path (TS)',
    file: 'a.ts',
    text: `class S {\n  @prop({ default: () => Date.now() + 86400000, expires: '1d' })\n  public expireAt?: Date;\n}`,
  },
  {
    name: 'TTL020 in a notebook',
    file: 'a.ttlbook',
    text: book(
      `const s = new Schema({ expiresAt: { type: Date, default: () => Date.now() + 3600 * 1000, expires: 7200 } })`,
    ),
  },
  {
    name: 'TTL021 index the declared path',
    file: 'a.js',
    text: `const s = new Schema({ token: String, expiresAt: Date });\ns.index({ expiredAt: 1 }, { expireAfterSeconds: 0 });`,
    preferred: `const s = new Schema({ token: String, expiresAt: Date });\ns.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });`,
  },
  {
    name: 'TTL021 NestJS class (TS)',
    file: 'a.ts',
    text: `@Schema()\nclass Lock {\n  @Prop()\n  expiresAt: Date;\n}\nconst LockSchema = SchemaFactory.createForClass(Lock);\nLockSchema.index({ expireAt: 1 }, { expireAfterSeconds: 0 });`,
  },
  {
    name: 'TTL021 in a notebook',
    file: 'a.ttlbook',
    text: book(
      `const s = new Schema({ code: String, createdOn: Date })\ns.index({ createdOn_: 1 }, { expireAfterSeconds: 3600 })`,
    ),
  },
];

function optionsOf(c: Case): AnalysisOptions {
  return c.engine ? { engine: factsOf(sessionsEngine()) } : {};
}

describe('quick fixes', () => {
  for (const c of CASES) {
    test(`${c.name}: every fix leaves the text clean`, () => {
      const options = optionsOf(c);
      const before = analyzeText(c.text, c.file, options).problems;
      const code = c.name.slice(0, 6);
      const target = before.filter((p) => p.code === code);
      assert.ok(target.length > 0, `no ${code} in ${JSON.stringify(c.text)}: ${before.map((p) => p.code).join()}`);
      const fixes = target.flatMap((p) => p.fixes);
      assert.ok(fixes.length > 0, `${code} offers no fix`);
      for (const fix of fixes) {
        if (fix.edits.some((e) => e.fromInput)) assert.ok(fix.input && c.input, `${fix.title} asks for input`);
        const after = applyEdits(c.text, fix.edits, c.input);
        const left = analyzeText(after, c.file, options);
        assert.deepEqual(
          left.problems.map((p) => `${p.code}: ${p.message}`),
          [],
          `after "${fix.title}":\n${after}`,
        );
        assert.equal(left.syntaxErrors, 0, `after "${fix.title}" the text no longer parses:\n${after}`);
      }
      if (c.preferred !== undefined) {
        const preferred = fixes.find((f) => f.preferred) ?? fixes[0];
        assert.equal(applyEdits(c.text, preferred.edits, c.input), c.preferred);
      }
    });
  }
});
