/**
 * $dateDiff and $dateTrunc: calendar arithmetic in a time zone. Both work on wall-clock time in
 * the zone (so a day is a local day, a month boundary is local midnight of the 1st), and answer
 * instants.
 */
import { Long } from 'bson';
import { numericKind, toDouble } from '../../values/numbers';
import { bsonClassOf, isPlainObject } from '../../values/types';
import { compile, fail, isNullish, show, typeName, type Fn, type OperatorParser } from './core';
import { DAY_MS, dateMillis, localToUtc, timeZoneOf, utcMillis, type TimeZone } from './date-parts';

const FIXED_UNIT_MS: Record<string, number> = { millisecond: 1, second: 1000, minute: 60_000, hour: 3_600_000 };
const UNITS = new Set(['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second', 'millisecond']);
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DAY_ABBREVIATIONS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface Spec {
  fields: Record<string, Fn | undefined>;
}

function parseSpec(
  arg: unknown,
  name: string,
  allowed: readonly string[],
  codes: { object: number; unknown: number; missing: Record<string, number> },
  expected: string,
): Spec {
  if (!isPlainObject(arg)) fail(codes.object, `${name} only supports an object as its argument`);
  const fields: Record<string, Fn | undefined> = {};
  for (const k of Object.keys(arg)) {
    if (!allowed.includes(k)) fail(codes.unknown, `Unrecognized argument to ${name}: ${k}. ${expected}`);
    fields[k] = compile(arg[k]);
  }
  for (const [k, code] of Object.entries(codes.missing))
    if (!fields[k]) fail(code, `Missing '${k}' parameter to ${name}`);
  return { fields };
}

function isDateLike(v: unknown): boolean {
  return v instanceof Date || bsonClassOf(v) === 'Timestamp' || bsonClassOf(v) === 'ObjectId';
}

function unitOf(v: unknown, name: string): string {
  if (typeof v !== 'string') fail(5439013, `${name} requires 'unit' to be a string, but got ${typeName(v)}`);
  if (!UNITS.has(v)) fail(9, `unknown time unit value: ${v}`);
  return v;
}

/** Day of week 0 (Sunday) … 6 of a startOfWeek name; mongod accepts full names and 3-letter ones. */
function startOfWeekOf(v: unknown, name: string): number {
  if (typeof v !== 'string') fail(5439015, `${name} requires 'startOfWeek' to be a string, but got ${typeName(v)}`);
  const lower = v.toLowerCase();
  const i = DAYS.indexOf(lower) >= 0 ? DAYS.indexOf(lower) : DAY_ABBREVIATIONS.indexOf(lower);
  if (i < 0) fail(5439016, `${name} parameter 'startOfWeek' value cannot be recognized as a day of a week: ${v}`);
  return i;
}

/** Wall-clock milliseconds (as if UTC) of an instant in a zone. */
function localMs(ms: number, tz: TimeZone): number {
  return ms + tz.offsetMs(ms);
}

/** Local days since 1970-01-01 of a wall-clock time. */
function dayNumber(local: number): number {
  return Math.floor(local / DAY_MS);
}

