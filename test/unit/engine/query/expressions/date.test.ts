import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Timestamp } from 'bson';
import { BSON_UNDEFINED } from '../../../../../src/engine/values/bson-undefined';
import { expectError } from '../../../helpers/expect-error';
import { aggregate, assertInt, assertLong, ev, int } from './helpers';

const d = (s: string): Date => new Date(s);

describe('$dateTrunc', () => {
  test('unit "week" with startOfWeek "monday" truncates to Monday 00:00 in the timezone', () => {
    // 2024-05-15 is a Wednesday; 03:30Z is still Tuesday evening in New York (UTC-4).
    assert.deepEqual(
      ev({ $dateTrunc: { date: d('2024-05-15T13:45:00Z'), unit: 'week', startOfWeek: 'monday' } }),
      d('2024-05-13T00:00:00Z'),
    );
    assert.deepEqual(
      ev({
        $dateTrunc: { date: d('2024-05-15T03:30:00Z'), unit: 'week', startOfWeek: 'Mon', timezone: 'America/New_York' },
      }),
      d('2024-05-13T04:00:00Z'),
    );
  });

  test('weeks start on Sunday by default', () => {
    assert.deepEqual(ev({ $dateTrunc: { date: d('2024-05-15T13:45:00Z'), unit: 'week' } }), d('2024-05-12T00:00:00Z'));
  });

  test('month, quarter and year truncate to local midnight of the first day', () => {
    const date = d('2024-05-15T13:45:00Z');
    assert.deepEqual(ev({ $dateTrunc: { date, unit: 'month' } }), d('2024-05-01T00:00:00Z'));
    assert.deepEqual(ev({ $dateTrunc: { date, unit: 'quarter' } }), d('2024-04-01T00:00:00Z'));
    assert.deepEqual(ev({ $dateTrunc: { date, unit: 'year', timezone: '+02:00' } }), d('2023-12-31T22:00:00Z'));
  });

  test('binSize counts bins from 2000-01-01', () => {
    assert.deepEqual(
      ev({ $dateTrunc: { date: d('2024-05-15T13:47:00Z'), unit: 'minute', binSize: 15 } }),
      d('2024-05-15T13:45:00Z'),
    );
    assert.deepEqual(
      ev({ $dateTrunc: { date: d('2024-05-15T13:47:00Z'), unit: 'month', binSize: 6 } }),
      d('2024-01-01T00:00:00Z'),
    );
    assert.deepEqual(
      ev({ $dateTrunc: { date: d('2024-05-15T13:47:00Z'), unit: 'hour', binSize: int(5) } }),
      d('2024-05-15T11:00:00Z'),
    );
  });

  test('a timestamp date is read as its instant; null fields answer null', () => {
    assert.deepEqual(
      ev({ $dateTrunc: { date: new Timestamp({ t: 1715780700, i: 1 }), unit: 'day' } }),
      d('2024-05-15T00:00:00Z'),
    );
    assert.equal(ev({ $dateTrunc: { date: null, unit: 'day' } }), null);
    assert.equal(ev({ $dateTrunc: { date: d('2024-05-15'), unit: '$nope' } }), null);
    assert.equal(ev({ $dateTrunc: { date: d('2024-05-15'), unit: 'day', timezone: null } }), null);
  });

  test('errors: 5439007, 5439008, 5439009, 5439010, 5439012, 5439013, 9, 5439015/5439016, 5439017/5439018, 40485', () => {
    const date = d('2024-05-15');
    expectError(() => ev({ $dateTrunc: 1 }), 5439007);
    expectError(() => ev({ $dateTrunc: { date, unit: 'day', x: 1 } }), 5439008);
    expectError(() => ev({ $dateTrunc: { unit: 'day' } }), 5439009);
    expectError(() => ev({ $dateTrunc: { date } }), 5439010);
    expectError(() => ev({ $dateTrunc: { date: 'x', unit: 'day' } }), 5439012);
    expectError(() => ev({ $dateTrunc: { date, unit: 1 } }), 5439013);
    expectError(() => ev({ $dateTrunc: { date, unit: 'fortnight' } }), 9, 'unknown time unit value: fortnight');
    expectError(() => ev({ $dateTrunc: { date, unit: 'week', startOfWeek: 1 } }), 5439015);
    expectError(() => ev({ $dateTrunc: { date, unit: 'week', startOfWeek: 'funday' } }), 5439016);
    expectError(() => ev({ $dateTrunc: { date, unit: 'day', binSize: 1.5 } }), 5439017);
    expectError(() => ev({ $dateTrunc: { date, unit: 'day', binSize: 0 } }), 5439018);
    expectError(() => ev({ $dateTrunc: { date, unit: 'day', timezone: 'Mars/Olympus' } }), 40485);
  });
});

