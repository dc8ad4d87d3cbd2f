import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BSONRegExp } from 'bson';
import { compileFilter } from '../../../../src/engine/query/matcher';
import { compileRegex } from '../../../../src/engine/query/regex/compile';
import { deadlineIn, withMatchDeadline } from '../../../../src/engine/query/regex/deadline';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';
import { Engine } from '../../../../src/engine';

/** {s: {$regex: pattern, $options: options}} against {s: subject}. */
function rx(pattern: string, subject: string, options = ''): boolean {
  return compileFilter({ s: { $regex: pattern, $options: options } })({ s: subject });
}

function matches(filter: Document, doc: Document): boolean {
  return compileFilter(filter)(doc);
}

// A guard against a hang on an engine that backtracks exponentially; no timing is asserted.
const HANG_GUARD = { timeout: 30_000 };

describe('$regex: catastrophic patterns run in linear time', () => {
  const forty = 'a'.repeat(40) + 'b';
  const tenK = 'a'.repeat(10_000);

  test('^(a+)+$ on 40 characters ending in b is false; on 40 a is true', HANG_GUARD, () => {
    assert.equal(rx('^(a+)+$', forty), false);
    assert.equal(rx('^(a+)+$', 'a'.repeat(40)), true);
  });

  test('^(a+)+$ on 10,000 characters, with and without a final b', HANG_GUARD, () => {
    assert.equal(rx('^(a+)+$', tenK), true);
    assert.equal(rx('^(a+)+$', tenK + 'b'), false);
  });

  test('as a regex literal, a BSON regex, in $in, under $not and in $all', HANG_GUARD, () => {
    assert.equal(matches({ s: /^(a+)+$/ }, { s: forty }), false);
    assert.equal(matches({ s: new BSONRegExp('^(a|aa)+$', '') }, { s: forty }), false);
    assert.equal(matches({ s: { $in: [/^(a+)+$/, /b$/] } }, { s: forty }), true);
    assert.equal(matches({ s: { $in: [/^(a+)+$/] } }, { s: forty }), false);
    assert.equal(matches({ s: { $not: /^(a+)+$/ } }, { s: forty }), true);
    assert.equal(matches({ s: { $all: [/^(a+)+$/] } }, { s: [forty, tenK] }), true);
  });

  test('(x+x+)+y and (.*a){12} style patterns answer at once on long strings', HANG_GUARD, () => {
    assert.equal(rx('(x+x+)+y', 'x'.repeat(5000)), false);
    assert.equal(rx('^(.*a){12}$', 'a'.repeat(30) + 'b'), false);
    assert.equal(rx('^(\\w+\\s?)*$', 'word '.repeat(2000) + '!'), false);
  });

  test('the engine is RegExp for linear shapes, re2js for ambiguous ones, guarded for backreferences', () => {
    assert.equal(compileRegex('^gamma', '').engine, 'regexp');
    assert.equal(compileRegex('epsilon', 'i').engine, 'regexp');
    assert.equal(compileRegex('^[A-Z]{2}\\d{4}$', '').engine, 'regexp');
    assert.equal(compileRegex('^abc.*xyz$', '').engine, 'regexp');
    assert.equal(compileRegex('^(a+)+$', '').engine, 're2');
    assert.equal(compileRegex('a.*b.*c', '').engine, 're2');
    assert.equal(compileRegex('(\\w)\\1', '').engine, 'guarded');
    assert.equal(compileRegex('foo(?=bar)', '').engine, 'guarded');
  });
});

