import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseArgs, UsageError } from '../../../src/cli/args';

describe('ttl-workbench arguments', () => {
  test('no arguments or --help asks for help', () => {
    assert.deepEqual(parseArgs([]), { command: 'help' });
    assert.deepEqual(parseArgs(['run', '--help']), { command: 'help' });
  });

  test('run takes files and flags, with a virtual clock by default', () => {
    const parsed = parseArgs([
      'run',
      'a.js',
      'b.ttlbook',
      '--json',
      '--now',
      '2026-01-01T00:00:00Z',
      '--flavor',
      'cosmos',
      '--timeout',
      '500',
    ]);
    assert.equal(parsed.command, 'run');
    if (parsed.command !== 'run') return;
    assert.deepEqual(parsed.options.files, ['a.js', 'b.ttlbook']);
    assert.equal(parsed.options.clock, 'virtual');
    assert.equal(parsed.options.json, true);
    assert.equal(parsed.options.now?.toISOString(), '2026-01-01T00:00:00.000Z');
    assert.equal(parsed.options.flavor, 'cosmos');
    assert.equal(parsed.options.timeoutMs, 500);
  });

  for (const [args, message] of [
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['run'], /at least one FILE/],
    [['run', 'a.js', '--clock', 'sundial'], /--clock must be 'virtual' or 'system'/],
    [['run', 'a.js', '--now', 'yesterday'], /--now needs an ISO date/],
    [['run', 'a.js', '--now'], /--now needs a value/],
    [['run', 'a.js', '--clock', 'system', '--now', '2026-01-01T00:00:00Z'], /cannot be combined/],
    [['run', 'a.js', '--data', 'dir', '--clock', 'system'], /--data keeps a virtual clock/],
    [['run', 'a.js', '--bogus'], /unknown option '--bogus'/],
  ] as Array<[string[], RegExp]>) {
    test(`usage error: ${args.join(' ')}`, () => {
      assert.throws(
        () => parseArgs(args),
        (e: Error) => e instanceof UsageError && message.test(e.message),
      );
    });
  }
});
