/** Dates from and to their parts: $dateFromParts, $dateToParts, $dateFromString. */
import { Int32 } from 'bson';
import { numericKind, toDouble } from '../../values/numbers';
import { isPlainObject, type Document } from '../../values/types';
import { compile, fail, isNullish, show, typeName, type Fn, type OperatorParser } from './core';
import { DateStringError, parseFreeFormDate, parseZonePrefix } from './date-free-form';
import {
  DAY_MS,
  dateMillis,
  dateParts,
  fixedOffsetMs,
  isoWeek,
  localToUtc,
  timeZoneOf,
  utcMillis,
  type TimeZone,
} from './date-parts';

const NATURAL = ['year', 'month', 'day', 'hour', 'minute', 'second', 'millisecond'] as const;
const ISO = ['isoWeekYear', 'isoWeek', 'isoDayOfWeek', 'hour', 'minute', 'second', 'millisecond'] as const;
const DEFAULTS: Record<string, number> = { month: 1, day: 1, isoWeek: 1, isoDayOfWeek: 1 };

/** Wall-clock ms of ISO week-date parts (week 1 holds January 4th). */
function isoLocalMs(isoYear: number, week: number, dow: number): number {
  const jan4 = utcMillis(isoYear, 0, 4);
  const jan4Dow = ((new Date(jan4).getUTCDay() + 6) % 7) + 1;
  const week1Monday = jan4 - (jan4Dow - 1) * DAY_MS;
  return week1Monday + ((week - 1) * 7 + (dow - 1)) * DAY_MS;
}

const parseDateFromParts: OperatorParser = (arg, name) => {
  if (!isPlainObject(arg)) fail(40519, `${name} only supports an object as its argument`);
  const f: Record<string, Fn> = {};
  for (const k of Object.keys(arg)) {
    if (!(NATURAL as readonly string[]).includes(k) && !(ISO as readonly string[]).includes(k) && k !== 'timezone')
      fail(40518, `Unrecognized argument to ${name}: ${k}`);
    f[k] = compile(arg[k]);
  }
  const natural = ['year', 'month', 'day'].some((k) => k in f);
  const iso = ['isoWeekYear', 'isoWeek', 'isoDayOfWeek'].some((k) => k in f);
  if (!('year' in f) && !('isoWeekYear' in f))
    fail(40516, `${name} requires either 'year' or 'isoWeekYear' to be present`);
  if (natural && iso) fail(40489, `${name} does not allow mixing natural dates with ISO dates`);
  const fields = iso ? ISO : NATURAL;
  return (root, vars) => {
    const zone = f.timezone ? f.timezone(root, vars) : undefined;
    const parts: Record<string, number> = {};
    let nullish = false;
    for (const k of fields) {
      if (!f[k]) {
        parts[k] = DEFAULTS[k] ?? 0;
        continue;
      }
      const v = f[k](root, vars);
      if (isNullish(v)) {
        nullish = true;
        continue;
      }
      const d = numericKind(v) ? toDouble(v) : NaN;
      if (!Number.isInteger(d))
        fail(40515, `'${k}' must evaluate to an integer, found ${typeName(v)} with value ${show(v)}`);
      const yearField = k === 'year' || k === 'isoWeekYear';
      if (yearField && (d < 1 || d > 9999))
        // mongod gives each year field its own code: 40523 for year, 31095 for isoWeekYear.
        fail(k === 'year' ? 40523 : 31095, `'${k}' must evaluate to an integer in the range 1 to 9999, found ${d}`);
      if (!yearField && (d < -32768 || d > 32767))
        fail(31034, `'${k}' must evaluate to a value in the range [-32768, 32767]; value ${d} is not in range`);
      parts[k] = d;
    }
    if (nullish || (f.timezone && isNullish(zone))) return null;
    const tz = timeZoneOf(zone)!;
    // Out-of-range parts carry over (month 13 is January of the next year), as mongod's do.
    const local = iso
      ? isoLocalMs(parts.isoWeekYear, parts.isoWeek, parts.isoDayOfWeek) +
        parts.hour * 3_600_000 +
        parts.minute * 60_000 +
        parts.second * 1000 +
        parts.millisecond
      : utcMillis(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second, parts.millisecond);
    return new Date(localToUtc(local, tz));
  };
};

