/**
 * Index bounds for a regular expression, as mongod's planner makes them: an anchored pattern with a
 * literal start (`/^abc/`) scans only the strings that begin with it, ["abc", "abd"); any other
 * pattern scans every string. Regex values stored in documents match too (a stored /x/ equals the
 * query's /x/), so the regex type's keys are scanned as well. The bounds are a superset: the
 * matcher still checks each document.
 */
import { BSONRegExp } from 'bson';
import { KeyBound } from '../indexes/key-order';
import { bsonClassOf, canonicalRank } from '../values/types';

/** One field's interval, the planner's shape (declared here so this module does not import the planner). */
interface Interval {
  low: unknown;
  lowInclusive: boolean;
  high: unknown;
  highInclusive: boolean;
  oneElement?: boolean;
}

const STRING_RANK = canonicalRank('');
const REGEX_RANK = canonicalRank(new BSONRegExp('', ''));

/** Characters with a meaning in a pattern: a literal prefix stops at the first one. */
const SPECIAL = new Set(['.', '[', ']', '(', ')', '{', '}', '*', '+', '?', '^', '$', '|']);

/** Pattern and flags of a regex clause: a RegExp, a BSONRegExp, or `{$regex, $options}`. */
export function regexSource(value: unknown, options?: unknown): { pattern: string; flags: string } | undefined {
  const extra = typeof options === 'string' ? options : '';
  if (value instanceof RegExp) return { pattern: value.source, flags: value.flags + extra };
  if (bsonClassOf(value) === 'BSONRegExp') {
    const r = value as BSONRegExp;
    return { pattern: r.pattern, flags: r.options + extra };
  }
  if (typeof value === 'string') return { pattern: value, flags: extra };
  return undefined;
}

/**
 * The literal text every match starts with, or undefined when the pattern is not anchored at the
 * start of the string (or alternation could escape the anchor).
 */
export function literalPrefix(pattern: string, flags: string): string | undefined {
  // Case-insensitive, multi-line (^ after any newline) and extended (spaces ignored) patterns have no usable prefix.
  if (/[imx]/.test(flags)) return undefined;
  let i = pattern.startsWith('^') ? 1 : pattern.startsWith('\\A') ? 2 : -1;
  if (i < 0 || pattern.includes('|')) return undefined;
  let out = '';
  while (i < pattern.length) {
    const c = pattern[i];
    let literal: string;
    let next: number;
    if (c === '\\' && pattern[i + 1] === 'Q') {
      // \Q…\E quotes its text (to the end of the pattern when \E is missing): all of it is literal.
      const end = pattern.indexOf('\\E', i + 2);
      const quoted = pattern.slice(i + 2, end < 0 ? pattern.length : end);
      next = end < 0 ? pattern.length : end + 2;
      const quantifier = pattern[next];
      if (quantifier === '*' || quantifier === '?' || quantifier === '{') {
        // Only the quoted text's last character is optional.
        out += quoted.slice(0, -1);
        break;
      }
      out += quoted;
      i = next;
      if (quantifier === '+') break;
      continue;
    }
    if (c === '\\') {
      const d = pattern[i + 1];
      // \d, \w, …: a class or another escape form, not one literal character.
      if (d === undefined || /[A-Za-z0-9]/.test(d)) break;
      literal = d;
      next = i + 2;
    } else if (SPECIAL.has(c)) break;
    else {
      literal = c;
      next = i + 1;
    }
    const quantifier = pattern[next];
    // The character may be absent (a*, a?, a{0,}): it is not part of every match.
    if (quantifier === '*' || quantifier === '?' || quantifier === '{') break;
    out += literal;
    i = next;
    if (quantifier === '+') break;
  }
  return out;
}

/** The first string after every string that starts with `prefix`, or undefined when there is none to name. */
function successor(prefix: string): string | undefined {
  const last = prefix.charCodeAt(prefix.length - 1);
  // Near and in the surrogates UTF-8 order and UTF-16 order part ways: no simple successor there.
  if (last >= 0xd7ff && last < 0xe000) return undefined;
  if (last === 0xffff) return undefined;
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

/** The intervals of one index field a regex can match: strings (by prefix where there is one), and stored regexes. */
export function regexIntervals(pattern: string, flags: string): Interval[] {
  let prefix = literalPrefix(pattern, flags) ?? '';
  let high: string | undefined;
  while (prefix.length > 0 && (high = successor(prefix)) === undefined) prefix = prefix.slice(0, -1);
  const strings: Interval =
    prefix.length > 0 && high !== undefined
      ? { low: prefix, lowInclusive: true, high, highInclusive: false, oneElement: true }
      : { low: '', lowInclusive: true, high: new KeyBound(1, STRING_RANK), highInclusive: true };
  const regexes: Interval = {
    low: new KeyBound(-1, REGEX_RANK),
    lowInclusive: true,
    high: new KeyBound(1, REGEX_RANK),
    highInclusive: true,
  };
  return [strings, regexes];
}
