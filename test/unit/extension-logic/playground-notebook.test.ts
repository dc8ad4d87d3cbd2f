/**
 * The .ttlbook notebook serializer's pure half: file text → cell data → file text. Unchanged
 * notebooks save byte-identically (every bundled example, hand-written spacing, no header, no
 * trailing newline); edits, new, moved and deleted cells and metadata changes touch only what
 * changed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  CELL_LANGUAGE,
  notebookDataFromText,
  textFromNotebookData,
  type PlaygroundNotebookData,
} from '../../../src/extension/logic/playground-notebook';

const root = path.resolve(__dirname, '..', '..', '..', '..');
const examples = fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.ttlbook'));

/** What VS Code hands the serializer back: the cells and metadata it was given (a JSON copy, as it stores them). */
function roundTrip(data: PlaygroundNotebookData): string {
  const copy = JSON.parse(JSON.stringify(data)) as PlaygroundNotebookData;
  return textFromNotebookData(copy.cells, copy.metadata);
}

const book = `// ---
// title: Demo
// engine: {"now":"2026-01-01T00:00:00Z"}
// ---

// %% [markdown]
// # Demo
//
// Some *markdown*.

// %%
db.c.insertOne({ a: 1 })

// %% second
db.c.find()
`;

describe('playground notebook serializer (pure part)', () => {
  it('saves every bundled example unchanged byte for byte', () => {
    assert.ok(examples.length >= 7);
    for (const f of examples) {
      const text = fs.readFileSync(path.join(root, 'examples', f), 'utf8');
      assert.equal(roundTrip(notebookDataFromText(text)), text, f);
    }
  });

  it('saves odd spacing, a notebook without header and one without a final newline unchanged', () => {
    for (const text of [
      'print(1)\n\n\n// %%\n\n\nprint(2)\n\n\n',
      '// %%\nprint(1)',
      '',
      '// %% [markdown]\n// only markdown\n',
      '// ---\n// title: x\n// ---\n// %%\n1\n',
    ]) {
      assert.equal(roundTrip(notebookDataFromText(text)), text, JSON.stringify(text));
    }
  });

  it('reads cells with their kind, language, markdown without comment prefixes, titles and header metadata', () => {
    const data = notebookDataFromText(book);
    assert.deepEqual(
      data.cells.map((c) => [c.kind, c.language, c.value]),
      [
        ['markdown', 'markdown', '# Demo\n\nSome *markdown*.'],
        ['code', CELL_LANGUAGE, 'db.c.insertOne({ a: 1 })'],
        ['code', CELL_LANGUAGE, 'db.c.find()'],
      ],
    );
    assert.equal(data.cells[2].metadata.ttlbook?.title, 'second');
    assert.deepEqual(data.metadata.ttlbook.header, { title: 'Demo', engine: { now: '2026-01-01T00:00:00Z' } });
  });

  it('an edited cell is written in the canonical form; its neighbours keep their bytes', () => {
    const data = notebookDataFromText(book.replace('db.c.insertOne({ a: 1 })', 'db.c.insertOne({ a: 1 })\n\n\n'));
    data.cells[2].value = 'db.c.find({ a: 1 })';
    const text = roundTrip(data);
    assert.equal(
      text,
      book
        .replace('db.c.insertOne({ a: 1 })', 'db.c.insertOne({ a: 1 })\n\n\n')
        .replace('db.c.find()', 'db.c.find({ a: 1 })'),
    );
  });

  it('new cells (no metadata) are written canonically, between or after existing ones', () => {
    const data = notebookDataFromText(book);
    data.cells.splice(2, 0, {
      kind: 'markdown',
      value: 'A note\n\nwith a blank line',
      language: 'markdown',
      metadata: {},
    });
    data.cells.push({ kind: 'code', value: 'sleep(1000)', language: CELL_LANGUAGE, metadata: {} });
    const text = roundTrip(data);
    assert.ok(
      text.includes(
        'db.c.insertOne({ a: 1 })\n\n// %% [markdown]\n// A note\n//\n// with a blank line\n\n// %% second\ndb.c.find()\n\n// %%\nsleep(1000)\n',
      ),
      text,
    );
    const back = notebookDataFromText(text);
    assert.deepEqual(
      back.cells.map((c) => c.value),
      [
        '# Demo\n\nSome *markdown*.',
        'db.c.insertOne({ a: 1 })',
        'A note\n\nwith a blank line',
        'db.c.find()',
        'sleep(1000)',
      ],
    );
  });

  it('moved and deleted cells keep their own text and stay separated', () => {
    const data = notebookDataFromText(book);
    const [md, first, second] = data.cells;
    data.cells = [md, second, first];
    const moved = roundTrip(data);
    assert.deepEqual(
      notebookDataFromText(moved).cells.map((c) => c.value),
      ['# Demo\n\nSome *markdown*.', 'db.c.find()', 'db.c.insertOne({ a: 1 })'],
    );
    assert.ok(moved.includes('// %% second\ndb.c.find()\n\n// %%\ndb.c.insertOne'), moved);
    data.cells = [md, first];
    assert.equal(roundTrip(data), book.replace('\n// %% second\ndb.c.find()\n', ''));
  });

  it('a changed header is written canonically; an unchanged one keeps its bytes', () => {
    const spaced = book.replace('// title: Demo', '//   title:   Demo');
    assert.equal(roundTrip(notebookDataFromText(spaced)), spaced);
    const data = notebookDataFromText(spaced);
    data.metadata.ttlbook.header = {
      ...data.metadata.ttlbook.header,
      engine: { isolated: true, now: '2026-01-01T00:00:00Z', flavor: 'cosmos' },
    };
    const text = roundTrip(data);
    assert.ok(
      text.startsWith(
        '// ---\n// title: Demo\n// engine: {"isolated":true,"now":"2026-01-01T00:00:00Z","flavor":"cosmos"}\n// ---\n\n// %% [markdown]\n',
      ),
      text,
    );
    assert.deepEqual(notebookDataFromText(text).metadata.ttlbook.header.engine, {
      isolated: true,
      now: '2026-01-01T00:00:00Z',
      flavor: 'cosmos',
    });
  });

  it('cells whose metadata VS Code dropped are written canonically, not lost', () => {
    const data = notebookDataFromText(book);
    const text = textFromNotebookData(
      data.cells.map((c) => ({ kind: c.kind, value: c.value })),
      undefined,
    );
    assert.deepEqual(
      notebookDataFromText(text).cells.map((c) => [c.kind, c.value]),
      data.cells.map((c) => [c.kind, c.value]),
    );
  });
});