const parseDateToParts: OperatorParser = (arg, name) => {
  if (!isPlainObject(arg)) fail(40524, `${name} only supports an object as its argument`);
  for (const k of Object.keys(arg))
    if (!['date', 'timezone', 'iso8601'].includes(k)) fail(40520, `Unrecognized argument to ${name}: ${k}`);
  if (!('date' in arg)) fail(40522, `Missing 'date' parameter to ${name}`);
  const date = compile(arg.date);
  const zoneFn = 'timezone' in arg ? compile(arg.timezone) : undefined;
  const isoFn = 'iso8601' in arg ? compile(arg.iso8601) : undefined;
  return (root, vars) => {
    const d = date(root, vars);
    const zone = zoneFn ? zoneFn(root, vars) : undefined;
    const iso = isoFn ? isoFn(root, vars) : false;
    // The flag and the timezone are checked before a null date can answer null, as mongod does.
    if (!isNullish(iso) && typeof iso !== 'boolean')
      fail(40521, `iso8601 must evaluate to a bool, found ${typeName(iso)}`);
    const tz = zoneFn && isNullish(zone) ? undefined : timeZoneOf(zone);
    if (isNullish(d) || !tz || (isoFn && isNullish(iso))) return null;
    const p = dateParts(dateMillis(d), tz);
    const out: Document = {};
    if (iso) {
      const w = isoWeek(p);
      out.isoWeekYear = new Int32(w.isoYear);
      out.isoWeek = new Int32(w.isoWeek);
      out.isoDayOfWeek = new Int32(w.isoDayOfWeek);
    } else {
      out.year = new Int32(p.year);
      out.month = new Int32(p.month);
      out.day = new Int32(p.day);
    }
    out.hour = new Int32(p.hour);
    out.minute = new Int32(p.minute);
    out.second = new Int32(p.second);
    out.millisecond = new Int32(p.millisecond);
    return out;
  };
};

interface ParsedString {
  local: number;
  /** The offset written in the string, when it has one. */
  offsetMs?: number;
}

class ParseError extends Error {}

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/;

