/**
 * Update specs are validated when the statement is parsed, as mongod's UpdateDriver and ParsedUpdate
 * do: a malformed update fails whether or not a document matches, and whether or not the
 * collection exists (src/mongo/db/update/update_driver.cpp, update_object_node.cpp, rename_node.cpp).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, type Document } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

const DB = 'app';

const INVALID: [string, unknown, number, string | RegExp, Document?][] = [
  ['$rename onto itself', { $rename: { a: 'a' } }, 2, 'The source and target field for $rename must differ: a: "a"'],
  [
    '$rename onto its own parent',
    { $rename: { 'a.b': 'a' } },
    2,
    'The source and target field for $rename must not be on the same path: a.b: "a"',
  ],
  ['$rename to a non-string', { $rename: { a: 1 } }, 2, /^The 'to' field for \$rename must be a string: a: 1/],
  [
    'two operators on one path',
    { $set: { a: 1 }, $inc: { a: 1 } },
    40,
    "Updating the path 'a' would create a conflict at 'a'",
  ],
  ['a path and its prefix', { $set: { a: 1, 'a.b': 2 } }, 40, "Updating the path 'a.b' would create a conflict at 'a'"],
  ['$rename source and a $set on it', { $rename: { a: 'b' }, $set: { a: 1 } }, 40, /would create a conflict at 'a'/],
  ['an unknown modifier', { $foo: { a: 1 } }, 9, /^Unknown modifier: \$foo/],
  ['an operator that is not a document', { $set: 5 }, 9, /^Modifiers operate on fields but we found type double/],
  ['a non-numeric $inc', { $inc: { a: 'x' } }, 14, /^Cannot increment with non-numeric argument/],
  ['a bad $push $each', { $push: { a: { $each: 1 } } }, 2, /^The argument to \$each in \$push must be an array/],
  ['an empty field name', { $set: { 'a..b': 1 } }, 56, /contains an empty field name/],
  ['a $ field in a replacement', { a: 1, $b: 1 }, 52, /^The dollar \(\$\) prefixed field '\$b'/],
  ['a field after operators', { $set: { a: 1 }, b: 1 }, 9, /^Unknown modifier: b/],
  [
    'a replacement with multi',
    { a: 1 },
    9,
    'multi update is not supported for replacement-style update',
    { multi: true },
  ],
  ['a bad pipeline stage', [{ $match: {} }], 72, '$match is not allowed to be used within an update'],
];

function engineWith(docs: Document[]): Engine {
  const engine = new Engine();
  if (docs.length) engine.runCommand(DB, { insert: 'c', documents: docs });
  return engine;
}

describe('update specs are validated when parsed', () => {
  for (const [what, u, code, message, extra] of INVALID) {
    it(`update: ${what} is refused (${code}) with no collection, no match, or a match`, () => {
      for (const [docs, q] of [
        [[], { _id: 1 }],
        [[{ _id: 2, a: { b: 1 } }], { _id: 1 }],
        [[{ _id: 1, a: { b: 1 } }], { _id: 1 }],
      ] as [Document[], Document][]) {
        const engine = engineWith(docs);
        const reply = engine.runCommand(DB, { update: 'c', updates: [{ q, u, ...extra }] });
        const errors = reply.writeErrors as Document[] | undefined;
        assert.ok(errors?.length === 1, `${what} with ${docs.length} documents: ${JSON.stringify(reply)}`);
        assert.equal(errors[0].code, code, String(errors[0].errmsg));
        if (typeof message === 'string') assert.equal(errors[0].errmsg, message);
        else assert.match(String(errors[0].errmsg), message);
        assert.equal(reply.n, 0);
      }
    });
  }

  it('findAndModify: an invalid $rename fails even when the collection does not exist', () => {
    const engine = new Engine();
    expectError(
      () => engine.runCommand(DB, { findAndModify: 'none', query: {}, update: { $rename: { a: 'a' } } }),
      2,
      'The source and target field for $rename must differ: a: "a"',
    );
    expectError(
      () => engine.runCommand(DB, { findAndModify: 'none', query: {}, update: { $set: { a: 1, 'a.b': 1 } } }),
      40,
    );
  });

  it('an empty operator ({$set: {}}) is accepted as a no-op, as since MongoDB 5.0', () => {
    const engine = engineWith([{ _id: 1, a: 1 }]);
    const reply = engine.runCommand(DB, { update: 'c', updates: [{ q: { _id: 1 }, u: { $set: {} } }] });
    assert.equal(reply.writeErrors, undefined);
    assert.equal(reply.n, 1);
    assert.equal(reply.nModified, 0);
    const none = engine.runCommand(DB, { update: 'none', updates: [{ q: {}, u: { $set: {}, $unset: {} } }] });
    assert.equal(none.writeErrors, undefined);
  });

  it('a bad query fails the statement even when the collection does not exist', () => {
    const engine = new Engine();
    const reply = engine.runCommand(DB, {
      update: 'none',
      updates: [{ q: { a: { $bogus: 1 } }, u: { $set: { b: 1 } } }],
    });
    assert.equal((reply.writeErrors as Document[])[0].code, 2);
  });
});
