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
    assert.equal(parsed.options.echo, false);
  });

  test('run --echo asks for every statement value of a .js file', () => {
    const parsed = parseArgs(['run', '--echo', 'a.js']);
    assert.equal(parsed.command === 'run' && parsed.options.echo, true);
  });

  test('mcp: a virtual clock, the confirmation limit and the statement time limit, with their bounds', () => {
    assert.deepEqual(parseArgs(['mcp']), {
      command: 'mcp',
      options: { clock: 'virtual', confirmExpiryAbove: 1000, timeoutMs: 10_000 },
    });
    const parsed = parseArgs([
      'mcp',
      '--data',
      'dir',
      '--now',
      '2026-01-01T00:00:00Z',
      '--flavor',
      'cosmos',
      '--server-version',
      '7.0',
      '--confirm-expiry-above',
      '0',
      '--timeout',
      '100',
    ]);
    assert.equal(parsed.command, 'mcp');
    if (parsed.command !== 'mcp') return;
    assert.deepEqual(
      { ...parsed.options, now: parsed.options.now?.toISOString() },
      {
        clock: 'virtual',
        data: 'dir',
        now: '2026-01-01T00:00:00.000Z',
        flavor: 'cosmos',
        serverVersion: '7.0',
        confirmExpiryAbove: 0,
        timeoutMs: 100,
      },
    );
    for (const [args, text] of [
      [['--confirm-expiry-above', '-1'], /whole number of documents/],
      [['--confirm-expiry-above', '1.5'], /whole number of documents/],
      [['--timeout', '99'], /from 100 to 60000/],
      [['--timeout', '60001'], /from 100 to 60000/],
      [['--clock', 'system'], /always has a virtual clock/],
      [['--port', '1'], /unknown option '--port' for mcp/],
      [['--read-only'], /--read-only reads a data folder without writing to it: give the folder with --data DIR/],
    ] as const)
      assert.throws(
        () => parseArgs(['mcp', ...args]),
        (err: Error) => err instanceof UsageError && text.test(err.message),
        args.join(' '),
      );
  });

  test('mcp --read-only with --data: the folder is read, never written', () => {
    const parsed = parseArgs(['mcp', '--data', 'dir', '--read-only']);
    assert.equal(parsed.command, 'mcp');
    if (parsed.command !== 'mcp') return;
    assert.equal(parsed.options.readOnly, true);
    assert.equal(parsed.options.data, 'dir');
  });

  test('serve --auth USER:PASSWORD: the first colon ends the user; without it there is no auth', () => {
    const parsed = parseArgs(['serve', '--port', '0', '--auth', 'app:se:cr et']);
    assert.equal(parsed.command, 'serve');
    if (parsed.command !== 'serve') return;
    assert.deepEqual(parsed.options.auth, { user: 'app', password: 'se:cr et' });
    assert.equal(parsed.options.port, 0);
    const plain = parseArgs(['serve']);
    assert.equal(plain.command === 'serve' && plain.options.auth, undefined);
  });

  for (const [args, message] of [
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['run'], /at least one FILE/],
    [['run', 'a.js', '--clock', 'sundial'], /--clock must be 'virtual' or 'system'/],
    [['run', 'a.js', '--now', 'yesterday'], /--now needs an ISO date/],
    [['run', 'a.js', '--now'], /--now needs a value/],
    [['run', 'a.js', '--clock', 'system', '--now', '2026-01-01T00:00:00Z'], /cannot be combined/],
    [['run', 'a.js', '--bogus'], /unknown option '--bogus'/],
    [['serve', '--auth', 'nocolon'], /--auth needs USER:PASSWORD/],
    [['serve', '--auth', ':secret'], /--auth needs USER:PASSWORD/],
    [['serve', '--auth', 'app:'], /--auth needs USER:PASSWORD/],
    [['serve', '--auth'], /--auth needs a value/],
    [
      ['serve', '--auth', 'app:bell\u0007'],
      /--auth: .*SASLprep \(RFC 4013\) refuses it, U\+0007 is a control character/,
    ],
  ] as Array<[string[], RegExp]>) {
    test(`usage error: ${args.join(' ')}`, () => {
      assert.throws(
        () => parseArgs(args),
        (e: Error) => e instanceof UsageError && message.test(e.message),
      );
    });
  }
});

describe('ttl-workbench arguments: data folders', () => {
  test('run --data DIR --clock system is accepted (the clock mode is stored with the data)', () => {
    const parsed = parseArgs(['run', 'a.js', '--data', 'dir', '--clock', 'system']);
    assert.equal(parsed.command === 'run' && parsed.options.clock, 'system');
    assert.equal(parsed.command === 'run' && parsed.options.clockGiven, true);
    const folderMode = parseArgs(['run', 'a.js', '--data', 'dir']);
    assert.equal(folderMode.command === 'run' && folderMode.options.clockGiven, undefined);
  });

  test('run --read-only needs --data', () => {
    const parsed = parseArgs(['run', 'a.js', '--data', 'dir', '--read-only']);
    assert.equal(parsed.command === 'run' && parsed.options.readOnly, true);
    assert.throws(
      () => parseArgs(['run', 'a.js', '--read-only']),
      (err: Error) => err instanceof UsageError && /give the folder with --data DIR/.test(err.message),
    );
  });

  test('serve --read-only needs --data', () => {
    const parsed = parseArgs(['serve', '--data', 'dir', '--read-only']);
    assert.equal(parsed.command === 'serve' && parsed.options.readOnly, true);
    const writable = parseArgs(['serve', '--data', 'dir']);
    assert.equal(writable.command === 'serve' && writable.options.readOnly, undefined);
    assert.throws(
      () => parseArgs(['serve', '--read-only']),
      (err: Error) =>
        err instanceof UsageError && /serves a data folder .*give the folder with --data DIR/.test(err.message),
    );
  });
});
