/**
 * Durations as people type and read them. Input: `3600` (seconds), `90s`, `15m`, `1h`, `30d`,
 * `1h30m` (the shell's unit grammar, one implementation); output: `1 h`, `90 s`, `1 h 30 min`,
 * `30 d`. No `vscode` import: unit-tested on its own.
 */
import { parseDuration } from '../../formats/duration';

/** Words that mean `expireAfterSeconds: 0`: expire at the date stored in the field. */
const AT_DATE = /^(0|at|at date|at the date|at the date in the field|at the date in the document|expire at)$/;

export type ParsedSeconds = { seconds: number; atDate: boolean } | { error: string };

/**
 * A TTL duration typed by a person: a bare integer is seconds (what `expireAfterSeconds` holds);
 * `90s`, `1h`, `30d`, `1h30m` use the shell's units; `0` or "at the date in the field" means expire
 * at the stored date. Range checks are the engine's (see ttl-input.ts); here only the form.
 */
export function parseTTLDuration(text: string): ParsedSeconds {
  const t = text.trim().toLowerCase();
  if (t.length === 0) return { error: 'Type a duration: 3600 (seconds), 90s, 1h, 30d, or "at the date in the field".' };
  if (AT_DATE.test(t)) return { seconds: 0, atDate: true };
  if (/^[+-]?\d+(\.\d+)?(e[+-]?\d+)?$/.test(t)) {
    const n = Number(t);
    return { seconds: n, atDate: n === 0 };
  }
  if (t.startsWith('-'))
    return {
      error: `"${text.trim()}" is negative: a TTL cannot expire documents before their date. Use 0 to expire at the date in the field.`,
    };
  const ms = parseDuration(t);
  if (typeof ms !== 'number')
    return {
      error: `Cannot read "${text.trim()}": use a number of seconds (3600) or a duration such as 90s, 15m, 1h, 30d, 1h30m.`,
    };
  if (ms % 1000 !== 0) return { error: `"${text.trim()}" is ${ms} ms: expireAfterSeconds counts whole seconds.` };
  return { seconds: ms / 1000, atDate: ms === 0 };
}

/** A clock move typed by a person: like parseTTLDuration, a bare number is seconds. Returns ms. */
export function parseClockAdvance(text: string, nowMs?: number): { ms: number } | { error: string } {
  const t = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(t)) return { ms: Math.round(Number(t) * 1000) };
  // A date (2026-02-01, 2026-02-01T09:30, with Z or an offset): move the clock to it.
  if (nowMs !== undefined && /^\d{4}-\d{2}-\d{2}([t ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(z|[+-]\d{2}:?\d{2})?)?$/.test(t)) {
    const target = Date.parse(
      t.replace(' ', 'T').toUpperCase() + (/[t ]/.test(t) || /z|[+-]\d{2}:?\d{2}$/.test(t) ? '' : 'T00:00:00Z'),
    );
    if (!Number.isFinite(target))
      return { error: `Cannot read "${text.trim()}" as a date: use 2026-02-01 or 2026-02-01T09:30Z.` };
    if (target <= nowMs)
      return {
        error: `${new Date(target).toISOString()} is not after the clock's ${new Date(nowMs).toISOString()}: the clock only moves forward.`,
      };
    return { ms: target - nowMs };
  }
  const ms = parseDuration(t);
  if (typeof ms !== 'number')
    return {
      error: `Cannot read "${text.trim()}": use seconds (90), a duration such as 90s, 1h, 2d${nowMs !== undefined ? ', or a date such as 2026-02-01T09:30Z' : ''}.`,
    };
  if (ms <= 0) return { error: 'Advance the clock by more than 0 s.' };
  return { ms };
}

const UNITS: Array<[string, number]> = [
  ['d', 86_400],
  ['h', 3_600],
  ['min', 60],
  ['s', 1],
];

/**
 * Seconds in short words: `3600` → `1 h`, `90` → `1 min 30 s`, `2592000` → `30 d`, `0` → `0 s`.
 * At most two units, the larger ones first (`1 d 2 h`); a remainder below the second unit is
 * dropped only when the number is large (`400 d` stays exact in days).
 */
export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return String(seconds);
  if (seconds < 0) return `-${formatSeconds(-seconds)}`;
  if (seconds === 0) return '0 s';
  if (!Number.isInteger(seconds)) return `${seconds} s`;
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, size] of UNITS) {
    if (rest >= size) {
      const n = Math.floor(rest / size);
      parts.push(`${n.toLocaleString('en-US')} ${unit}`);
      rest -= n * size;
    }
  }
  if (parts.length <= 2 && rest === 0) return parts.join(' ');
  // Too many parts: keep the two largest and say it is approximate.
  return `≈ ${parts.slice(0, 2).join(' ')}`;
}

/** Milliseconds in short words (`formatSeconds` above whole seconds, `250 ms` below). */
export function formatMillis(ms: number): string {
  if (Math.abs(ms) < 1000) return `${ms} ms`;
  return formatSeconds(Math.round(ms / 1000));
}

/** `in 45 s` / `2 min ago` relative to `now`. */
export function formatRelative(at: Date, now: Date): string {
  const diff = Math.round((at.getTime() - now.getTime()) / 1000);
  if (diff === 0) return 'now';
  return diff > 0 ? `in ${formatSeconds(diff)}` : `${formatSeconds(-diff)} ago`;
}

/** A date as the tree shows it: `2025-01-02 03:04:05 UTC`. */
export function formatClockTime(date: Date): string {
  if (Number.isNaN(date.getTime())) return 'Invalid Date';
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `1,234` — counts in the tree and messages. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** `1 document` / `3 documents`. */
export function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${formatCount(n)} ${n === 1 ? word : pluralWord}`;
}
