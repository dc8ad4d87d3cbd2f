/**
 * Durations in words for messages and hovers: `3600` → "1 hour", `86400000` → "1,000 days
 * (about 2.7 years)". Long words, because a diagnostic is read once, in a sentence.
 */
const UNITS: Array<[string, number]> = [
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];

/** A whole number with thousands separators, as `toLocaleString('en-US')` writes it (which is slow). */
function grouped(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) return n.toLocaleString('en-US');
  const digits = String(n);
  if (n < 1000) return digits;
  let out = '';
  for (let i = digits.length; i > 0; i -= 3) out = (i > 3 ? ',' : '') + digits.slice(Math.max(0, i - 3), i) + out;
  return out;
}

function count(n: number, unit: string): string {
  return `${grouped(n)} ${unit}${n === 1 ? '' : 's'}`;
}

export function durationWords(seconds: number): string {
  if (!Number.isFinite(seconds)) return String(seconds);
  if (seconds < 0) return `minus ${durationWords(-seconds)}`;
  if (seconds === 0) return '0 seconds';
  if (!Number.isInteger(seconds)) return `${seconds} seconds`;
  // The largest unit that fits, then the next one down (never "1 day 30 seconds").
  const first = UNITS.findIndex(([, size]) => seconds >= size);
  const [unit, size] = UNITS[first];
  const n = Math.floor(seconds / size);
  let rest = seconds - n * size;
  const parts = [count(n, unit)];
  const next = UNITS[first + 1];
  if (next && rest >= next[1]) {
    const m = Math.floor(rest / next[1]);
    parts.push(count(m, next[0]));
    rest -= m * next[1];
  }
  const years = seconds >= 365 * 86_400 ? ` (about ${(seconds / (365.25 * 86_400)).toFixed(1)} years)` : '';
  return `${rest === 0 ? '' : 'about '}${parts.join(' ')}${years}`;
}

/** `3600 s = 1 hour`: what the hover shows. */
export function secondsInWords(seconds: number): string {
  return `${seconds.toLocaleString('en-US')} s = ${durationWords(seconds)}`;
}
