/** Durations as typed and shown by the extension: `3600`, `90s`, `1h`, `30d`, "at the date in the field". */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatClockTime,
  formatRelative,
  formatSeconds,
  parseClockAdvance,
  parseTTLDuration,
  plural,
} from '../../../src/extension/logic/durations';

describe('parseTTLDuration', () => {
  it('reads a bare number as seconds and unit strings with the shell grammar', () => {
    assert.deepEqual(parseTTLDuration('3600'), { seconds: 3600, atDate: false });
    assert.deepEqual(parseTTLDuration('90s'), { seconds: 90, atDate: false });
    assert.deepEqual(parseTTLDuration('1h'), { seconds: 3600, atDate: false });
    assert.deepEqual(parseTTLDuration('30d'), { seconds: 2_592_000, atDate: false });
    assert.deepEqual(parseTTLDuration(' 1h30m '), { seconds: 5400, atDate: false });
  });

  it('reads 0 and "at the date in the field" as expireAfterSeconds 0 (rule 7.8: expire at the stored date)', () => {
    for (const t of ['0', 'at', 'at the date in the field', 'At the date'])
      assert.deepEqual(parseTTLDuration(t), { seconds: 0, atDate: true });
  });

  it('leaves range checks to the engine but refuses unreadable, negative unit and sub-second input in words', () => {
    assert.deepEqual(
      parseTTLDuration('-5'),
      { seconds: -5, atDate: false },
      'a negative number reaches the engine rule (1.4)',
    );
    for (const bad of ['', 'soon', '-5s', '500ms', '1x']) {
      const r = parseTTLDuration(bad);
      assert.ok('error' in r, `expected an error for "${bad}"`);
    }
    assert.match((parseTTLDuration('500ms') as { error: string }).error, /whole seconds/);
  });
});

describe('parseClockAdvance', () => {
  it('reads seconds and durations as milliseconds and refuses zero', () => {
    assert.deepEqual(parseClockAdvance('90'), { ms: 90_000 });
    assert.deepEqual(parseClockAdvance('90s'), { ms: 90_000 });
    assert.deepEqual(parseClockAdvance('2d'), { ms: 172_800_000 });
    assert.ok('error' in parseClockAdvance('0s'));
    assert.ok('error' in parseClockAdvance('later'));
  });

  it('with the clock given, reads a date as the move to it (a date alone is UTC midnight) and refuses one not ahead', () => {
    const now = Date.UTC(2026, 0, 1, 12);
    assert.deepEqual(parseClockAdvance('2026-01-02', now), { ms: 12 * 3600_000 });
    assert.deepEqual(parseClockAdvance('2026-01-01T13:30Z', now), { ms: 90 * 60_000 });
    assert.deepEqual(parseClockAdvance('2026-01-01 14:00:00+01:00', now), { ms: 3600_000 });
    assert.match((parseClockAdvance('2026-01-01T11:00Z', now) as { error: string }).error, /only moves forward/);
    assert.match((parseClockAdvance('2026-13-45', now) as { error: string }).error, /as a date/);
    assert.match((parseClockAdvance('soon', now) as { error: string }).error, /or a date such as/);
    assert.ok('error' in parseClockAdvance('2026-01-02'), 'no clock given: a date is not a duration');
  });
});

describe('formatSeconds', () => {
  it('says a duration in at most two units', () => {
    assert.equal(formatSeconds(0), '0 s');
    assert.equal(formatSeconds(45), '45 s');
    assert.equal(formatSeconds(90), '1 min 30 s');
    assert.equal(formatSeconds(3600), '1 h');
    assert.equal(formatSeconds(5400), '1 h 30 min');
    assert.equal(formatSeconds(86_400 * 30), '30 d');
    assert.equal(formatSeconds(3661), '≈ 1 h 1 min');
    assert.equal(formatSeconds(2147483647), '≈ 24,855 d 3 h');
  });

  it('formats times, relative times and counts', () => {
    assert.equal(formatClockTime(new Date('2030-01-02T03:04:05.678Z')), '2030-01-02 03:04:05 UTC');
    const now = new Date('2030-01-01T00:00:00Z');
    assert.equal(formatRelative(new Date('2030-01-01T00:00:45Z'), now), 'in 45 s');
    assert.equal(formatRelative(new Date('2029-12-31T23:58:00Z'), now), '2 min ago');
    assert.equal(plural(1, 'document'), '1 document');
    assert.equal(plural(1234, 'document'), '1,234 documents');
  });
});
