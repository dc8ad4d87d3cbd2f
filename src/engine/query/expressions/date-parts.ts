/**
 * Calendars and time zones: wall-clock parts of an instant in a zone (UTC, a fixed offset or an
 * Olson name through the Intl that Node ships with full ICU), strftime-like formatting, ISO
 * parsing.
 */
import { type ObjectId, type Timestamp } from 'bson';
import { bsonClassOf } from '../../values/types';
import { fail, hasOwn, typeName } from './core';

/** ISO-8601 dates as $toDate / $dateFromString accept them; no time zone means UTC. */
export function parseDateString(s: string): Date {
  const m =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(
      s.trim(),
    );
  const bad = (): never => fail(241, `Error parsing date string '${s}'`);
  if (!m) return bad();
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map((x) => Number(x ?? 0));
  const ms = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  const lastDay = new Date(utcMillis(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > lastDay || h > 23 || mi > 59 || sec > 59) bad();
  const zone = m[8];
  const offset = zone && zone !== 'Z' ? fixedOffsetMs(zone) : 0;
  return new Date(utcMillis(y, mo - 1, d, h, mi, sec, ms) - offset);
}

// ---------------------------------------------------------------------------------------------
// Dates and time zones
// ---------------------------------------------------------------------------------------------

export const DAY_MS = 86_400_000;

/** Date.UTC without its 0..99 → 1900s year mapping. */
export function utcMillis(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number {
  if (y >= 100) return Date.UTC(y, mo, d, h, mi, s, ms);
  const date = new Date(0);
  date.setUTCFullYear(y, mo, d);
  date.setUTCHours(h, mi, s, ms);
  return date.getTime();
}

export interface TimeZone {
  readonly isUtc: boolean;
  /** Local time minus UTC at the instant `utcMs`, in milliseconds. */
  offsetMs(utcMs: number): number;
}

export const UTC: TimeZone = { isUtc: true, offsetMs: () => 0 };
const zoneCache = new Map<string, TimeZone>();

export function fixedOffsetMs(s: string): number {
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(s);
  if (!m) return NaN;
  const mins = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return (m[1] === '-' ? -1 : 1) * mins * 60_000;
}

export function parseTimeZone(name: string): TimeZone {
  const cached = zoneCache.get(name);
  if (cached) return cached;
  let zone: TimeZone;
  if (name === 'UTC' || name === 'GMT' || name === 'Z' || name === 'Etc/UTC') {
    zone = UTC;
  } else if (/^[+-]\d{2}(:?\d{2})?$/.test(name)) {
    const off = fixedOffsetMs(name);
    zone = { isUtc: off === 0, offsetMs: () => off };
  } else {
    zone = olsonZone(name);
  }
  zoneCache.set(name, zone);
  return zone;
}

/** An Olson zone through Intl (Node ships full ICU): the offset is read back from wall-clock parts. */
function olsonZone(name: string): TimeZone {
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    fail(40485, `unrecognized time zone identifier: "${name}"`);
  }
  return {
    isUtc: false,
    offsetMs(utcMs: number): number {
      const parts: Record<string, number> = {};
      for (const p of fmt.formatToParts(new Date(utcMs))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
      const wall = utcMillis(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
      return wall - Math.floor(utcMs / 1000) * 1000;
    },
  };
}

/** The UTC instant showing wall-clock `localMs` in `tz` (the later one across a DST gap). */
export function localToUtc(localMs: number, tz: TimeZone): number {
  if (tz.isUtc) return localMs;
  const guess = localMs - tz.offsetMs(localMs);
  return localMs - tz.offsetMs(guess);
}

export function timeZoneOf(v: unknown): TimeZone | null {
  if (v === undefined) return UTC;
  if (v === null) return null;
  if (typeof v !== 'string') fail(40517, `timezone must evaluate to a string, found ${typeName(v)}`);
  return parseTimeZone(v);
}

/** Instant of a date-like value: Date, Timestamp (seconds) or ObjectId (creation time). */
export function dateMillis(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  switch (bsonClassOf(v)) {
    case 'Timestamp':
      return (v as Timestamp).t * 1000;
    case 'ObjectId':
      return (v as ObjectId).getTimestamp().getTime();
  }
  fail(16006, `can't convert from BSON type ${typeName(v)} to Date`);
}

export interface DateParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  dayOfWeek: number;
  dayOfYear: number;
  offsetMinutes: number;
}

export function dateParts(ms: number, tz: TimeZone): DateParts {
  const off = tz.offsetMs(ms);
  const d = new Date(ms + off);
  const year = d.getUTCFullYear();
  return {
    year,
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
    dayOfWeek: d.getUTCDay() + 1,
    dayOfYear: Math.floor((d.getTime() - utcMillis(year, 0, 1)) / DAY_MS) + 1,
    // A zone's old local mean time has seconds (Caracas 1900: -4:27:40); mongod's date library
    // divides in integers, so the minutes shown are cut toward zero (-267, "-0427"), not rounded.
    offsetMinutes: Math.trunc(off / 60_000),
  };
}

/** ISO 8601 week-numbering: weeks start Monday; week 1 holds the year's first Thursday. */
export function isoWeek(p: DateParts): { isoYear: number; isoWeek: number; isoDayOfWeek: number } {
  const isoDayOfWeek = ((p.dayOfWeek + 5) % 7) + 1;
  const thursday = utcMillis(p.year, p.month - 1, p.day + 4 - isoDayOfWeek);
  const isoYear = new Date(thursday).getUTCFullYear();
  const week = Math.floor((thursday - utcMillis(isoYear, 0, 1)) / DAY_MS / 7) + 1;
  return { isoYear, isoWeek: week, isoDayOfWeek };
}

/** strftime %U: weeks start Sunday; days before the first Sunday are week 0. */
export function sundayWeek(p: DateParts): number {
  return Math.floor((p.dayOfYear + 7 - p.dayOfWeek) / 7);
}

export const DATE_PART_GETTERS: Record<string, (p: DateParts) => number> = {
  $year: (p) => p.year,
  $month: (p) => p.month,
  $dayOfMonth: (p) => p.day,
  $hour: (p) => p.hour,
  $minute: (p) => p.minute,
  $second: (p) => p.second,
  $millisecond: (p) => p.millisecond,
  $dayOfWeek: (p) => p.dayOfWeek,
  $dayOfYear: (p) => p.dayOfYear,
  $week: sundayWeek,
  $isoWeek: (p) => isoWeek(p).isoWeek,
  $isoWeekYear: (p) => isoWeek(p).isoYear,
  $isoDayOfWeek: (p) => isoWeek(p).isoDayOfWeek,
};

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export function pad(n: number, width: number): string {
  const s = String(Math.abs(n)).padStart(width, '0');
  return n < 0 ? `-${s}` : s;
}

function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const m = Math.abs(minutes);
  return `${sign}${pad(Math.floor(m / 60), 2)}${pad(m % 60, 2)}`;
}

const FORMAT_DIRECTIVES: Record<string, (p: DateParts) => string> = {
  d: (p) => pad(p.day, 2),
  G: (p) => pad(isoWeek(p).isoYear, 4),
  H: (p) => pad(p.hour, 2),
  j: (p) => pad(p.dayOfYear, 3),
  L: (p) => pad(p.millisecond, 3),
  m: (p) => pad(p.month, 2),
  M: (p) => pad(p.minute, 2),
  S: (p) => pad(p.second, 2),
  w: (p) => String(p.dayOfWeek),
  u: (p) => String(isoWeek(p).isoDayOfWeek),
  U: (p) => pad(sundayWeek(p), 2),
  V: (p) => pad(isoWeek(p).isoWeek, 2),
  Y: (p) => pad(p.year, 4),
  z: (p) => formatOffset(p.offsetMinutes),
  Z: (p) => String(p.offsetMinutes),
  b: (p) => MONTH_NAMES[p.month - 1].slice(0, 3),
  B: (p) => MONTH_NAMES[p.month - 1],
  '%': () => '%',
};

export function validateFormat(format: string): void {
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') continue;
    if (i + 1 >= format.length) fail(18535, "Unmatched '%' at end of format string");
    if (!hasOwn.call(FORMAT_DIRECTIVES, format[i + 1]))
      fail(18536, `Invalid format character '%${format[i + 1]}' in format string`);
    i++;
  }
}

export function formatDate(format: string, ms: number, tz: TimeZone): string {
  const p = dateParts(ms, tz);
  if ((p.year < 0 || p.year > 9999) && /%[YG]/.test(format)) {
    fail(
      18537,
      `Could not convert date to string: date component was outside the supported range of 0-9999: ${p.year}`,
    );
  }
  let out = '';
  for (let i = 0; i < format.length; i++) {
    if (format[i] === '%' && i + 1 < format.length) {
      out += FORMAT_DIRECTIVES[format[++i]](p);
    } else {
      out += format[i];
    }
  }
  return out;
}

export const ISO_FORMAT = '%Y-%m-%dT%H:%M:%S.%LZ';
export const LOCAL_ISO_FORMAT = '%Y-%m-%dT%H:%M:%S.%L';

export function isoString(d: Date): string {
  const t = d.getTime();
  return Number.isNaN(t) ? 'Invalid Date' : formatDate(ISO_FORMAT, t, UTC);
}