/** Months since year 0 of a wall-clock time. */
function monthNumber(local: number): number {
  const d = new Date(local);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

/** Weeks since an epoch week that starts on `firstDay` (1970-01-01 was a Thursday, day 4). */
function weekNumber(local: number, firstDay: number): number {
  return Math.floor((dayNumber(local) + 4 - firstDay) / 7);
}

function unitNumber(local: number, unit: string, firstDay: number): number {
  switch (unit) {
    case 'year':
      return Math.floor(monthNumber(local) / 12);
    case 'quarter':
      return Math.floor(monthNumber(local) / 3);
    case 'month':
      return monthNumber(local);
    case 'week':
      return weekNumber(local, firstDay);
    case 'day':
      return dayNumber(local);
  }
  return Math.floor(local / FIXED_UNIT_MS[unit]);
}

const parseDateDiff: OperatorParser = (arg, name) => {
  const { fields: f } = parseSpec(
    arg,
    name,
    ['startDate', 'endDate', 'unit', 'timezone', 'startOfWeek'],
    { object: 5166301, unknown: 5166302, missing: { startDate: 5166303, endDate: 5166304, unit: 5166305 } },
    'Expected arguments are startDate, endDate, unit, and optionally timezone and startOfWeek.',
  );
  return (root, vars) => {
    const start = f.startDate!(root, vars);
    const end = f.endDate!(root, vars);
    const unit = f.unit!(root, vars);
    const zone = f.timezone ? f.timezone(root, vars) : undefined;
    const week = f.startOfWeek ? f.startOfWeek(root, vars) : undefined;
    if (isNullish(start) || isNullish(end) || isNullish(unit)) return null;
    if (f.timezone && isNullish(zone)) return null;
    if (!isDateLike(start)) fail(5166307, `${name} requires 'startDate' to be a date, but got ${typeName(start)}`);
    if (!isDateLike(end)) fail(5166307, `${name} requires 'endDate' to be a date, but got ${typeName(end)}`);
    const u = unitOf(unit, name);
    let firstDay = 0;
    if (u === 'week' && f.startOfWeek) {
      if (isNullish(week)) return null;
      firstDay = startOfWeekOf(week, name);
    }
    const tz = timeZoneOf(zone) ?? undefined;
    const a = dateMillis(start);
    const b = dateMillis(end);
    if (u === 'millisecond') return Long.fromNumber(b - a);
    return Long.fromNumber(unitNumber(localMs(b, tz!), u, firstDay) - unitNumber(localMs(a, tz!), u, firstDay));
  };
};

/** Bins count from 2000-01-01T00:00 local, mongod's reference point. */
const REFERENCE_LOCAL = utcMillis(2000, 0, 1);

function truncate(ms: number, unit: string, binSize: number, tz: TimeZone, firstDay: number): number {
  const local = localMs(ms, tz);
  let startLocal: number;
  if (unit === 'year' || unit === 'quarter' || unit === 'month') {
    const per = (unit === 'year' ? 12 : unit === 'quarter' ? 3 : 1) * binSize;
    const months = monthNumber(local) - 2000 * 12;
    const bin = Math.floor(months / per) * per + 2000 * 12;
    startLocal = utcMillis(Math.floor(bin / 12), bin % 12, 1);
  } else if (unit === 'week' || unit === 'day') {
    const perDays = (unit === 'week' ? 7 : 1) * binSize;
    // A week's bins start on startOfWeek: the reference moves back to the last such day.
    const refDay = dayNumber(REFERENCE_LOCAL) - (unit === 'week' ? (6 - firstDay + 7) % 7 : 0);
    const days = dayNumber(local) - refDay;
    startLocal = (Math.floor(days / perDays) * perDays + refDay) * DAY_MS;
  } else {
    const per = FIXED_UNIT_MS[unit] * binSize;
    startLocal = Math.floor((local - REFERENCE_LOCAL) / per) * per + REFERENCE_LOCAL;
    // Within a day the bin start keeps the instant's offset: no DST gap or overlap to resolve.
    return ms - (local - startLocal);
  }
  return localToUtc(startLocal, tz);
}

const parseDateTrunc: OperatorParser = (arg, name) => {
  const { fields: f } = parseSpec(
    arg,
    name,
    ['date', 'unit', 'binSize', 'timezone', 'startOfWeek'],
    { object: 5439007, unknown: 5439008, missing: { date: 5439009, unit: 5439010 } },
    'Expected arguments are date, unit, and optionally, binSize, timezone, startOfWeek',
  );
  return (root, vars) => {
    const date = f.date!(root, vars);
    const unit = f.unit!(root, vars);
    const bin = f.binSize ? f.binSize(root, vars) : undefined;
    const zone = f.timezone ? f.timezone(root, vars) : undefined;
    const week = f.startOfWeek ? f.startOfWeek(root, vars) : undefined;
    if (isNullish(date) || isNullish(unit)) return null;
    if ((f.binSize && isNullish(bin)) || (f.timezone && isNullish(zone))) return null;
    if (!isDateLike(date)) fail(5439012, `${name} requires 'date' to be a date, but got ${typeName(date)}`);
    const u = unitOf(unit, name);
    let binSize = 1;
    if (f.binSize) {
      const d = numericKind(bin) ? toDouble(bin) : NaN;
      if (!Number.isInteger(d))
        fail(
          5439017,
          `${name} requires 'binSize' to be a 64-bit integer, but got value '${show(bin)}' of type ${typeName(bin)}`,
        );
      if (d <= 0) fail(5439018, `${name} requires 'binSize' to be greater than 0, but got value ${d}`);
      binSize = d;
    }
    let firstDay = 0;
    if (u === 'week' && f.startOfWeek) {
      if (isNullish(week)) return null;
      firstDay = startOfWeekOf(week, name);
    }
    const tz = timeZoneOf(zone)!;
    return new Date(truncate(dateMillis(date), u, binSize, tz, firstDay));
  };
};

export const DATE_UNIT_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $dateDiff: parseDateDiff,
  $dateTrunc: parseDateTrunc,
};
