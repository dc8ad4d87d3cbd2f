/**
 * TTL014 (rule 1.4: expireAfterSeconds counts seconds): which values read as milliseconds, and
 * the comments that spare a value on purpose ("// 375 days" on its line or the line above).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText } from '../../../src/analysis';
import { commentDurations, looksLikeMilliseconds } from '../../../src/analysis/checks/value-rules';

const DAY = 86_400;
const index = (value: string) => `db.s.createIndex({ t: 1 }, { expireAfterSeconds: ${value} });`;
const codes = (text: string) => analyzeText(text, 'a.js').problems.map((p) => p.code);

describe('TTL014: values that read as milliseconds', () => {
  it('rule 1.4 (TTL014): 60000, one minute in milliseconds, is the smallest value caught; 59999 and 120001 are not', () => {
    assert.equal(looksLikeMilliseconds(60_000), true);
    assert.equal(looksLikeMilliseconds(120_000), true);
    for (const s of [0, 1000, 59_000, 59_999, 60_001, 120_001])
      assert.equal(looksLikeMilliseconds(s), false, String(s));
    const [p] = analyzeText(index('60000'), 'a.js').problems;
    assert.equal(p.code, 'TTL014');
    assert.match(p.message, /^expireAfterSeconds: 60000 is 16 hours 40 minutes; did you mean 60 \(1 minute\)\?/);
  });

  it('rule 1.4 (TTL014): whole days up to a year are spared (people write 25 days on purpose); beyond a year they are caught', () => {
    assert.equal(looksLikeMilliseconds(25 * DAY), false);
    assert.equal(looksLikeMilliseconds(350 * DAY), false);
    assert.equal(looksLikeMilliseconds(375 * DAY), true);
    assert.deepEqual(codes(index('2160000')), []);
    assert.deepEqual(codes(index('30240000')), []);
    assert.deepEqual(codes(index('32400000')), ['TTL014']);
  });
});

describe('TTL014: durations a comment names', () => {
  it('TTL014: every unit is read, in any case, with decimals', () => {
    assert.deepEqual(commentDurations('keep 25 days, or 1.5 hours'), [25 * DAY, 5400]);
    assert.deepEqual(commentDurations('2 WEEKS 3 months 1 y 30s 5 mins 7d 1 yr'), [
      14 * DAY,
      90 * DAY,
      365 * DAY,
      30,
      300,
      7 * DAY,
      365 * DAY,
    ]);
    assert.deepEqual(commentDurations('10 ms, 2 wks, 1 hr, 1 second, 2 min'), [0.01, 14 * DAY, 3600, 1, 120]);
    assert.deepEqual(commentDurations('version 3 of the bar, no unit 7'), []);
  });

  it('TTL014: a comment after the value, or a comment line just above it, naming its duration spares it', () => {
    for (const text of [
      `${index('32400000')} // 375 days`,
      `${index('32400000')} /* 375 days */`,
      `${index('32400000')} /* 375 days */ // 9 days`,
      `// 375 days\n${index('32400000')}`,
      `x();\n  // keep them 375 days\n${index('32400000')}`,
    ])
      assert.deepEqual(codes(text), [], text);
  });

  it('TTL014: a comment naming another duration, a comment two lines up, or one ending code above does not spare it', () => {
    for (const text of [
      `${index('32400000')} // 374 days`,
      `// 375 days\nconst y = 2;\n${index('32400000')}`,
      `x = 1; // 375 days\n${index('32400000')}`,
      `${index('32400000')}\n// 375 days`,
    ])
      assert.deepEqual(codes(text), ['TTL014'], text);
  });
});
