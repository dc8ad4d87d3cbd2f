/**
 * Show Documents (issue 18.5): a collection's documents as mongosh prints a cursor batch, under a
 * header that says which documents these are and how to see more; and Create Index's key check,
 * which is the engine's own index-spec rule.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32, Long, ObjectId } from 'bson';
import { EmbeddedBackend } from '../../../src/extension/backend/embedded-backend';
import {
  DOCUMENTS_MAX,
  DOCUMENTS_PAGE,
  documentsText,
  promotedForDisplay,
} from '../../../src/extension/logic/documents-text';
import { keySpecProblem } from '../../../src/extension/logic/index-key';

describe('Show Documents text', () => {
  it('prints documents as mongosh does (ISODate, ObjectId, Long; Int32 as a plain number), with the range and how to see more', () => {
    const text = documentsText({
      db: 'app',
      collection: 'events',
      documents: [
        { _id: new ObjectId('65a1b2c3d4e5f60718293a4b'), at: new Date(Date.UTC(2026, 0, 1)), n: new Int32(5) },
        { _id: 2, big: Long.fromString('9007199254740993') },
      ],
      total: 45,
      limit: DOCUMENTS_PAGE,
    });
    assert.equal(
      text,
      [
        '// app.events: documents 1–2 of 45, in natural order, as mongosh prints them. Read-only: it follows the engine.',
        `// More: "Show More Documents" (the editor's title bar) adds ${DOCUMENTS_PAGE}.`,
        `// The same query: db.getSiblingDB('app').events.find().limit(${DOCUMENTS_PAGE})`,
        '[',
        "  {\n    _id: ObjectId('65a1b2c3d4e5f60718293a4b'),\n    at: ISODate('2026-01-01T00:00:00.000Z'),\n    n: 5\n  },",
        "  { _id: 2, big: Long('9007199254740993') }",
        ']',
        '',
      ].join('\n'),
    );
  });

  it('says when every document is shown, when there are none, and at the cap that a playground serves better', () => {
    const all = documentsText({ db: 'a', collection: 'my-c', documents: [{ _id: 1 }], total: 1, limit: 20 });
    assert.match(all, /^\/\/ a\.my-c: documents 1–1 of 1,/);
    assert.match(all, /\/\/ That is all of them\./);
    assert.match(all, /getCollection\('my-c'\)\.find\(\)\.limit\(20\)/);
    const none = documentsText({ db: 'a', collection: 'c', documents: [], total: 0, limit: 20 });
    assert.match(none, /^\/\/ a\.c: no documents,/);
    assert.doesNotMatch(none, /\[/);
    const many = Array.from({ length: DOCUMENTS_MAX }, (_, i) => ({ _id: i }));
    assert.match(
      documentsText({ db: 'a', collection: 'c', documents: many, total: DOCUMENTS_MAX + 1, limit: DOCUMENTS_MAX }),
      /5,000 is the most this view shows: query in a playground notebook for the rest\./,
    );
  });

  it('keeps a field named __proto__ as data when promoting numbers', () => {
    const doc = JSON.parse('{"__proto__": {"x": 1}, "n": 2}') as Record<string, unknown>;
    const out = promotedForDisplay(doc) as Record<string, unknown>;
    assert.deepEqual(Object.keys(out), ['__proto__', 'n']);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
  });

  it('shows what the backend returns for a find, as it crosses from the engine', async () => {
    const backend = new EmbeddedBackend({}, { startMs: Date.UTC(2030, 0, 1) });
    await backend.runCommand('app', { insert: 'c', documents: [{ _id: 1, n: new Int32(7), t: new Date(0) }] });
    const found = await backend.runCommand('app', { find: 'c', limit: 20, singleBatch: true });
    const documents = (found.cursor as { firstBatch: Array<Record<string, unknown>> }).firstBatch;
    const text = documentsText({ db: 'app', collection: 'c', documents, total: 1, limit: 20 });
    assert.match(text, /\[ \{ _id: 1, n: 7, t: ISODate\('1970-01-01T00:00:00\.000Z'\) \} \]/);
    backend.dispose();
  });
});

describe('Create Index key check', () => {
  it('accepts what createIndexes accepts and says what it refuses, in the engine words', () => {
    assert.equal(keySpecProblem({ status: 1 }), undefined);
    assert.equal(keySpecProblem({ status: 1, at: -1 }), undefined);
    assert.equal(keySpecProblem({ body: 'text' }), undefined);
    assert.equal(keySpecProblem({ h: 'hashed' }), undefined);
    assert.match(keySpecProblem(undefined) ?? '', /Type the key/);
    assert.match(keySpecProblem({}) ?? '', /Type the key/);
    assert.ok(keySpecProblem({ a: 'nonsense' }), 'an unknown index type is refused');
    assert.ok(keySpecProblem({ a: 0 }), 'a zero direction is refused');
  });
});