describe('$regex: options behave as PCRE (where JavaScript differs)', () => {
  test('$ without m also matches before a final newline, not before other newlines', () => {
    assert.equal(rx('abc$', 'abc\n'), true);
    assert.equal(rx('abc$', 'abc\n\n'), false);
    assert.equal(rx('abc$', 'abc\nx'), false);
    assert.equal(rx('^(a+)+$', 'aaa\n'), true); // also on the linear engine
  });

  test('\\A, \\z and \\Z ignore m; \\Z allows a final newline, \\z does not', () => {
    assert.equal(rx('\\Aabc', 'x\nabc', 'm'), false);
    assert.equal(rx('^abc', 'x\nabc', 'm'), true);
    assert.equal(rx('abc\\z', 'abc\n'), false);
    assert.equal(rx('abc\\Z', 'abc\n'), true);
    assert.equal(rx('abc\\z', 'abc\nx', 'm'), false);
    assert.equal(rx('abc$', 'abc\nx', 'm'), true);
  });

  test('m: ^ matches after internal newlines but not after a newline that ends the string', () => {
    assert.equal(rx('^$', 'a\n', 'm'), false);
    assert.equal(rx('^$', 'a\n\nb', 'm'), true);
    assert.equal(rx('^b', 'a\nb', 'm'), true);
    assert.equal(rx('^b', 'a\nb'), false);
  });

  test('s: dot matches \\n only with s; without s it still matches \\r and \\u2028', () => {
    assert.equal(rx('a.b', 'a\nb'), false);
    assert.equal(rx('a.b', 'a\nb', 's'), true);
    assert.equal(rx('a.b', 'a\rb'), true);
    assert.equal(rx('a.b', 'a\u2028b'), true);
  });

  test('x: whitespace and #-comments are ignored outside classes; escaped or class spaces count', () => {
    assert.equal(rx('a b # comment\n c', 'abc', 'x'), true);
    assert.equal(rx('^a\\ b$', 'a b', 'x'), true);
    assert.equal(rx('^a[ ]b$', 'a b', 'x'), true);
    assert.equal(rx('^a[#]b$', 'a#b', 'x'), true);
    assert.equal(rx('^a b$', 'ab', 'x'), true);
    assert.equal(rx('^a b$', 'ab'), false);
    assert.equal(rx('^a +$', 'aaa', 'x'), true);
  });

  test('i: Unicode case folding (ſ and S, the Kelvin sign and k), inline (?i) and (?i:...)', () => {
    assert.equal(rx('^S$', 'ſ', 'i'), true);
    assert.equal(rx('^k$', '\u212a', 'i'), true);
    assert.equal(rx('^ä$', 'Ä', 'i'), true);
    assert.equal(rx('a(?i)bc', 'aBC'), true);
    assert.equal(rx('a(?i)bc', 'ABC'), false);
    assert.equal(rx('(?i:a)b', 'Ab'), true);
    assert.equal(rx('(?i:a)b', 'AB'), false);
    assert.equal(rx('(?i)a(?-i)b', 'Ab'), true);
    assert.equal(rx('(?i)a(?-i)b', 'AB'), false);
  });

  test('u is accepted and changes nothing: patterns always match code points (UTF)', () => {
    assert.equal(rx('^.$', '😀'), true);
    assert.equal(rx('^.$', '😀', 'u'), true);
    assert.equal(rx('^[😀-😂]$', '😁'), true);
  });

  test('\\s \\d \\w are ASCII as in mongod (no UCP); POSIX classes work', () => {
    assert.equal(rx('\\s', '\u00a0'), false);
    assert.equal(rx('\\s', '\v'), true);
    assert.equal(rx('\\d', '٣'), false);
    assert.equal(rx('\\w', 'é'), false);
    assert.equal(rx('^[[:alpha:]]+[[:digit:]]$', 'abc1'), true);
    assert.equal(rx('[[:^digit:]]', '123'), false);
    assert.equal(rx('^[[:xdigit:][:space:]]+$', 'fF 09'), true);
    assert.equal(rx('^\\p{Greek}+$', 'αβγ'), true);
    assert.equal(rx('\\p{Lu}', 'abc'), false);
  });

  test('PCRE escapes and literals: \\x{..}, \\Q..\\E, a{,2} literal, \\h, \\R', () => {
    assert.equal(rx('\\x{263a}', '☺'), true);
    assert.equal(rx('^\\Qa.b\\E$', 'a.b'), true);
    assert.equal(rx('^\\Qa.b\\E$', 'axb'), false);
    assert.equal(rx('^a{,2}$', 'a{,2}'), true);
    assert.equal(rx('a\\hb', 'a\tb'), true);
    assert.equal(rx('^a\\Rb$', 'a\r\nb'), true);
  });
});

