/** Splitting source into top-level statements, and syntax errors with line and column. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ShellSyntaxError, splitStatements } from '../../../src/shell/statements';

describe('splitStatements', () => {
  it('returns one entry per top-level statement with its exact text and position', () => {
    const source = 'db.c.insertOne({ a: 1 })\n  let x = 1; x + 1\nif (x) {\n  print(x)\n}';
    const statements = splitStatements(source);
    assert.deepEqual(
      statements.map((s) => [s.source, s.line, s.column, s.endLine]),
      [
        ['db.c.insertOne({ a: 1 })', 1, 1, 1],
        ['let x = 1;', 2, 3, 2],
        ['x + 1', 2, 14, 2],
        ['if (x) {\n  print(x)\n}', 3, 1, 5],
      ],
    );
  });

  it('keeps multi-line expressions whole and drops comments between statements', () => {
    const statements = splitStatements('// setup\ndb.c.find({\n  a: 1,\n})\n/* done */');
    assert.equal(statements.length, 1);
    assert.equal(statements[0].source, 'db.c.find({\n  a: 1,\n})');
    assert.equal(statements[0].endLine, 4);
  });

  it('marks top-level function declarations as hoisted, and nothing else', () => {
    const statements = splitStatements('f()\nfunction f() { return 1 }\nconst g = function () {}\nclass C {}');
    assert.deepEqual(
      statements.map((s) => s.hoisted),
      [false, true, false, false],
    );
  });

  it('returns no statements for empty or comment-only source', () => {
    assert.deepEqual(splitStatements(''), []);
    assert.deepEqual(splitStatements('// nothing\n/* here */\n'), []);
  });

  it('reports a syntax error with its 1-based line and column', () => {
    assert.throws(
      () => splitStatements('db.c.insertOne({ a: 1 })\nlet y = ;'),
      (err: unknown) => {
        assert.ok(err instanceof ShellSyntaxError);
        assert.equal(err.name, 'SyntaxError');
        assert.equal(err.line, 2);
        assert.equal(err.column, 9);
        assert.equal(err.reason, 'Unexpected token');
        assert.equal(err.message, 'Unexpected token (line 2, column 9)');
        return true;
      },
    );
  });

  it('refuses top-level await and return, as a script would', () => {
    assert.throws(() => splitStatements('await db.c.findOne()'), ShellSyntaxError);
    assert.throws(() => splitStatements('return 1'), ShellSyntaxError);
  });

  it('parses modern syntax (optional chaining, nullish coalescing, class fields)', () => {
    const statements = splitStatements('const a = x?.y ?? 1\nclass K { #p = 1; static s = 2 }');
    assert.equal(statements.length, 2);
  });
});
