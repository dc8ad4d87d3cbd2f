/**
 * Incremental re-analysis (AnalysisSession): after every edit the session's result must be the
 * result of a fresh `analyzeText` of the new text, whether it re-parsed a few statements or the
 * whole file. Random edits (seeded) over the rule fixtures and generated files include edits that
 * unbalance braces, open strings and comments, delete and join statements, add declarations that
 * clash with others and definitions that other statements' consts change.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { generate } from '../../../bench/analysis-bench';
import { AnalysisSession, analyzeText, type AnalysisOptions, type ContentChange } from '../../../src/analysis';
import { factsOf, sessionsEngine } from './engine-fixture';
import { prng } from '../helpers/prng';

const root = path.resolve(__dirname, '../../../..');
const FIXTURES = path.join(root, 'test/unit/analysis/fixtures');
const NOW = Date.parse('2026-01-01T00:00:00Z');
/** SESSION_TEST_SCALE=20 runs twenty times as many random edits (and other seeds), for a longer hunt. */
const SCALE = Number(process.env.SESSION_TEST_SCALE ?? 1);

/** Seeded, so a failure can be replayed. */
const random = prng;

const SNIPPETS = [
  ';',
  '}',
  '{',
  '(',
  ')',
  '[',
  ']',
  "'",
  '"',
  '`',
  '/*',
  '*/',
  '//',
  '\n',
  ' ',
  'a',
  '.',
  ',',
  '=',
  '+',
  '-',
  '<',
  '>',
  '0',
  '1000',
  'db.x.createIndex({ t: 1 }, { expireAfterSeconds: -5 });\n',
  'db.x.createIndex({ t: 1 }, { expireAfterSeconds: 3600 });\n',
  'db.c1.createIndex({ createdAt: 1 }, { expireAfterSeconds: 86400000 })',
  'db.x.insertOne({ t: Date.now() });\n',
  'const ttl = -1;\n',
  'const ttl = 60;\n',
  'let ttl = 5;\n',
  'const db = client.db("app");\n',
  'let db;\n',
  'var NaN = 1;\n',
  'function f(ttl) { return ttl; }\n',
  'export const y = 1;\n',
  "import z from 'z';\n",
  "'use strict';\n",
  '#!/usr/bin/env node\n',
  'expireAfterSeconds: NaN',
  'expireAfterSeconds: ttl',
  'if (x) ',
  'else ',
  'await ',
  'let ',
  'async ',
  '\n(foo)',
  '\n[1].map(f)',
  '\n`t`',
  'db.runCommand({ collMod: "c1", index: { keyPattern: { createdAt: 1 }, expireAfterSeconds: 1.5 } });\n',
  "db.createCollection('c2', { capped: true, size: 1 });\n",
  '<div>',
  '</div>',
  'type T = ',
  'interface I { }\n',
  '@dec ',
];

/** What typing mostly inserts: words, numbers, spaces, line breaks, whole comments. */
const TYPING = [
  'a',
  'x',
  'ttl',
  '0',
  '7',
  '86400',
  ' ',
  '\n',
  '\n\n',
  ' // note\n',
  '/* c */',
  'expires',
  'createIndex',
  '_',
];

interface Edit {
  from: number;
  to: number;
  text: string;
}

function randomEdit(text: string, rnd: () => number): Edit {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const at = Math.floor(rnd() * (text.length + 1));
  const kind = rnd();
  if (kind < 0.25) return { from: at, to: at, text: pick(SNIPPETS) };
  if (kind < 0.4) return { from: at, to: at, text: pick(TYPING) };
  if (kind < 0.6) return { from: at, to: Math.min(text.length, at + 1 + Math.floor(rnd() * 12)), text: '' };
  if (kind < 0.75) return { from: at, to: Math.min(text.length, at + Math.floor(rnd() * 6)), text: pick(SNIPPETS) };
  // Whole lines: delete one, duplicate one, join two (delete the line break), or delete several.
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  let lineEnd = text.indexOf('\n', at);
  if (lineEnd < 0) lineEnd = text.length;
  if (kind < 0.83) return { from: lineStart, to: Math.min(text.length, lineEnd + 1), text: '' };
  if (kind < 0.9) return { from: lineStart, to: lineStart, text: `${text.slice(lineStart, lineEnd)}\n` };
  if (kind < 0.96) return { from: lineEnd, to: Math.min(text.length, lineEnd + 1), text: '' };
  let end = lineEnd;
  for (let k = 0; k < 3; k++) {
    const next = text.indexOf('\n', end + 1);
    end = next < 0 ? text.length : next;
  }
  return { from: lineStart, to: end, text: '' };
}