describe('$dateDiff', () => {
  test('counts unit boundaries crossed, as a long', () => {
    assertLong(ev({ $dateDiff: { startDate: d('2024-01-31'), endDate: d('2024-03-01'), unit: 'month' } }), 2);
    assertLong(ev({ $dateDiff: { startDate: d('2023-12-31T23:59:59Z'), endDate: d('2024-01-01'), unit: 'year' } }), 1);
    assertLong(
      ev({ $dateDiff: { startDate: d('2024-01-01T00:00:00Z'), endDate: d('2024-01-01T23:59:00Z'), unit: 'day' } }),
      0,
    );
    assertLong(ev({ $dateDiff: { startDate: d('2024-03-01'), endDate: d('2024-01-31'), unit: 'month' } }), -2);
    assertLong(
      ev({ $dateDiff: { startDate: d('2024-01-01'), endDate: d('2024-01-01T00:00:01.5Z'), unit: 'millisecond' } }),
      1500,
    );
  });

  test('days and weeks are counted in the timezone; weeks start on startOfWeek', () => {
    const startDate = d('2024-05-11T23:00:00Z');
    const endDate = d('2024-05-12T01:00:00Z');
    assertLong(ev({ $dateDiff: { startDate, endDate, unit: 'day' } }), 1);
    assertLong(ev({ $dateDiff: { startDate, endDate, unit: 'day', timezone: 'America/New_York' } }), 0);
    // Saturday 2024-05-11 → Sunday 05-12 crosses a Sunday week start, not a Monday one.
    assertLong(ev({ $dateDiff: { startDate, endDate, unit: 'week' } }), 1);
    assertLong(ev({ $dateDiff: { startDate, endDate, unit: 'week', startOfWeek: 'monday' } }), 0);
  });

  test('null or missing arguments answer null; errors 5166301, 5166302, 5166303, 5166307', () => {
    assert.equal(ev({ $dateDiff: { startDate: null, endDate: d('2024-01-01'), unit: 'day' } }), null);
    assert.equal(ev({ $dateDiff: { startDate: d('2024-01-01'), endDate: '$nope', unit: 'day' } }), null);
    expectError(() => ev({ $dateDiff: 1 }), 5166301);
    expectError(() => ev({ $dateDiff: { startDate: 1, endDate: 1, unit: 'day', x: 1 } }), 5166302);
    expectError(() => ev({ $dateDiff: { endDate: 1, unit: 'day' } }), 5166303);
    expectError(() => ev({ $dateDiff: { startDate: 'x', endDate: d('2024-01-01'), unit: 'day' } }), 5166307);
  });
});