describe('$regex: invalid patterns and options get mongod codes', () => {
  test('an invalid option is 51108 " invalid flag in regex options: <flag>"', () => {
    expectError(
      () => compileFilter({ s: { $regex: 'a', $options: 'iz' } }),
      51108,
      ' invalid flag in regex options: z',
      'Location51108',
    );
    expectError(() => compileFilter({ s: new BSONRegExp('a', 'l') }), 51108, ' invalid flag in regex options: l');
  });

  test('patterns PCRE refuses are 51091 "Regular expression is invalid: ..."', () => {
    for (const bad of ['a)', '(a', '[b-a]', 'a**', '\\y', 'x{3,2}', '(?<=a+)b', '\\2(a)', '[[:alfa:]]']) {
      expectError(
        () => compileFilter({ s: { $regex: bad } }),
        51091,
        /^Regular expression is invalid: /,
        'Location51091',
      );
    }
  });

  test('an embedded null byte is BadValue', () => {
    expectError(
      () => compileFilter({ s: { $regex: 'a\0b' } }),
      2,
      'Regular expression cannot contain an embedded null byte',
    );
  });

  test('an embedded null byte in the options is BadValue, checked before the letters (not 51108)', () => {
    expectError(
      () => compileFilter({ s: { $regex: 'ab', $options: '\0i' } }),
      2,
      /options string cannot contain an embedded null byte/,
    );
  });

  test('explain of a find on a missing collection still refuses a bad regex (the filter is parsed first)', () => {
    const engine = new Engine();
    expectError(
      () => engine.runCommand('app', { explain: { find: 'missing', filter: { k: { $regex: 'ab\0c' } } } }),
      2,
      'Regular expression cannot contain an embedded null byte',
    );
  });
});

describe('$regex: patterns only a backtracking engine runs', () => {
  test('backreferences, lookaround, atomic groups and possessive quantifiers match as in PCRE', () => {
    assert.equal(rx('(a)\\1b', 'xxaab'), true);
    assert.equal(rx('(a)\\1b', 'xxabb'), false);
    assert.equal(rx('^(?<w>\\w+) \\k<w>$', 'hey hey'), true);
    assert.equal(rx('^(\\w+) \\1$', 'hey hay'), false);
    assert.equal(rx('(?i)^(a)\\1$', 'aA'), true);
    assert.equal(rx('foo(?=bar)', 'foobar'), true);
    assert.equal(rx('foo(?!bar)', 'foobar'), false);
    assert.equal(rx('(?<=x)y', 'xy'), true);
    assert.equal(rx('(?<!x)y', 'xy'), false);
    assert.equal(rx('a++a', 'aaa'), false);
    assert.equal(rx('(?>a+)b', 'aab'), true);
    assert.equal(rx('^(?:(a)|b)(?:\\1)?c$', 'bc'), true);
  });

  test('a catastrophic backreference match stops at the deadline with MaxTimeMSExpired (50)', HANG_GUARD, () => {
    const pred = compileFilter({ s: { $regex: '^(a|a)+\\1$' } });
    // Without a deadline the same pattern answers short strings correctly.
    assert.equal(pred({ s: 'aaaa' }), true);
    assert.equal(pred({ s: 'aab' }), false);
    withMatchDeadline(deadlineIn(60_000), () => assert.equal(pred({ s: 'aaaa' }), true));
    expectError(
      () => withMatchDeadline(deadlineIn(100), () => pred({ s: 'a'.repeat(40) + 'b' })),
      50,
      /exceeded time limit/,
      'MaxTimeMSExpired',
    );
  });

  test('an already expired deadline fails the next guarded match', () => {
    const pred = compileFilter({ s: /(x)\1/ });
    expectError(() => withMatchDeadline(deadlineIn(-1), () => pred({ s: 'xx' })), 50);
  });

  test('recursion and conditionals are reported as not supported, not as invalid', () => {
    expectError(() => compileFilter({ s: { $regex: 'a(?R)?b' } }), 238);
    expectError(() => compileFilter({ s: { $regex: '(a)?(?(1)b|c)' } }), 238);
  });
});