function apply(text: string, e: Edit): string {
  return text.slice(0, e.from) + e.text + text.slice(e.to);
}

function optionsFor(file: string): AnalysisOptions {
  return path.basename(file).startsWith('ttl011') ? { nowMs: NOW, engine: factsOf(sessionsEngine()) } : { nowMs: NOW };
}

/** Run `steps` random edits; after each, the session must agree with analyzeText. Returns the update modes seen. */
function checkEdits(
  file: string,
  text: string,
  seed: number,
  steps: number,
  options: AnalysisOptions = { nowMs: NOW },
): Map<string, number> {
  const rnd = random(seed);
  const session = new AnalysisSession(file);
  const modes = new Map<string, number>();
  assert.deepStrictEqual(session.update(text, options), analyzeText(text, file, options), `${file}: first analysis`);
  let current = text;
  // Undo (the inverse edits): editors go back to parseable texts as often as they leave them.
  const undo: Edit[] = [];
  for (let step = 0; step < steps; step++) {
    let edit: Edit;
    const broken = session.lastUpdate.reason?.includes('does not parse') ?? false;
    if (undo.length > 0 && rnd() < (broken ? 0.8 : 0.25)) edit = undo.pop()!;
    else {
      edit = randomEdit(current, rnd);
      undo.push({ from: edit.from, to: edit.from + edit.text.length, text: current.slice(edit.from, edit.to) });
    }
    const next = apply(current, edit);
    // Half of the updates get the editor's change, half find it by comparing texts.
    const changes: ContentChange[] | undefined =
      rnd() < 0.5 ? [{ rangeOffset: edit.from, rangeLength: edit.to - edit.from, text: edit.text }] : undefined;
    if (process.env.SESSION_TEST_DUMP)
      fs.writeFileSync(process.env.SESSION_TEST_DUMP, JSON.stringify({ file, current, next, edit }));
    const got = session.update(next, options, changes);
    const want = analyzeText(next, file, options);
    assert.deepStrictEqual(
      got,
      want,
      `${file} seed ${seed} step ${step}: ${JSON.stringify(edit)} (${session.lastUpdate.mode}${session.lastUpdate.reason ? `: ${session.lastUpdate.reason}` : ''})`,
    );
    const mode = session.lastUpdate.mode;
    modes.set(mode, (modes.get(mode) ?? 0) + 1);
    if (process.env.SESSION_TEST_REASONS && session.lastUpdate.reason) console.log(session.lastUpdate.reason);
    current = next;
  }
  return modes;
}

