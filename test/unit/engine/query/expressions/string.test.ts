import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BSONRegExp } from 'bson';
import { expectError } from '../../../helpers/expect-error';
import { aggregate, assertInt, ev } from './helpers';

describe('$indexOfBytes and $indexOfCP', () => {
  test('positions count UTF-8 bytes or code points', () => {
    assertInt(ev({ $indexOfBytes: ['céb', 'b'] }), 3);
    assertInt(ev({ $indexOfCP: ['céb', 'b'] }), 2);
    assertInt(ev({ $indexOfCP: ['abcabc', 'c', 3] }), 5);
    assertInt(ev({ $indexOfCP: ['abcabc', 'c', 3, 5] }), -1);
    assertInt(ev({ $indexOfBytes: ['abc', ''] }), 0);
    assertInt(ev({ $indexOfBytes: ['abc', 'x', 10] }), -1);
  });

  test('null string answers null; errors 40091/40092, 40093/40094, 40096, 40097', () => {
    assert.equal(ev({ $indexOfCP: [null, 'a'] }), null);
    expectError(
      () => ev({ $indexOfBytes: [1, 'a'] }),
      40091,
      '$indexOfBytes requires a string as the first argument, found: double',
    );
    expectError(() => ev({ $indexOfBytes: ['a', null] }), 40092);
    expectError(() => ev({ $indexOfCP: [1, 'a'] }), 40093);
    expectError(() => ev({ $indexOfCP: ['a', 1] }), 40094);
    expectError(() => ev({ $indexOfCP: ['a', 'a', 'x'] }), 40096);
    expectError(() => ev({ $indexOfCP: ['a', 'a', -1] }), 40097);
  });
});

describe('$split, $trim, $strcasecmp, $replaceOne, $replaceAll', () => {
  test('$split cuts on every separator; null answers null; errors 40085/40086/40087', () => {
    assert.deepEqual(ev({ $split: ['a,,b', ','] }), ['a', '', 'b']);
    assert.equal(ev({ $split: ['$nope', ','] }), null);
    expectError(() => ev({ $split: [1, ','] }), 40085);
    expectError(() => ev({ $split: ['a', 1] }), 40086);
    expectError(() => ev({ $split: ['a', ''] }), 40087, '$split requires a non-empty separator');
  });

  test('$trim removes whitespace (incl. Unicode spaces) or the given characters from both ends', () => {
    assert.equal(ev({ $trim: { input: '\u00a0 \t x y \n\u3000' } }), 'x y');
    assert.equal(ev({ $ltrim: { input: 'xxaxx', chars: 'x' } }), 'axx');
    assert.equal(ev({ $rtrim: { input: 'xxaxx', chars: 'x' } }), 'xxa');
    assert.equal(ev({ $trim: { input: 'abcba', chars: 'ab' } }), 'c');
    assert.equal(ev({ $trim: { input: null } }), null);
    assert.equal(ev({ $trim: { input: 'a', chars: null } }), null);
  });

  test('$trim errors: 50696 not an object, 50694 unknown field, 50695 no input, 50699/50700 non-strings', () => {
    expectError(() => ev({ $trim: 'x' }), 50696);
    expectError(() => ev({ $trim: { input: 'x', y: 1 } }), 50694);
    expectError(() => ev({ $trim: { chars: 'x' } }), 50695);
    expectError(
      () => ev({ $trim: { input: 1 } }),
      50699,
      '$trim requires its input to be a string, got 1 (of type double) instead.',
    );
    expectError(() => ev({ $trim: { input: 'x', chars: 1 } }), 50700);
  });

  test('$strcasecmp compares ASCII case-insensitively as an int', () => {
    assertInt(ev({ $strcasecmp: ['ABC', 'abc'] }), 0);
    assertInt(ev({ $strcasecmp: ['abd', 'ABC'] }), 1);
    assertInt(ev({ $strcasecmp: [null, 'a'] }), -1);
  });

  test('$replaceOne replaces the first match, $replaceAll every one; null answers null', () => {
    assert.equal(ev({ $replaceOne: { input: 'a.b.c', find: '.', replacement: '#' } }), 'a#b.c');
    assert.equal(ev({ $replaceAll: { input: 'a.b.c', find: '.', replacement: '' } }), 'abc');
    assert.equal(ev({ $replaceAll: { input: 'a', find: null, replacement: 'x' } }), null);
  });

  test('$replaceOne errors: 51751, 51750, 51749/51748/51747 missing, 51746/51745/51744 non-strings', () => {
    expectError(() => ev({ $replaceOne: 'x' }), 51751);
    expectError(() => ev({ $replaceOne: { input: 'a', find: 'a', replacement: 'b', x: 1 } }), 51750);
    expectError(() => ev({ $replaceOne: { find: 'a', replacement: 'b' } }), 51749);
    expectError(() => ev({ $replaceOne: { input: 'a', replacement: 'b' } }), 51748);
    expectError(() => ev({ $replaceAll: { input: 'a', find: 'a' } }), 51747);
    expectError(() => ev({ $replaceAll: { input: 1, find: 'a', replacement: 'b' } }), 51746);
    expectError(() => ev({ $replaceAll: { input: 'a', find: 1, replacement: 'b' } }), 51745);
    expectError(() => ev({ $replaceAll: { input: 'a', find: 'a', replacement: 1 } }), 51744);
  });
});

