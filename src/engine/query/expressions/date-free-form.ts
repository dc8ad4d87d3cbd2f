/**
 * $dateFromString without a format: the free-form date strings mongod's date library reads beyond
 * ISO 8601. A date (2017-07-04, 2017-Jul-04, 7/4/17, 04-07-2017, July 4th, 2017), then an optional
 * time (11:56:02, 11:56.02.813, 11am, noon), then an optional zone (Z, UTC, GMT+02:00, +0330, an
 * abbreviation such as CEST or PDT, a military letter). A time without a date, or a date without a
 * year, is incomplete. A zone name (Europe/Paris) in the string is refused.
 */
import { utcMillis } from './date-parts';

export class DateStringError extends Error {}

export interface FreeFormDate {
  /** Wall-clock milliseconds (the date and time read as if they were UTC). */
  local: number;
  /** The offset the string states, when it states one. */
  offsetMs?: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** A month's number (1-12) from its English name or a prefix of three letters or more. */
function monthOf(word: string): number | undefined {
  const w = word.toLowerCase().replace(/\.$/, '');
  if (w.length < 3) return undefined;
  const full = [
    'january',
    'february',
    'march',
    'april',
    'may',
    'june',
    'july',
    'august',
    'september',
    'october',
    'november',
    'december',
  ];
  const i = full.findIndex((name, n) => name.startsWith(w) || (w === 'sept' && n === 8));
  return i >= 0 && MONTHS[i] === w.slice(0, 3) ? i + 1 : undefined;
}

/** Zone abbreviations and their offsets in hours (the unambiguous common ones). */
const ABBREVIATIONS: Record<string, number> = {
  utc: 0,
  gmt: 0,
  ut: 0,
  z: 0,
  wet: 0,
  west: 1,
  bst: 1,
  cet: 1,
  cest: 2,
  met: 1,
  mest: 2,
  eet: 2,
  eest: 3,
  msk: 3,
  est: -5,
  edt: -4,
  cst: -6,
  cdt: -5,
  mst: -7,
  mdt: -6,
  pst: -8,
  pdt: -7,
  akst: -9,
  akdt: -8,
  hst: -10,
  jst: 9,
  kst: 9,
  awst: 8,
  acst: 9.5,
  acdt: 10.5,
  aest: 10,
  aedt: 11,
  nzst: 12,
  nzdt: 13,
};

/** Military zone letters: A-I are +1..+9, K-M +10..+12, N-Y -1..-12, Z is UTC (J is not a zone). */
function militaryOffsetHours(letter: string): number | undefined {
  const c = letter.toUpperCase().charCodeAt(0);
  if (letter.length !== 1 || c < 65 || c > 90 || c === 74) return undefined;
  if (c === 90) return 0;
  if (c <= 73) return c - 64;
  if (c <= 77) return c - 65;
  return -(c - 77);
}

function twoDigitYear(text: string, value: number): number {
  if (text.length > 2) return value;
  return value < 70 ? 2000 + value : 1900 + value;
}

interface Cursor {
  rest: string;
}

function take(cur: Cursor, re: RegExp): RegExpExecArray | null {
  const m = re.exec(cur.rest);
  if (m) cur.rest = cur.rest.slice(m[0].length);
  return m;
}

function readDate(cur: Cursor): { y: number; mo: number; d: number } {
  let m = take(cur, /^(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)/);
  if (m) return { y: Number(m[1]), mo: Number(m[2]), d: Number(m[3]) };
  m = take(cur, /^(\d{4})-([a-z]{3,9})-(\d{1,2})(?!\d)/i);
  if (m && monthOf(m[2])) return { y: Number(m[1]), mo: monthOf(m[2])!, d: Number(m[3]) };
  m = take(cur, /^(\d{1,2})\/(\d{1,2})\/(\d{4}|\d{2})(?!\d)/);
  if (m) return { y: twoDigitYear(m[3], Number(m[3])), mo: Number(m[1]), d: Number(m[2]) };
  m = take(cur, /^(\d{1,2})-(\d{1,2})-(\d{4})(?!\d)/);
  if (m) return { y: Number(m[3]), mo: Number(m[2]), d: Number(m[1]) };
  m = /^([a-z]{3,9}\.?)\s+(\d{1,2})(?:st|nd|rd|th)?(?![\d:])(,?\s*(\d{4})(?![\d:]))?/i.exec(cur.rest);
  if (m && monthOf(m[1])) {
    if (m[4] === undefined) throw new DateStringError('an incomplete date/time string has been found');
    cur.rest = cur.rest.slice(m[0].length);
    return { y: Number(m[4]), mo: monthOf(m[1])!, d: Number(m[2]) };
  }
  if (/^\d{1,2}:\d{2}/.test(cur.rest)) throw new DateStringError('an incomplete date/time string has been found');
  throw new DateStringError('no date found');
}

function readTime(cur: Cursor): number {
  let m = take(cur, /^(\d{1,2}):(\d{2})(?:[:.](\d{2})(?:\.(\d{1,9}))?)?(?!\d)/);
  if (m) {
    const [h, mi, s] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
    if (h > 23 || mi > 59 || s > 59) throw new DateStringError('time out of range');
    const ms = Number((m[4] ?? '0').padEnd(3, '0').slice(0, 3));
    return ((h * 60 + mi) * 60 + s) * 1000 + ms;
  }
  m = take(cur, /^(\d{1,2})\s*([ap])\.?m\.?(?![a-z])/i);
  if (m) {
    const h = Number(m[1]);
    if (h < 1 || h > 12) throw new DateStringError('hour out of range');
    return ((h % 12) + (m[2].toLowerCase() === 'p' ? 12 : 0)) * 3_600_000;
  }
  if (take(cur, /^noon(?![a-z])/i)) return 12 * 3_600_000;
  if (take(cur, /^midnight(?![a-z])/i)) return 0;
  return -1;
}

/**
 * A zone at the start of `text`, as the date library reads one (also for a format's %z): spaces
 * first, then an offset (+03, +0330, +03:30, GMT+02:00), UTC/GMT/Z, an abbreviation or a military
 * letter. undefined when there is none.
 */
export function parseZonePrefix(text: string): { offsetMs: number; length: number } | undefined {
  const lead = /^[ \t(]*/.exec(text)![0].length;
  const rest = text.slice(lead);
  let m = /^(?:(?:gmt|utc)\s*)?([+-])(\d{1,2})(?::?(\d{2}))?(?!\d)/i.exec(rest);
  if (m) {
    const hours = Number(m[2]);
    const minutes = Number(m[3] ?? 0);
    if (hours > 23 || minutes > 59) throw new DateStringError('time zone offset out of range');
    return { offsetMs: (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000, length: lead + m[0].length };
  }
  m = /^[a-z]+(?![a-z/_])/i.exec(rest);
  if (!m) return undefined;
  const word = m[0].toLowerCase();
  const hours = word in ABBREVIATIONS ? ABBREVIATIONS[word] : militaryOffsetHours(word);
  if (hours === undefined) return undefined;
  return { offsetMs: hours * 3_600_000, length: lead + m[0].length };
}

function readZone(cur: Cursor): number {
  const zone = parseZonePrefix(cur.rest);
  if (zone && zone.length === cur.rest.length) return zone.offsetMs;
  if (/^[a-z_]+\/[a-z_/]+$/i.test(cur.rest))
    throw new DateStringError('a time zone name in the date string is not supported: pass it as timezone');
  throw new DateStringError(`unexpected characters '${cur.rest}'`);
}

export function parseFreeFormDate(input: string): FreeFormDate {
  const cur: Cursor = { rest: input.trim() };
  const { y, mo, d } = readDate(cur);
  const lastDay = new Date(utcMillis(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > lastDay) throw new DateStringError('invalid date');
  let time = 0;
  if (cur.rest.length) {
    // The separator may be missing: a zone can follow the date directly ("2017-07-04Z").
    take(cur, /^(?:T|,?\s+)/i);
    const t = readTime(cur);
    if (t >= 0) time = t;
    take(cur, /^\s+/);
  }
  const local = utcMillis(y, mo - 1, d) + time;
  if (!cur.rest.length) return { local };
  return { local, offsetMs: readZone(cur) };
}