describe('$dateFromParts and $dateToParts', () => {
  test('$dateFromParts builds a date in the timezone; out-of-range parts carry over', () => {
    assert.deepEqual(ev({ $dateFromParts: { year: 2024, month: 2, day: 30 } }), d('2024-03-01T00:00:00Z'));
    assert.deepEqual(ev({ $dateFromParts: { year: 2024, month: 14, hour: 25 } }), d('2025-02-02T01:00:00Z'));
    assert.deepEqual(
      ev({ $dateFromParts: { year: 2024, month: 7, day: 4, hour: 9, timezone: 'Europe/Paris' } }),
      d('2024-07-04T07:00:00Z'),
    );
  });

  test('ISO week dates: week 1 holds January 4th', () => {
    assert.deepEqual(
      ev({ $dateFromParts: { isoWeekYear: 2021, isoWeek: 1, isoDayOfWeek: 1 } }),
      d('2021-01-04T00:00:00Z'),
    );
    assert.deepEqual(ev({ $dateFromParts: { isoWeekYear: 2020 } }), d('2019-12-30T00:00:00Z'));
  });

  test('$dateFromParts errors: 40519, 40518, 40516, 40489, 40515, 40523 (year) and 31095 (isoWeekYear) out of 1-9999, 31034; null parts answer null', () => {
    assert.equal(ev({ $dateFromParts: { year: 2024, month: null } }), null);
    expectError(() => ev({ $dateFromParts: 1 }), 40519);
    expectError(() => ev({ $dateFromParts: { year: 2024, x: 1 } }), 40518);
    expectError(() => ev({ $dateFromParts: { month: 1 } }), 40516);
    expectError(() => ev({ $dateFromParts: { year: 2024, isoWeek: 1 } }), 40489);
    expectError(() => ev({ $dateFromParts: { year: 2024.5 } }), 40515);
    expectError(
      () => ev({ $dateFromParts: { year: 0 } }),
      40523,
      /'year' must evaluate to an integer in the range 1 to 9999/,
    );
    expectError(() => ev({ $dateFromParts: { year: 10000 } }), 40523);
    expectError(() => ev({ $dateFromParts: { isoWeekYear: 10000 } }), 31095, /'isoWeekYear'/);
    expectError(() => ev({ $dateFromParts: { year: 2024, month: 40000 } }), 31034);
  });

  test('$dateToParts: an iso8601 that is not a bool (40521) and a bad timezone are refused even when the date is null', () => {
    expectError(() => ev({ $dateToParts: { date: '$nope', timezone: '$tz', iso8601: 5 } }), 40521);
    expectError(() => ev({ $dateToParts: { date: d('2024-01-01T00:00:00Z'), iso8601: 'yes' } }), 40521);
    assert.equal(ev({ $dateToParts: { date: '$nope', iso8601: true } }), null);
    // So is the timezone: not a string 40517, unknown 40485.
    expectError(() => ev({ $dateToParts: { date: '$nope', timezone: 5 } }), 40517);
    expectError(() => ev({ $dateToParts: { date: '$nope', timezone: 'DoesNot/Exist' } }), 40485);
  });

  test('$dateToParts answers int parts in the timezone, ISO parts with iso8601', () => {
    const parts = ev({ $dateToParts: { date: d('2024-01-01T02:30:00.250Z'), timezone: 'America/New_York' } }) as Record<
      string,
      unknown
    >;
    assert.deepEqual(Object.keys(parts), ['year', 'month', 'day', 'hour', 'minute', 'second', 'millisecond']);
    assertInt(parts.year, 2023);
    assertInt(parts.day, 31);
    assertInt(parts.hour, 21);
    assertInt(parts.millisecond, 250);
    const iso = ev({ $dateToParts: { date: d('2021-01-03T00:00:00Z'), iso8601: true } }) as Record<string, unknown>;
    assertInt(iso.isoWeekYear, 2020);
    assertInt(iso.isoWeek, 53);
    assertInt(iso.isoDayOfWeek, 7);
  });

  test('$dateToParts errors: 40524, 40520, 40522, 40521; null date answers null', () => {
    assert.equal(ev({ $dateToParts: { date: null } }), null);
    expectError(() => ev({ $dateToParts: 1 }), 40524);
    expectError(() => ev({ $dateToParts: { date: d('2024-01-01'), x: 1 } }), 40520);
    expectError(() => ev({ $dateToParts: { timezone: 'UTC' } }), 40522);
    expectError(() => ev({ $dateToParts: { date: d('2024-01-01'), iso8601: 1 } }), 40521);
  });
});

