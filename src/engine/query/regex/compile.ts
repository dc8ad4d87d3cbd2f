/**
 * Compiles a `$regex` (PCRE syntax, mongod's options) into a string test, choosing the engine:
 *
 * - `regexp`: JavaScript's RegExp, when backtracking provably takes linear time on this pattern
 *   (emit.ts `backtrackingIsLinear`: no nested or repeated-alternation quantifiers, at most one
 *   unbounded repetition after a start anchor or at the end). The common `^prefix`, `word` with
 *   `i`, `^[A-Z]{2}\d{4}$` shapes. RegExp is 5-15x faster than re2js on them (bench/regex-bench).
 * - `re2`: re2js (linear time, RE2 semantics) for every other pattern RE2 can express exactly,
 *   e.g. `^(a+)+$`, `a.*b.*c`, `(x|y)+z`.
 * - `guarded`: backreferences, lookaround, atomic groups, possessive quantifiers. A linear
 *   over-approximation on re2js rejects most non-matching strings first; the rest run on RegExp,
 *   each match under `node:vm`'s `timeout` when the operation has a deadline (deadline.ts), so a
 *   catastrophic match stops at the deadline with MaxTimeMSExpired (50).
 */
import { RE2JS } from 're2js';
import * as vm from 'node:vm';
import { EngineError, ErrorCode } from '../../errors';
import { currentMatchDeadline } from './deadline';
import { backtrackingIsLinear, emitJs, emitRe2, needsBacktracking } from './emit';
import { invalidRegex, parsePcre } from './pcre-syntax';

export type RegexEngineKind = 'regexp' | 're2' | 'guarded';

export interface StringTest {
  readonly engine: RegexEngineKind;
  test(s: string): boolean;
}

const VALID_OPTIONS = 'imsxu';

/** The longest pattern mongod compiles, in UTF-8 bytes (its regex library's limit). */
export const MAX_PATTERN_BYTES = 32761;

/** mongod's option check: only `i m s x u` (51108, named after the first bad letter). */
export function validateRegexOptions(options: string, opName = ''): void {
  for (const ch of options) {
    if (!VALID_OPTIONS.includes(ch)) throw new EngineError(51108, `${opName} invalid flag in regex options: ${ch}`);
  }
}

/**
 * Compile `pattern` under `options`. Throws 51108 for an invalid option, 51091 for a pattern PCRE
 * refuses, NotImplemented for PCRE features no engine here runs (recursion, conditionals, verbs).
 * `force` picks an engine for the bench and tests (an impossible choice throws).
 */
export function compileRegex(pattern: string, options: string, force?: RegexEngineKind): StringTest {
  // mongod checks for the null byte before it reads the letters (BadValue, not 51108).
  if (options.includes('\0'))
    throw new EngineError(
      ErrorCode.BadValue,
      'Regular expression options string cannot contain an embedded null byte: use only the letters i, m, s, x, u.',
    );
  validateRegexOptions(options);
  if (Buffer.byteLength(pattern, 'utf8') > MAX_PATTERN_BYTES)
    throw invalidRegex(
      `pattern string is too long (${Buffer.byteLength(pattern, 'utf8')} bytes; at most ${MAX_PATTERN_BYTES}): shorten the pattern or split it into several conditions.`,
    );
  const parsed = parsePcre(pattern, options);
  const js = emitJs(parsed);
  let re: RegExp;
  try {
    re = new RegExp(js.source, js.flags);
  } catch (err) {
    throw invalidRegex((err as Error).message);
  }
  const backtrackingOnly = needsBacktracking(parsed.root);
  if (force === 'regexp' || (force === undefined && !backtrackingOnly && backtrackingIsLinear(parsed))) {
    return { engine: 'regexp', test: (s) => re.test(s) };
  }
  if (force !== 'guarded') {
    const re2 = backtrackingOnly ? null : compileRe2(emitRe2(parsed, false));
    if (re2) return { engine: 're2', test: (s) => re2.test(s) };
    if (force === 're2') throw new Error(`re2js cannot run ${pattern}`);
  }
  const prefilter = compileRe2(emitRe2(parsed, true));
  return {
    engine: 'guarded',
    test: prefilter ? (s) => prefilter.test(s) && guardedTest(re, s) : (s) => guardedTest(re, s),
  };
}

function compileRe2(source: string | null): RE2JS | null {
  if (source === null) return null;
  try {
    return RE2JS.compile(source);
  } catch {
    // e.g. a repetition count above RE2's 1000, or a Unicode property RE2 does not know.
    return null;
  }
}

let context: vm.Context | undefined;
let script: vm.Script | undefined;

/**
 * One backtracking match that stops at the operation's deadline. With no deadline, the match runs
 * directly (as long as it takes; a playground statement's own time limit still applies). A vm
 * timeout costs a watchdog thread per call (~0.1 ms; bench/regex-bench), so it is paid only by
 * patterns that need backtracking, and only for strings the linear prefilter did not reject.
 */
function guardedTest(re: RegExp, s: string): boolean {
  const deadline = currentMatchDeadline();
  if (deadline === undefined) return re.test(s);
  const remaining = deadline.remainingMs();
  if (remaining <= 0) deadline.expire();
  context ??= vm.createContext(Object.create(null));
  script ??= new vm.Script('re.test(s)');
  const ctx = context as { re?: RegExp; s?: string };
  ctx.re = re;
  ctx.s = s;
  try {
    return script.runInContext(context, { timeout: Math.max(1, Math.ceil(remaining)) }) === true;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') deadline.expire();
    throw err;
  } finally {
    ctx.re = undefined;
    ctx.s = undefined;
  }
}
