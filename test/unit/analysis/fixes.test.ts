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
