/**
 * $regexMatch, $regexFind, $regexFindAll over the engine's PCRE translation (query/regex). A
 * match test runs on the engine compileRegex picks (linear-time where it can), so a string that
 * does not match never reaches a backtracking RegExp; positions and captures come from the
 * translated JavaScript RegExp. Indexes (`idx`) count code points, as mongod's do.
 */
import { Int32, type BSONRegExp } from 'bson';
import { EngineError } from '../../errors';
import { bsonClassOf, isPlainObject, type Document } from '../../values/types';
import { compileRegex, validateRegexOptions, type StringTest } from '../regex/compile';
import { emitJs } from '../regex/emit';
import { parsePcre } from '../regex/pcre-syntax';
import { compile, fail, isNullish, typeName, type Fn, type OperatorParser } from './core';

interface Compiled {
  test: StringTest;
  /** Global, sticky-free RegExp with the same groups as the pattern. */
  exec: RegExp;
}

const cache = new Map<string, Compiled>();

/** PCRE2 as mongod 8.0 builds it: a pattern of at most 16384 bytes, groups nested at most 250 deep. */
const MAX_PATTERN_BYTES = 16384;
const MAX_GROUP_DEPTH = 250;

function checkPatternLimits(pattern: string, name: string): void {
  if (Buffer.byteLength(pattern, 'utf8') > MAX_PATTERN_BYTES)
    fail(
      51111,
      `Invalid Regex in ${name}: pattern string is longer than the limit set by the application (${MAX_PATTERN_BYTES} bytes)`,
    );
  if (groupDepth(pattern) > MAX_GROUP_DEPTH)
    fail(51111, `Invalid Regex in ${name}: parentheses are too deeply nested (the limit is ${MAX_GROUP_DEPTH})`);
}

/** The deepest nesting of parentheses, outside escapes, \Q…\E quotes and character classes. */
function groupDepth(pattern: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      if (pattern[i + 1] === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        i = end < 0 ? pattern.length : end + 1;
      } else {
        i++;
      }
    } else if (c === '[') {
      // A ']' right after '[' or '[^' is a literal member.
      i += pattern[i + 1] === '^' ? 2 : 1;
      if (pattern[i] === ']') i++;
      while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
    } else if (c === '(') {
      deepest = Math.max(deepest, ++depth);
    } else if (c === ')' && depth > 0) {
      depth--;
    }
  }
  return deepest;
}

function compilePattern(pattern: string, options: string, name: string): Compiled {
  const key = `${options}/${pattern}`;
  const hit = cache.get(key);
  if (hit) return hit;
  checkPatternLimits(pattern, name);
  let compiled: Compiled;
  try {
    validateRegexOptions(options, name);
    const parsed = parsePcre(pattern, options);
    const js = emitJs(parsed);
    const exec = new RegExp(js.source, `${js.flags}g`);
    // Atomic groups and possessive quantifiers add capturing lookaheads to the translation, so
    // its group numbers no longer match the pattern's.
    const jsGroups = (new RegExp(`${js.source}|`, js.flags).exec('') ?? []).length - 1;
    if (jsGroups !== parsed.groupCount)
      fail(238, `${name} cannot report captures of a pattern with atomic groups or possessive quantifiers`);
    compiled = { test: compileRegex(pattern, options), exec };
  } catch (err) {
    if (err instanceof EngineError && (err.code === 51108 || err.code === 238)) throw err;
    fail(51111, `Invalid Regex in ${name}: ${(err as Error).message}`);
  }
  if (cache.size > 500) cache.clear();
  cache.set(key, compiled);
  return compiled;
}

interface RegexArgs {
  input: Fn;
  regex: Fn;
  options?: Fn;
}

function parseArgs(arg: unknown, name: string): RegexArgs {
  if (!isPlainObject(arg)) fail(51103, `${name} expects an object of named arguments but found: ${typeName(arg)}`);
  for (const k of Object.keys(arg))
    if (!['input', 'regex', 'options'].includes(k)) fail(31024, `${name} found an unknown argument: ${k}`);
  if (!('input' in arg)) fail(31022, `${name} requires 'input' parameter`);
  if (!('regex' in arg)) fail(31023, `${name} requires 'regex' parameter`);
  return {
    input: compile(arg.input),
    regex: compile(arg.regex),
    ...('options' in arg ? { options: compile(arg.options) } : {}),
  };
}

/** The input string and compiled pattern, or null when input, regex or options is nullish. */
function evaluateArgs(args: RegexArgs, root: Document, vars: Parameters<Fn>[1], name: string) {
  const input = args.input(root, vars);
  const regex = args.regex(root, vars);
  const options = args.options ? args.options(root, vars) : undefined;
  if (!isNullish(options) && typeof options !== 'string') fail(51106, `${name} needs 'options' to be of type string`);
  let pattern: string;
  let flags = typeof options === 'string' ? options : '';
  if (isNullish(regex)) return null;
  if (typeof regex === 'string') {
    pattern = regex;
  } else if (bsonClassOf(regex) === 'BSONRegExp' || regex instanceof RegExp) {
    const r = regex as BSONRegExp | RegExp;
    pattern = r instanceof RegExp ? r.source : r.pattern;
    const own = r instanceof RegExp ? r.flags : r.options;
    if (own && flags) fail(51107, `${name}: regex option(s) specified in both 'regex' and 'option' fields`);
    flags = own || flags;
  } else {
    fail(51105, `${name} needs 'regex' to be of type string or regex`);
  }
  if (pattern.includes('\0')) fail(51109, `${name}: regular expression cannot contain an embedded null byte`);
  if (flags.includes('\0')) fail(51110, `${name}: regular expression options cannot contain an embedded null byte`);
  const compiled = compilePattern(pattern, flags, name);
  if (isNullish(input)) return null;
  if (typeof input !== 'string') fail(51104, `${name} needs 'input' to be of type string`);
  return { input, compiled };
}

function codePointIndex(s: string, utf16Index: number): number {
  let n = 0;
  for (let i = 0; i < utf16Index; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 >= utf16Index) n++;
    else {
      n++;
      i++;
    }
  }
  return n;
}

function matchDocument(s: string, m: RegExpExecArray): Document {
  return {
    match: m[0],
    idx: new Int32(codePointIndex(s, m.index)),
    captures: m.slice(1).map((c) => (c === undefined ? null : c)),
  };
}

function allMatches(s: string, re: RegExp, limit: number): Document[] {
  const out: Document[] = [];
  re.lastIndex = 0;
  while (out.length < limit) {
    const m = re.exec(s);
    if (!m) break;
    out.push(matchDocument(s, m));
    // An empty match moves on one code point, as mongod does, so the scan always ends.
    if (m[0] === '') re.lastIndex = m.index + (s.codePointAt(m.index)! > 0xffff ? 2 : 1);
  }
  return out;
}

function regexOperator(mode: 'match' | 'find' | 'findAll'): OperatorParser {
  return (arg, name) => {
    const args = parseArgs(arg, name);
    return (root, vars) => {
      const e = evaluateArgs(args, root, vars, name);
      if (!e) return mode === 'match' ? false : mode === 'find' ? null : [];
      const hit = e.compiled.test.test(e.input);
      if (mode === 'match') return hit;
      if (!hit) return mode === 'find' ? null : [];
      const found = allMatches(e.input, e.compiled.exec, mode === 'find' ? 1 : Infinity);
      return mode === 'find' ? (found[0] ?? null) : found;
    };
  };
}

export const REGEX_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $regexMatch: regexOperator('match'),
  $regexFind: regexOperator('find'),
  $regexFindAll: regexOperator('findAll'),
};