function checkedLocal(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number {
  const lastDay = new Date(utcMillis(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > lastDay || h > 23 || mi > 59 || s > 59) throw new ParseError('invalid date');
  return utcMillis(y, mo - 1, d, h, mi, s, ms);
}

function parseIso(s: string): ParsedString {
  const m = ISO_DATE.exec(s.trim());
  if (!m) throw new ParseError('no ISO 8601 date');
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map((x) => Number(x ?? 0));
  const ms = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  const zone = m[8];
  const local = checkedLocal(y, mo, d, h, mi, sec, ms);
  if (!zone) return { local };
  return { local, offsetMs: zone === 'Z' || zone === 'UTC' || zone === 'GMT' ? 0 : fixedOffsetMs(zone) };
}

/** ISO 8601 first; then the other forms mongod's date library reads (date-free-form.ts). */
function parseWithoutFormat(s: string): ParsedString {
  try {
    return parseIso(s);
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
  }
  try {
    return parseFreeFormDate(s);
  } catch (err) {
    if (err instanceof DateStringError) throw new ParseError(err.message);
    throw err;
  }
}

/** How many digits each directive reads, and whether it may be signed. */
const FORMAT_FIELDS: Record<string, { min: number; max: number }> = {
  Y: { min: 4, max: 4 },
  // An ISO week year may be written short: "1.1.1" with %V.%u.%G is 0001-01-01.
  G: { min: 1, max: 4 },
  m: { min: 1, max: 2 },
  d: { min: 1, max: 2 },
  H: { min: 1, max: 2 },
  M: { min: 1, max: 2 },
  S: { min: 1, max: 2 },
  L: { min: 1, max: 3 },
  j: { min: 1, max: 3 },
  V: { min: 1, max: 2 },
  u: { min: 1, max: 1 },
};

const PARSE_DIRECTIVES = new Set([...Object.keys(FORMAT_FIELDS), 'z', 'Z', '%']);

function validateParseFormat(format: string): void {
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') continue;
    if (i + 1 >= format.length) fail(18535, "Unmatched '%' at end of format string");
    if (!PARSE_DIRECTIVES.has(format[i + 1]))
      fail(18536, `Invalid format character '%${format[i + 1]}' in format string`);
    i++;
  }
}

function parseWithFormat(input: string, fullFormat: string): ParsedString {
  // The date library reads C strings: a NUL byte ends the string and the format alike.
  const s = input.split('\0')[0];
  const format = fullFormat.split('\0')[0];
  const v: Record<string, number> = {};
  let offsetMs: number | undefined;
  let pos = 0;
  for (let i = 0; i < format.length; i++) {
    const c = format[i];
    if (c !== '%' || format[i + 1] === '%') {
      if (s[pos] !== c)
        throw new ParseError(
          pos >= s.length ? 'Data missing' : `Format literal not found: expected '${c}' at position ${pos}`,
        );
      pos++;
      if (c === '%') i++;
      continue;
    }
    const dir = format[++i];
    if (dir === 'z') {
      // Any zone the date library reads: an offset, GMT+02:00, an abbreviation, a military letter.
      let zone: { offsetMs: number; length: number } | undefined;
      try {
        zone = parseZonePrefix(s.slice(pos));
      } catch (err) {
        if (err instanceof DateStringError) throw new ParseError(err.message);
        throw err;
      }
      if (!zone) throw new ParseError(`no time zone offset at position ${pos}`);
      offsetMs = zone.offsetMs;
      pos += zone.length;
      continue;
    }
    if (dir === 'Z') {
      const m = /^[+-]\d{1,4}/.exec(s.slice(pos));
      if (!m) throw new ParseError(`no time zone offset at position ${pos}`);
      offsetMs = Number(m[0]) * 60_000;
      pos += m[0].length;
      continue;
    }
    const { min, max } = FORMAT_FIELDS[dir];
    const m = new RegExp(`^\\d{${min},${max}}`).exec(s.slice(pos));
    if (!m) throw new ParseError(pos >= s.length ? 'Data missing' : `no %${dir} at position ${pos}`);
    v[dir] = Number(dir === 'L' ? m[0].padEnd(3, '0') : m[0]);
    pos += m[0].length;
  }
  if (pos !== s.length) throw new ParseError(`Trailing data after position ${pos}`);
  const isoParts = v.G !== undefined || v.V !== undefined || v.u !== undefined;
  if (isoParts && (v.Y !== undefined || v.m !== undefined || v.d !== undefined || v.j !== undefined))
    throw new ParseError('Mixing of ISO dates with natural dates is not allowed');
  if (isoParts && v.G === undefined) throw new ParseError('The parsed date was invalid: an ISO week or day needs %G');
  const time = (v.H ?? 0) * 3_600_000 + (v.M ?? 0) * 60_000 + (v.S ?? 0) * 1000 + (v.L ?? 0);
  if ((v.H ?? 0) > 23 || (v.M ?? 0) > 59 || (v.S ?? 0) > 59) throw new ParseError('time out of range');
  let local: number;
  if (v.G !== undefined) local = isoLocalMs(v.G, v.V ?? 1, v.u ?? 1) + time;
  else if (v.j !== undefined) local = utcMillis(v.Y ?? 1970, 0, v.j) + time;
  else local = checkedLocal(v.Y ?? 1970, v.m ?? 1, v.d ?? 1, 0, 0, 0, 0) + time;
  return offsetMs === undefined ? { local } : { local, offsetMs };
}

const parseDateFromString: OperatorParser = (arg, name) => {
  if (!isPlainObject(arg)) fail(40540, `${name} only supports an object as an argument, found: ${typeName(arg)}`);
  const f: Record<string, Fn> = {};
  for (const k of Object.keys(arg)) {
    if (!['dateString', 'timezone', 'format', 'onNull', 'onError'].includes(k))
      fail(40541, `Unrecognized argument to ${name}: ${k}`);
    f[k] = compile(arg[k]);
  }
  if (!f.dateString) fail(40542, `Missing 'dateString' parameter to ${name}`);
  if (typeof arg.format === 'string') validateParseFormat(arg.format);
  return (root, vars) => {
    const s = f.dateString(root, vars);
    const zone = f.timezone ? f.timezone(root, vars) : undefined;
    const format = f.format ? f.format(root, vars) : undefined;
    // mongod's order: a format that is there must be valid; then a null input answers onNull ahead of
    // every other null argument; then a non-string input is an error onError answers; only then
    // does a null timezone or format make the result null.
    const nullFormat = f.format !== undefined && isNullish(format);
    if (!nullFormat && format !== undefined) {
      if (typeof format !== 'string')
        fail(
          40684,
          `${name} requires that 'format' be a string, found: ${typeName(format)} with value ${show(format)}`,
        );
      if (format !== arg.format) validateParseFormat(format);
    }
    const nullZone = f.timezone !== undefined && isNullish(zone);
    let tz: TimeZone | undefined;
    if (!nullZone) {
      try {
        tz = timeZoneOf(zone)!;
      } catch (err) {
        if (f.onError) return f.onError(root, vars);
        throw err;
      }
    }
    if (isNullish(s)) return f.onNull ? f.onNull(root, vars) : null;
    try {
      if (typeof s !== 'string')
        fail(241, `${name} requires that 'dateString' be a string, found: ${typeName(s)} with value ${show(s)}`);
      if (tz === undefined || nullFormat) return null;
      let parsed: ParsedString;
      try {
        parsed = typeof format === 'string' ? parseWithFormat(s, format) : parseWithoutFormat(s);
      } catch (err) {
        if (!(err instanceof ParseError)) throw err;
        fail(241, `Error parsing date string '${s}'; ${err.message}`);
      }
      if (parsed.offsetMs !== undefined) {
        if (f.timezone && !tz.isUtc)
          fail(
            241,
            `you cannot pass in a date/time string with GMT offset together with a timezone argument ('${s}' has one): drop one of them`,
          );
        return new Date(parsed.local - parsed.offsetMs);
      }
      return new Date(localToUtc(parsed.local, tz));
    } catch (err) {
      if (f.onError) return f.onError(root, vars);
      throw err;
    }
  };
};

export const DATE_PARTS_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $dateFromParts: parseDateFromParts,
  $dateToParts: parseDateToParts,
  $dateFromString: parseDateFromString,
};
