/** Date operators: $year … $isoDayOfWeek, $dateToString, $dateAdd, $dateSubtract. */
import { Int32 } from 'bson';
import { numericKind, toDouble } from '../../values/numbers';
import { bsonClassOf, isPlainObject, type Document } from '../../values/types';
import {
  compile,
  fail,
  hasOwn,
  isNullish,
  namedArgs,
  requireObjectArg,
  show,
  typeName,
  type Fn,
  type OperatorParser,
} from './core';
import {
  DATE_PART_GETTERS,
  dateMillis,
  dateParts,
  formatDate,
  ISO_FORMAT,
  LOCAL_ISO_FORMAT,
  localToUtc,
  timeZoneOf,
  UTC,
  utcMillis,
  validateFormat,
  type DateParts,
  type TimeZone,
} from './date-parts';

/** $year & co accept `<date>`, `[<date>]` or `{date, timezone}`. */
function datePartOperator(getter: (p: DateParts) => number): OperatorParser {
  return (arg, name) => {
    let dateFn: Fn;
    let zoneFn: Fn | undefined;
    if (isPlainObject(arg) && !Object.keys(arg).some((k) => k.startsWith('$'))) {
      for (const k of Object.keys(arg))
        if (k !== 'date' && k !== 'timezone') fail(40535, `unrecognized option to ${name}: "${k}"`);
      if (!('date' in arg)) fail(40539, `missing 'date' argument to ${name}, provided: ${show(arg)}`);
      dateFn = compile(arg.date);
      if ('timezone' in arg) zoneFn = compile(arg.timezone);
    } else if (Array.isArray(arg)) {
      if (arg.length !== 1)
        fail(40536, `${name} accepts exactly one argument if given an array, but was given ${arg.length}`);
      dateFn = compile(arg[0]);
    } else {
      dateFn = compile(arg);
    }
    return (root, vars) => {
      const date = dateFn(root, vars);
      if (isNullish(date)) return null;
      const tz = zoneFn ? nullishZone(zoneFn(root, vars)) : UTC;
      if (!tz) return null;
      return new Int32(getter(dateParts(dateMillis(date), tz)));
    };
  };
}

const parseDateToString: OperatorParser = (arg, name) => {
  const f = namedArgs(
    requireObjectArg(arg, 18629, `${name} only supports an object as its argument`),
    ['date', 'format', 'timezone', 'onNull'],
    ['date'],
    {
      unknown: (k) => [18534, `Unrecognized parameter to ${name}: ${k}`],
      missing: () => [18628, `Missing 'date' parameter to ${name}`],
    },
  );
  // A constant format is checked once, at parse time, as mongod does.
  const rawFormat = (arg as Document).format;
  if (typeof rawFormat === 'string') validateFormat(rawFormat);
  return (root, vars) => {
    let format: string | undefined;
    if (f.format) {
      const fv = f.format(root, vars);
      if (isNullish(fv)) return null;
      if (typeof fv !== 'string')
        fail(18533, `${name} requires that 'format' be a string, found: ${typeName(fv)} with value ${show(fv)}`);
      if (fv !== rawFormat) validateFormat(fv);
      format = fv;
    }
    const tz = f.timezone ? nullishZone(f.timezone(root, vars)) : UTC;
    if (!tz) return null;
    const date = f.date!(root, vars);
    if (isNullish(date)) return f.onNull ? f.onNull(root, vars) : null;
    return formatDate(format ?? (tz.isUtc ? ISO_FORMAT : LOCAL_ISO_FORMAT), dateMillis(date), tz);
  };
};

const UNIT_MS: Record<string, number> = { millisecond: 1, second: 1000, minute: 60_000, hour: 3_600_000 };
const CALENDAR_UNITS = new Set(['day', 'week', 'month', 'quarter', 'year']);

/** Adds `amount` calendar units in `tz`; month arithmetic clamps to the last day of the month. */
export function addToDate(ms: number, unit: string, amount: number, tz: TimeZone = UTC): number {
  if (hasOwn.call(UNIT_MS, unit)) return ms + amount * UNIT_MS[unit];
  const local = new Date(ms + tz.offsetMs(ms));
  if (unit === 'day' || unit === 'week') {
    local.setUTCDate(local.getUTCDate() + amount * (unit === 'week' ? 7 : 1));
  } else {
    const months = amount * (unit === 'year' ? 12 : unit === 'quarter' ? 3 : 1);
    const total = local.getUTCFullYear() * 12 + local.getUTCMonth() + months;
    const year = Math.floor(total / 12);
    const month = total - year * 12;
    const lastDay = new Date(utcMillis(year, month + 1, 0)).getUTCDate();
    local.setUTCFullYear(year, month, Math.min(local.getUTCDate(), lastDay));
  }
  return localToUtc(local.getTime(), tz);
}

function dateArithmetic(sign: 1 | -1): OperatorParser {
  return (arg, name) => {
    const f = namedArgs(
      requireObjectArg(arg, 5166400, `${name} expects an object as its argument`),
      ['startDate', 'unit', 'amount', 'timezone'],
      ['startDate', 'unit', 'amount'],
      {
        unknown: (k) => [
          5166401,
          `Unrecognized argument to ${name}: ${k}. Expected arguments are startDate, unit, amount, and optionally timezone.`,
        ],
        missing: () => [5166402, `${name} requires startDate, unit, and amount to be present`],
      },
    );
    return (root, vars) => {
      const start = f.startDate!(root, vars);
      const unit = f.unit!(root, vars);
      const amount = f.amount!(root, vars);
      const zone = f.timezone ? f.timezone(root, vars) : undefined;
      if (isNullish(start) || isNullish(unit) || isNullish(amount) || (f.timezone && isNullish(zone))) return null;
      if (!(start instanceof Date) && !['Timestamp', 'ObjectId'].includes(bsonClassOf(start) ?? '')) {
        fail(5166403, `${name} requires startDate to be convertible to a date`);
      }
      if (typeof unit !== 'string') fail(5166404, `${name} expects string defining the time unit`);
      if (!hasOwn.call(UNIT_MS, unit) && !CALENDAR_UNITS.has(unit)) fail(9, `unknown time unit value: ${unit}`);
      const n = numericKind(amount) ? toDouble(amount) : NaN;
      if (!Number.isInteger(n)) fail(5166405, `${name} expects integer amount of time units`);
      const tz = timeZoneOf(zone) ?? UTC;
      return new Date(addToDate(dateMillis(start), unit, sign * n, tz));
    };
  };
}

export const DATE_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  ...Object.fromEntries(Object.entries(DATE_PART_GETTERS).map(([name, get]) => [name, datePartOperator(get)])),
  $dateToString: parseDateToString,
  $dateAdd: dateArithmetic(1),
  $dateSubtract: dateArithmetic(-1),
};

/** A timezone expression's zone; null when it evaluates to null, missing or undefined (the result is then null). */
function nullishZone(v: unknown): TimeZone | null {
  return isNullish(v) ? null : timeZoneOf(v);
}