describe('$dateFromString', () => {
  test('ISO strings, with an offset or read in the timezone', () => {
    assert.deepEqual(ev({ $dateFromString: { dateString: '2024-05-15T10:00:00+02:00' } }), d('2024-05-15T08:00:00Z'));
    assert.deepEqual(
      ev({ $dateFromString: { dateString: '2024-05-15 10:00', timezone: 'Asia/Tokyo' } }),
      d('2024-05-15T01:00:00Z'),
    );
  });

  test('$dateToString %z and %Z cut an offset with seconds toward zero, as mongod does (Caracas 1900: -4:27:40)', () => {
    const date = new Date('1900-07-10T11:41:22.418Z');
    const shown = ev({ $dateToString: { date, format: '%H:%M:%S %z (%Z minutes)', timezone: 'America/Caracas' } });
    assert.equal(shown, '07:13:42 -0427 (-267 minutes)');
  });

  test('format directives %d %m %Y %H %M %S %L %z', () => {
    assert.deepEqual(
      ev({ $dateFromString: { dateString: '15/05/2024 07:08:09.5 +0100', format: '%d/%m/%Y %H:%M:%S.%L %z' } }),
      d('2024-05-15T06:08:09.500Z'),
    );
  });

  test('onNull answers for null input, onError for an unparsable string; otherwise 241', () => {
    assert.equal(ev({ $dateFromString: { dateString: null, onNull: 'none' } }), 'none');
    assert.equal(ev({ $dateFromString: { dateString: '$nope' } }), null);
    assert.equal(ev({ $dateFromString: { dateString: 'soon', onError: 'bad' } }), 'bad');
    expectError(
      () => ev({ $dateFromString: { dateString: '2024-02-30' } }),
      241,
      /Error parsing date string '2024-02-30'/,
      'ConversionFailure',
    );
    expectError(() => ev({ $dateFromString: { dateString: 5 } }), 241);
  });

  test('$dateFromString: a null input answers onNull before a null timezone or format; a non-string input answers onError before them', () => {
    assert.equal(ev({ $dateFromString: { dateString: null, timezone: null, onNull: 'none' } }), 'none');
    assert.equal(ev({ $dateFromString: { dateString: '$nope', format: null, onNull: 'none' } }), 'none');
    assert.equal(ev({ $dateFromString: { dateString: 5, format: null, onError: 'bad' } }), 'bad');
    assert.equal(ev({ $dateFromString: { dateString: 5, timezone: '$nope', onError: 'bad' } }), 'bad');
    // A string input with a null timezone or format is null, even when it would not parse.
    assert.equal(ev({ $dateFromString: { dateString: 'not a date', format: null, onError: 'bad' } }), null);
    assert.equal(ev({ $dateFromString: { dateString: 'not a date', timezone: null, onError: 'bad' } }), null);
  });

  test('$dateFromString: the free-form strings mongod reads besides ISO 8601 (dates, times, zones)', () => {
    const cases: Array<[string, string]> = [
      ['2017-07-04T11:56.02.813', '2017-07-04T11:56:02.813Z'],
      ['July 4th, 2017', '2017-07-04T00:00:00Z'],
      ['July 4th, 2017 12:39:30 BST', '2017-07-04T11:39:30Z'],
      ['July 4th, 2017 11am', '2017-07-04T11:00:00Z'],
      ['July 4th, 2017 12pm', '2017-07-04T12:00:00Z'],
      ['7/4/17', '2017-07-04T00:00:00Z'],
      ['04-07-2017', '2017-07-04T00:00:00Z'],
      ['2017-Jul-04 noon', '2017-07-04T12:00:00Z'],
      ['2017-07-04 12:48:07 GMT+0545', '2017-07-04T07:03:07Z'],
      ['2017-07-14T12:02:44.771+03:30', '2017-07-14T08:32:44.771Z'],
      ['2017-07-14T12:02:44.771 CEST', '2017-07-14T10:02:44.771Z'],
      ['2017-07-14T12:02:44.771 PDT', '2017-07-14T19:02:44.771Z'],
      // Military letters: L is +11, P is -3.
      ['2017-07-14T12:02:44.771 L', '2017-07-14T01:02:44.771Z'],
      ['2017-07-14T12:02:44.771 P', '2017-07-14T15:02:44.771Z'],
    ];
    for (const [dateString, want] of cases)
      assert.deepEqual(ev({ $dateFromString: { dateString } }), d(want), dateString);
    for (const dateString of ['July 4th', '12:50:53'])
      expectError(() => ev({ $dateFromString: { dateString } }), 241, /an incomplete date\/time string has been found/);
    for (const dateString of ['2017, 12:50:53', '2017-07-12T22:23:55 Europe/Amsterdam', '2017-07-04 25:00'])
      expectError(() => ev({ $dateFromString: { dateString } }), 241, /Error parsing date string/);
    // A zone in the string and a timezone argument cannot both be given.
    expectError(
      () => ev({ $dateFromString: { dateString: '2017-07-12T22:23:55 GMT+02:00', timezone: 'Europe/Amsterdam' } }),
      241,
      /with GMT offset together with a timezone argument/,
    );
  });

  test("$dateFromString with a format: %z reads any zone; the date library's errors (missing, trailing, literal, ISO mixing)", () => {
    assert.deepEqual(
      ev({ $dateFromString: { dateString: '2017-07-14T12:02:44.771 GMT+02', format: '%Y-%m-%dT%H:%M:%S.%L%z' } }),
      d('2017-07-14T10:02:44.771Z'),
    );
    assert.deepEqual(ev({ $dateFromString: { dateString: '1.1.1', format: '%V.%u.%G' } }), d('0001-01-01T00:00:00Z'));
    const error = (dateString: string, format: string, message: RegExp) =>
      expectError(() => ev({ $dateFromString: { dateString, format } }), 241, message);
    error('2018-01', '%Y-%m-%d', /Data missing/);
    error('2018-01', '%Y', /Trailing data/);
    error('1992-26-04', 'Y-d-m', /Format literal not found/);
    error('ISO Week 52', 'ISO Week %V', /The parsed date was invalid/);
    error('ISO Week 1, 2018', 'ISO Week %V, %Y', /Mixing of ISO dates with natural dates is not allowed/);
    // A NUL byte ends the string, or the format, as in the C library.
    error('12/31\0/2018', '%m/%d/%Y', /Data missing/);
    error('12/31/2018', '%m/%d\0/%Y', /Trailing data/);
  });

  test('errors: 40540, 40541, 40542, 40684, 18536 for an invalid format directive', () => {
    expectError(() => ev({ $dateFromString: 'x' }), 40540);
    expectError(() => ev({ $dateFromString: { dateString: 'x', y: 1 } }), 40541);
    expectError(() => ev({ $dateFromString: { format: '%Y' } }), 40542);
    expectError(() => ev({ $dateFromString: { dateString: 'x', format: 1 } }), 40684);
    expectError(() => ev({ $dateFromString: { dateString: 'x', format: '%Q' } }), 18536);
  });
});