describe('$regexMatch, $regexFind, $regexFindAll', () => {
  test('$regexMatch tests with options from the field or the regex', () => {
    assert.equal(ev({ $regexMatch: { input: 'Hello', regex: '^h', options: 'i' } }), true);
    assert.equal(ev({ $regexMatch: { input: 'Hello', regex: new BSONRegExp('^h', 'i') } }), true);
    assert.equal(ev({ $regexMatch: { input: 'Hello', regex: '^h' } }), false);
  });

  test('$regexFind answers match, code point idx and captures (null for a group that did not take part)', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(ev({ $regexFind: { input: 'é-ab12', regex: '([a-z]+)(x)?(\\d)' } }))), {
      match: 'ab1',
      idx: 2,
      captures: ['ab', null, '1'],
    });
    assert.equal(ev({ $regexFind: { input: 'abc', regex: '\\d' } }), null);
  });

  test('$regexFindAll lists every match; an empty match moves on one character', () => {
    const all = ev({ $regexFindAll: { input: 'a1b22', regex: '\\d+' } }) as { match: string }[];
    assert.deepEqual(
      all.map((m) => m.match),
      ['1', '22'],
    );
    assert.equal((ev({ $regexFindAll: { input: 'ab', regex: 'x*' } }) as unknown[]).length, 3);
  });

  test('null input: $regexMatch false, $regexFind null, $regexFindAll []', () => {
    assert.equal(ev({ $regexMatch: { input: null, regex: 'a' } }), false);
    assert.equal(ev({ $regexFind: { input: '$nope', regex: 'a' } }), null);
    assert.deepEqual(ev({ $regexFindAll: { input: null, regex: 'a' } }), []);
  });

  test('errors: 51103, 31024, 31022, 31023, 51104, 51105, 51106, 51107, 51108, 51111', () => {
    expectError(() => ev({ $regexMatch: 'a' }), 51103);
    expectError(() => ev({ $regexMatch: { input: 'a', regex: 'a', x: 1 } }), 31024);
    expectError(() => ev({ $regexMatch: { regex: 'a' } }), 31022);
    expectError(() => ev({ $regexMatch: { input: 'a' } }), 31023);
    expectError(
      () => ev({ $regexMatch: { input: 1, regex: 'a' } }),
      51104,
      "$regexMatch needs 'input' to be of type string",
    );
    expectError(() => ev({ $regexFind: { input: 'a', regex: 1 } }), 51105);
    expectError(() => ev({ $regexFind: { input: 'a', regex: 'a', options: 1 } }), 51106);
    expectError(() => ev({ $regexFind: { input: 'a', regex: new BSONRegExp('a', 'i'), options: 'm' } }), 51107);
    expectError(() => ev({ $regexFindAll: { input: 'a', regex: 'a', options: 'q' } }), 51108);
    expectError(() => ev({ $regexFindAll: { input: 'a', regex: '(' } }), 51111);
  });

  test('mongod 8.0 limits: a pattern of at most 16384 bytes and groups nested at most 250 deep (51111)', () => {
    const input = 'c'.repeat(20000) + 'e';
    const longest = 'c'.repeat(16384);
    assert.equal((ev({ $regexFind: { input, regex: longest } }) as { match: string }).match, longest);
    for (const op of ['$regexFind', '$regexFindAll', '$regexMatch'])
      expectError(() => ev({ [op]: { input, regex: longest + 'c' } }), 51111, /longer than the limit/);
    const deepest = '('.repeat(250) + 'e' + ')'.repeat(250);
    assert.equal((ev({ $regexFind: { input, regex: deepest } }) as { captures: unknown[] }).captures.length, 250);
    expectError(() => ev({ $regexMatch: { input, regex: `(${deepest})` } }), 51111, /too deeply nested/);
    // Parentheses that are escaped, quoted or in a class do not nest.
    assert.equal(
      ev({ $regexMatch: { input: '(', regex: '^\\($|' + '[(]'.repeat(300) + '|\\Q' + '('.repeat(300) + '\\E' } }),
      true,
    );
  });
});

describe('$switch', () => {
  test('the first true case wins; default when none; 40066 with no default', () => {
    const sw = (v: unknown) =>
      ev(
        {
          $switch: {
            branches: [
              { case: { $lt: ['$v', 0] }, then: 'neg' },
              { case: { $eq: ['$v', 0] }, then: 'zero' },
            ],
            default: 'pos',
          },
        },
        { v },
      );
    assert.equal(sw(-1), 'neg');
    assert.equal(sw(0), 'zero');
    assert.equal(sw(3), 'pos');
    expectError(
      () => ev({ $switch: { branches: [{ case: false, then: 1 }] } }),
      40066,
      '$switch could not find a matching branch for an input, and no default was specified.',
    );
  });

  test('parse errors 40060, 40061, 40062, 40063, 40064, 40065, 40067, 40068', () => {
    expectError(() => ev({ $switch: 1 }), 40060);
    expectError(() => ev({ $switch: { branches: 1 } }), 40061);
    expectError(() => ev({ $switch: { branches: [1] } }), 40062);
    expectError(() => ev({ $switch: { branches: [{ case: 1, then: 1, x: 1 }] } }), 40063);
    expectError(() => ev({ $switch: { branches: [{ then: 1 }] } }), 40064);
    expectError(() => ev({ $switch: { branches: [{ case: 1 }] } }), 40065);
    expectError(() => ev({ $switch: { branches: [{ case: 1, then: 1 }], other: 1 } }), 40067);
    expectError(() => ev({ $switch: { branches: [] } }), 40068);
  });
});

describe('strings end to end', () => {
  test('$split, $trim and $regexMatch in a pipeline on a real collection', () => {
    const out = aggregate(
      [
        { _id: 1, s: ' a-b ' },
        { _id: 2, s: 'x' },
      ],
      [
        { $match: { $expr: { $regexMatch: { input: '$s', regex: '-' } } } },
        { $project: { parts: { $split: [{ $trim: { input: '$s' } }, '-'] } } },
      ],
    );
    assert.deepEqual(out, [{ _id: 1, parts: ['a', 'b'] }]);
  });
});