describe('regex: the operation deadline reaches a backtracking match', () => {
  test("a find's maxTimeMS stops a scan whose backreference pattern runs under vm timeouts: MaxTimeMSExpired (50)", () => {
    const engine = new Engine();
    engine.runCommand('app', {
      insert: 'c',
      documents: Array.from({ length: 3000 }, (_, i) => ({ _id: i, s: `${'xy'.repeat(50)}aa` })),
    });
    expectError(() => engine.runCommand('app', { find: 'c', filter: { s: { $regex: '(\\w)\\1' } }, maxTimeMS: 1 }), 50);
    // Without a limit the same find completes (every document matches at "aa").
    assert.equal(
      (
        (
          engine.runCommand('app', { find: 'c', filter: { s: { $regex: '(\\w)\\1' } }, batchSize: 5000 })
            .cursor as Document
        ).firstBatch as Document[]
      ).length,
      3000,
    );
  });
});

describe('$regex: PCRE2 verbs and start options', () => {
  test('(*UTF) and (*UTF8) restate what mongod always sets', () => {
    assert.equal(rx('(*UTF)á', 'suárez'), true);
    assert.equal(rx('(*UTF8)e', 'kyle'), true);
    assert.equal(rx('(*UTF8)e', '박정수'), false);
  });

  test('(*UCP) makes \\d, \\w and the POSIX classes Unicode; without it they are ASCII', () => {
    assert.equal(rx('^\\w+$', '박정수'), false);
    assert.equal(rx('(*UCP)^\\w+$', '박정수'), true);
    assert.equal(rx('(*UCP)^\\d+$', '༢༣༤༥'), true);
    assert.equal(rx('^[[:alpha:]]+$', 'suárez'), false);
    assert.equal(rx('(*UCP)^[[:alpha:]]+$', 'suárez'), true);
    assert.equal(rx('(*UCP)^[[:digit:]]+$', '9୩୪୬୯6'), true);
    assert.equal(rx('(*UCP)^\\W+$', '박정수'), false);
    expectError(() => compileFilter({ s: { $regex: '(*UCP)\\bx' } }), 238);
  });

  test("PCRE2's special properties \\p{Xan}, \\p{Xwd}, \\p{Xps}", () => {
    assert.equal(rx('^\\p{Xan}+$', 'suárez9'), true);
    assert.equal(rx('^\\p{Xan}+$', 'a_b'), false);
    assert.equal(rx('^\\p{Xwd}+$', 'a_b'), true);
    assert.equal(rx('^\\P{Xps}+$', 'a b'), false);
  });

  test('(*FAIL) never matches; a top-level (*ACCEPT) ends the match where it stands', () => {
    assert.equal(rx('(*FAIL)', 'a'), false);
    assert.equal(rx('a(*F)|b', 'a'), false);
    assert.equal(rx('a(*F)|b', 'b'), true);
    assert.equal(rx('(*ACCEPT)c', 'a'), true);
    assert.equal(rx('b(*ACCEPT)c', 'b'), true);
    assert.equal(rx('b(*ACCEPT)', 'a'), false);
    expectError(() => compileFilter({ s: { $regex: '(a(*ACCEPT))b' } }), 238);
  });

  test('a leading (*COMMIT), (*PRUNE), (*SKIP) or (*THEN) is taken only where it changes no match test', () => {
    for (const verb of ['COMMIT', 'PRUNE', 'PRUNE:FOO', 'SKIP', 'SKIP:BAR', 'THEN', 'THEN:BAZ']) {
      assert.equal(rx(`(*${verb})`, 'b'), true, verb);
      assert.equal(rx(`(*${verb})a`, 'a'), true, verb);
      assert.equal(rx(`(*${verb})a`, 'b'), false, verb);
      assert.equal(rx(`(*${verb})[Bb]`, 'b'), true, verb);
    }
    assert.equal(rx('(*PRUNE)ab', 'acab'), true, 'a pruned start moves on to the next one');
    // Behind PCRE2's start-of-match optimisation (*COMMIT) stops at the first 'a': "acab" would not match.
    expectError(() => compileFilter({ s: { $regex: '(*COMMIT)ab' } }), 238);
    expectError(() => compileFilter({ s: { $regex: '(*PRUNE)a|b' } }), 238);
    expectError(() => compileFilter({ s: { $regex: 'a(*SKIP)b' } }), 238);
    expectError(() => compileFilter({ s: { $regex: '(*CR)a' } }), 238);
    expectError(() => compileFilter({ s: { $regex: '(*NOPE)a' } }), 51091);
  });
});