describe('dates end to end', () => {
  test('$group by $dateTrunc week and $dateDiff in days over a real collection', () => {
    const out = aggregate(
      [
        { _id: 1, at: d('2024-05-13T10:00:00Z') },
        { _id: 2, at: d('2024-05-19T10:00:00Z') },
        { _id: 3, at: d('2024-05-20T10:00:00Z') },
      ],
      [
        {
          $group: {
            _id: { $dateTrunc: { date: '$at', unit: 'week', startOfWeek: 'monday' } },
            n: { $sum: 1 },
            first: { $min: '$at' },
            last: { $max: '$at' },
          },
        },
        { $project: { n: 1, span: { $dateDiff: { startDate: '$first', endDate: '$last', unit: 'day' } } } },
        { $sort: { _id: 1 } },
      ],
    );
    assert.deepEqual(
      out.map((g) => [(g._id as Date).toISOString(), g.n]),
      [
        ['2024-05-13T00:00:00.000Z', 2],
        ['2024-05-20T00:00:00.000Z', 1],
      ],
    );
    assertLong(out[0].span, 6);
  });
});

describe('$dateToString and the date part operators with a nullish timezone', () => {
  test('a timezone that is null, missing or a stored undefined gives null, whatever onNull says', () => {
    const date = d('2018-02-06T11:56:02Z');
    for (const doc of [{ tz: null }, {}, { tz: BSON_UNDEFINED }]) {
      assert.equal(ev({ $dateToString: { date, format: '%Y', timezone: '$tz', onNull: 'x' } }, doc), null);
      assert.equal(ev({ $year: { date, timezone: '$tz' } }, doc), null);
    }
    expectError(() => ev({ $dateToString: { date, timezone: '$tz' } }, { tz: 5 }), 40517, /must evaluate to a string/);
  });
});