describe('incremental analysis (AnalysisSession)', () => {
  test('after random edits to every rule fixture (JS, TS) the result equals a fresh analyzeText', () => {
    const files = fs.readdirSync(FIXTURES).filter((f) => /\.(js|ts)$/.test(f));
    assert.ok(files.length >= 30);
    const total = new Map<string, number>();
    files.forEach((f, n) => {
      const file = path.join(FIXTURES, f);
      const modes = checkEdits(file, fs.readFileSync(file, 'utf8'), 1000 * SCALE + n, 60 * SCALE, optionsFor(file));
      for (const [m, c] of modes) total.set(m, (total.get(m) ?? 0) + c);
    });
    // The test means something only if both paths ran many times.
    assert.ok((total.get('incremental') ?? 0) > 300, `incremental updates: ${total.get('incremental')}`);
    assert.ok((total.get('full') ?? 0) > 50, `full updates: ${total.get('full')}`);
  });

  test('after random edits to generated JavaScript and TypeScript files the result equals a fresh analyzeText', () => {
    for (const [ts, seed] of [
      [false, 7],
      [true, 8],
      [false, 9],
      [true, 10],
    ] as const) {
      const modes = checkEdits(ts ? 'gen.ts' : 'gen.js', generate(300, ts), seed * SCALE, 80 * SCALE);
      assert.ok((modes.get('incremental') ?? 0) > 20, `incremental updates: ${modes.get('incremental')}`);
    }
  });

  test("a one-line edit in the middle of a large file re-parses one statement and finds one statement's definitions", () => {
    const text = generate(2000, false);
    const session = new AnalysisSession('big.js');
    session.update(text);
    const at = text.indexOf('expireAfterSeconds: 86400 }', text.length >> 1) + 'expireAfterSeconds: '.length;
    const edited = `${text.slice(0, at)}-${text.slice(at)}`;
    const got = session.update(edited, {}, [{ rangeOffset: at, rangeLength: 0, text: '-' }]);
    assert.deepEqual(session.lastUpdate, { mode: 'incremental', reparsed: 1, refound: 1 });
    assert.deepStrictEqual(got, analyzeText(edited, 'big.js'));
    assert.ok(got.problems.some((p) => p.code === 'TTL003' && p.start === at));
  });

  test('changing a const re-finds the definitions that follow it, and only those', () => {
    const text = [
      'const ttl = 60;',
      'db.a.createIndex({ t: 1 }, { expireAfterSeconds: ttl });',
      'db.b.createIndex({ t: 1 }, { expireAfterSeconds: 5 });',
      'db.c.createIndex({ t: 1 }, { expireAfterSeconds: 7 });',
    ].join('\n');
    const session = new AnalysisSession('x.js');
    session.update(text);
    const edited = text.replace('ttl = 60', 'ttl = -60');
    const got = session.update(edited);
    assert.deepEqual(session.lastUpdate, { mode: 'incremental', reparsed: 1, refound: 2 });
    assert.deepEqual(
      got.problems.map((p) => [p.code, edited.slice(p.start, p.end)]),
      [['TTL003', 'ttl']],
    );
  });

  test('an edit that lets a statement continue into the next one (no semicolon, next line starts with a parenthesis) re-parses both', () => {
    const text = 'const a = b\nfoo();\ndb.a.createIndex({ t: 1 }, { expireAfterSeconds: -1 });\n';
    const session = new AnalysisSession('x.js');
    session.update(text);
    const edited = text.replace('foo();', '(foo)();');
    assert.deepStrictEqual(session.update(edited), analyzeText(edited, 'x.js'));
    assert.equal(session.lastUpdate.mode, 'incremental');
    assert.equal(session.lastUpdate.reparsed, 1, 'the edited line joins the statement before it: one statement');
  });

  test('a redeclaration across statements is left to a whole-file parse, so syntax errors are counted as analyzeText counts them', () => {
    const text = 'let q = 1;\ndb.a.createIndex({ t: 1 }, { expireAfterSeconds: 1 });\n';
    const session = new AnalysisSession('x.js');
    session.update(text);
    const edited = `${text}let q = 2;\n`;
    const got = session.update(edited);
    assert.equal(session.lastUpdate.mode, 'full');
    assert.equal(got.syntaxErrors, 1);
    assert.deepStrictEqual(got, analyzeText(edited, 'x.js'));
  });

  test("replacing the whole text (select all, paste) gives analyzeText's result for the new text", () => {
    const first = generate(400, false);
    const second = generate(300, true).replace('import type', 'import');
    const session = new AnalysisSession('x.ts');
    session.update(first);
    const got = session.update(second, {}, [{ rangeOffset: 0, rangeLength: first.length, text: second }]);
    assert.deepStrictEqual(got, analyzeText(second, 'x.ts'));
    assert.ok(got.ttlValues.length > 10);
  });

  test("texts without definition words, .ttlbook files and unknown kinds give analyzeText's result", () => {
    for (const [file, text] of [
      ['a.js', 'const x = 1;'],
      ['a.ttlbook', fs.readFileSync(path.join(FIXTURES, 'ttl003.ttlbook'), 'utf8')],
      ['a.txt', 'db.a.createIndex({ t: 1 }, { expireAfterSeconds: -1 })'],
    ]) {
      const session = new AnalysisSession(file);
      assert.deepStrictEqual(session.update(text, { nowMs: NOW }), analyzeText(text, file, { nowMs: NOW }));
      assert.deepStrictEqual(
        session.update(`${text}\n`, { nowMs: NOW }),
        analyzeText(`${text}\n`, file, { nowMs: NOW }),
      );
    }
  });
});
