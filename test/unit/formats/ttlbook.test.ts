import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { codeCells, engineRequestOf, parseTtlbook, serializeTtlbook, type Ttlbook } from '../../../src/formats/ttlbook';

const canonical = `// ---
// title: Expire after N seconds
// engine: {"isolated":true,"now":"2026-01-01T00:00:00Z"}
// ---

// %% [markdown]
// # Sessions expire
//
// An index with **expireAfterSeconds**.

// %%
db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 })

// %% insert
db.sessions.insertOne({ lastSeen: new Date() })
sleep(3661000)
db.sessions.countDocuments()
`;

describe('.ttlbook format', () => {
  test('parses metadata (JSON values and strings), markdown and code cells with their lines', () => {
    const book = parseTtlbook(canonical);
    assert.deepEqual(book.metadata, {
      title: 'Expire after N seconds',
      engine: { isolated: true, now: '2026-01-01T00:00:00Z' },
    });
    assert.deepEqual(
      book.cells.map((c) => c.kind),
      ['markdown', 'code', 'code'],
    );
    assert.equal(book.cells[0].source, '# Sessions expire\n\nAn index with **expireAfterSeconds**.');
    assert.equal(book.cells[1].source, 'db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 3600 })');
    assert.equal(book.cells[1].line, 12);
    assert.equal(book.cells[2].title, 'insert');
    assert.equal(book.cells[2].line, 15);
    assert.equal(codeCells(book).length, 2);
  });

  test('saving an unchanged notebook is byte-identical', () => {
    assert.equal(serializeTtlbook(parseTtlbook(canonical)), canonical);
  });

  test('hand-written spacing survives an unchanged save too', () => {
    const messy = 'print(1)\n\n\n// %%\n\nprint(2)\n\n\n\n// %% [markdown]\n// note\n// %%\nprint(3)';
    assert.equal(serializeTtlbook(parseTtlbook(messy)), messy);
    const noMarkers = 'db.c.insertOne({a: 1})\n';
    assert.equal(serializeTtlbook(parseTtlbook(noMarkers)), noMarkers);
  });

  test('building a notebook from cells writes the canonical form, which parses back to the same cells', () => {
    const book: Ttlbook = {
      metadata: { title: 'Demo', engine: { flavor: 'cosmos' } },
      cells: [
        { kind: 'markdown', source: '# Title\n\ntext', line: 0 },
        { kind: 'code', source: 'print("hi")', line: 0 },
      ],
    };
    const text = serializeTtlbook(book);
    assert.equal(
      text,
      '// ---\n// title: Demo\n// engine: {"flavor":"cosmos"}\n// ---\n\n// %% [markdown]\n// # Title\n//\n// text\n\n// %%\nprint("hi")\n',
    );
    const back = parseTtlbook(text);
    assert.deepEqual(
      back.cells.map((c) => [c.kind, c.source]),
      [
        ['markdown', '# Title\n\ntext'],
        ['code', 'print("hi")'],
      ],
    );
  });

  test('an edited cell is rewritten canonically while the others keep their bytes', () => {
    const book = parseTtlbook(canonical);
    book.cells[1] = {
      ...book.cells[1],
      source: 'db.sessions.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 60 })',
    };
    const text = serializeTtlbook(book, parseTtlbook(canonical));
    assert.equal(text, canonical.replace('expireAfterSeconds: 3600 })', 'expireAfterSeconds: 60 })'));
  });

  test('a cell appended after the old last cell gets a blank line before it', () => {
    const book = parseTtlbook(canonical);
    book.cells.push({ kind: 'code', source: 'print(4)', line: 0 });
    const text = serializeTtlbook(book, parseTtlbook(canonical));
    assert.ok(text.endsWith('db.sessions.countDocuments()\n\n// %%\nprint(4)\n'), text);
  });
});

describe('.ttlbook engine metadata', () => {
  test('reads isolated, now, flavor, serverVersion and clock; no engine key means the shared engine', () => {
    assert.deepEqual(engineRequestOf({}), { isolated: false });
    assert.deepEqual(
      engineRequestOf({
        engine: {
          isolated: true,
          now: '2026-01-01T00:00:00Z',
          flavor: 'cosmos',
          serverVersion: '7.0',
          clock: 'virtual',
        },
      }),
      {
        isolated: true,
        now: new Date('2026-01-01T00:00:00Z'),
        flavor: 'cosmos',
        serverVersion: '7.0',
        clock: 'virtual',
      },
    );
  });

  test('refuses bad values and unknown keys with a message that says what is expected', () => {
    const error = (engine: unknown) => (engineRequestOf({ engine }) as { error?: string }).error;
    assert.match(error({ isolate: true })!, /unknown key in the notebook's engine metadata: isolate/);
    assert.match(error({ now: 'tomorrow' })!, /engine\.now metadata is not a date: "tomorrow"/);
    assert.match(error({ flavor: 'dynamo' })!, /engine\.flavor must be "mongodb" or "cosmos"/);
    assert.match(error({ isolated: 'yes' })!, /engine\.isolated must be true or false/);
    assert.match(error('isolated')!, /must be an object/);
    assert.match(error({ replSet: 'rs 0' })!, /engine\.replSet must be a replica set name/);
    assert.match(error({ replSet: 1 })!, /engine\.replSet must be a replica set name/);
  });

  test('replSet asks for a one-member replica set of that name', () => {
    assert.deepEqual(engineRequestOf({ engine: { replSet: 'rs0' } }), { isolated: false, replSet: 'rs0' });
  });
});
