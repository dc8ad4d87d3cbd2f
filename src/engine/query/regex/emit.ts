/**
 * Writes a parsed PCRE pattern (pcre-syntax.ts) for the two engines that run it, and decides which
 * one may: JavaScript's backtracking RegExp (fast, but exponential on ambiguous nested quantifiers)
 * and re2js (linear time, no backreferences or lookaround).
 *
 * Both emitters spell out PCRE's meaning rather than relying on the target's defaults: `.` is
 * "anything but \n", `$` without m also matches before a final newline, `\s` is PCRE's ASCII set,
 * POSIX classes are ranges. The JavaScript form is for the `u` flag (mongod always matches UTF-8,
 * so `.` is one code point and case folding is Unicode's).
 */
import { widths, type Node, type ParsedPattern, type Prop, type Ranges } from './pcre-syntax';

const WORD_CLASS = '[0-9A-Za-z_]';

// ---------------------------------------------------------------------------------------------
// Analysis
// ---------------------------------------------------------------------------------------------

/** Backreferences, lookaround, atomic groups, possessive quantifiers: beyond a finite automaton. */
export function needsBacktracking(node: Node): boolean {
  switch (node.t) {
    case 'backref':
    case 'look':
      return true;
    case 'group':
      return node.kind === 'atomic' || needsBacktracking(node.body);
    case 'quant':
      return node.mode === 'possessive' || needsBacktracking(node.body);
    case 'seq':
      return node.items.some(needsBacktracking);
    case 'alt':
      return node.alts.some(needsBacktracking);
    default:
      return false;
  }
}

const PATH_LIMIT = 10_000;

/**
 * True when a backtracking matcher provably runs in time linear in the subject: no repetition
 * nested in a repetition, no repeated alternation, a bounded number of ways through the bounded
 * parts, and at most one unbounded repetition, which must either follow a start anchor (one start
 * position, so one linear sweep) or end the pattern (reaching it means success).
 */
export function backtrackingIsLinear(parsed: ParsedPattern): boolean {
  const root = parsed.root;
  if (needsBacktracking(root)) return false;
  const unbounded: Node[] = [];
  let ok = true;
  const walk = (node: Node, inRepeat: boolean): number => {
    switch (node.t) {
      case 'seq': {
        let p = 1;
        for (const item of node.items) p = Math.min(PATH_LIMIT + 1, p * walk(item, inRepeat));
        return p;
      }
      case 'alt': {
        if (inRepeat) ok = false;
        let p = 0;
        for (const a of node.alts) p = Math.min(PATH_LIMIT + 1, p + walk(a, inRepeat));
        return p;
      }
      case 'group':
        return walk(node.body, inRepeat);
      case 'quant': {
        if (node.max <= 1) {
          // x? is an alternation of two.
          if (inRepeat) ok = false;
          return Math.min(PATH_LIMIT + 1, walk(node.body, inRepeat) + 1);
        }
        if (inRepeat) ok = false;
        const body = walk(node.body, true);
        if (node.max === Infinity) {
          unbounded.push(node);
          return body;
        }
        let p = 0;
        for (let k = node.min; k <= node.max && p <= PATH_LIMIT; k++) p += body ** k;
        return Math.min(PATH_LIMIT + 1, p);
      }
      default:
        return 1;
    }
  };
  const paths = walk(root, false);
  if (!ok || paths > PATH_LIMIT) return false;
  if (unbounded.length === 0) return true;
  if (unbounded.length > 1) return false;
  if (startsAnchored(root)) return true;
  const items = root.t === 'seq' ? root.items : [root];
  return items[items.length - 1] === unbounded[0];
}

function startsAnchored(node: Node): boolean {
  switch (node.t) {
    case 'assert':
      return node.kind === 'bol' || node.kind === 'A';
    case 'seq':
      return node.items.length > 0 && startsAnchored(node.items[0]);
    case 'alt':
      return node.alts.every(startsAnchored);
    case 'group':
      return node.kind !== 'atomic' && startsAnchored(node.body);
    default:
      return false;
  }
}

/** Whether case-insensitivity is the same for every node it affects (then it is one flag). */
function uniformCase(node: Node): boolean | 'mixed' {
  let seen: boolean | undefined;
  let mixed = false;
  const visit = (n: Node): void => {
    switch (n.t) {
      case 'char':
      case 'set':
      case 'backref':
        if (seen === undefined) seen = n.i;
        else if (seen !== n.i) mixed = true;
        return;
      case 'seq':
        n.items.forEach(visit);
        return;
      case 'alt':
        n.alts.forEach(visit);
        return;
      case 'group':
      case 'look':
      case 'quant':
        visit(n.body);
        return;
    }
  };
  visit(node);
  return mixed ? 'mixed' : (seen ?? false);
}

// ---------------------------------------------------------------------------------------------
// JavaScript (RegExp with the `u` flag)
// ---------------------------------------------------------------------------------------------

export interface JsRegex {
  source: string;
  flags: string;
}

export function emitJs(parsed: ParsedPattern): JsRegex {
  const caseMode = uniformCase(parsed.root);
  const globalI = caseMode === true;
  const mixed = caseMode === 'mixed';
  // JavaScript numbers captures by their opening parenthesis; atomic groups and possessive
  // quantifiers add capturing lookaheads, so user groups are renumbered as they are written and
  // backreferences (possibly forward) are filled in at the end.
  const groupMap = new Map<number, number>();
  let next = 0;
  const atomic = (inner: () => string): string => {
    const n = ++next;
    return `(?=(${inner()}))\\${n}(?:)`;
  };
  const emit = (n: Node): string => {
    switch (n.t) {
      case 'empty':
        return '(?:)';
      case 'char':
        return mixed && n.i ? jsSet(withCaseVariants([[n.cp, n.cp]]), [], false) : jsChar(n.cp);
      case 'set':
        return jsSet(mixed && n.i ? withCaseVariants(n.ranges) : n.ranges, n.props, n.negated);
      case 'any':
        return n.s ? '[\\s\\S]' : '[^\\n]';
      case 'seq':
        return n.items.map(emit).join('');
      case 'alt':
        return `(?:${n.alts.map(emit).join('|')})`;
      case 'group':
        if (n.kind === 'capture') {
          groupMap.set(n.index, ++next);
          return `(${emit(n.body)})`;
        }
        if (n.kind === 'atomic') return atomic(() => emit(n.body));
        return `(?:${emit(n.body)})`;
      case 'look':
        return `(?${n.behind ? '<' : ''}${n.negated ? '!' : '='}${emit(n.body)})`;
      case 'quant': {
        const q = (): string => `(?:${emit(n.body)})${quantifier(n.min, n.max)}`;
        if (n.mode === 'possessive') return atomic(q);
        return n.mode === 'lazy' ? `${q()}?` : q();
      }
      case 'backref':
        return `(?:\\\u0000${n.index}\u0000)`;
      case 'assert':
        switch (n.kind) {
          case 'bol':
          case 'A':
            return '^';
          case 'z':
            return '$';
          case 'eol':
          case 'Z':
            return '(?=\\n?$)';
          case 'mbol':
            return '(?:^|(?<=\\n)(?=[\\s\\S]))';
          case 'meol':
            return '(?=\\n|$)';
          case 'b':
            return globalI || mixed
              ? `(?:(?<=${WORD_CLASS})(?!${WORD_CLASS})|(?<!${WORD_CLASS})(?=${WORD_CLASS}))`
              : '\\b';
          case 'B':
            return globalI || mixed
              ? `(?:(?<=${WORD_CLASS})(?=${WORD_CLASS})|(?<!${WORD_CLASS})(?!${WORD_CLASS}))`
              : '\\B';
        }
    }
  };
  // NUL brackets a group number that emit() wrote as a placeholder: no pattern text contains one.
  // eslint-disable-next-line no-control-regex
  const source = emit(parsed.root).replace(/\u0000(\d+)\u0000/g, (_, index: string) =>
    String(groupMap.get(Number(index))),
  );
  return { source, flags: globalI ? 'iu' : 'u' };
}

function quantifier(min: number, max: number): string {
  if (min === 0 && max === Infinity) return '*';
  if (min === 1 && max === Infinity) return '+';
  if (min === 0 && max === 1) return '?';
  if (max === Infinity) return `{${min},}`;
  return min === max ? `{${min}}` : `{${min},${max}}`;
}

function jsChar(cp: number): string {
  if (isPlainChar(cp)) return String.fromCodePoint(cp);
  return `\\u{${cp.toString(16)}}`;
}

function isPlainChar(cp: number): boolean {
  return (
    (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x5f || cp === 0x20
  );
}

function jsProp(p: Prop): string {
  const body = p.script ? `Script=${p.name}` : p.name === 'LC' ? 'LC' : p.name;
  return `\\${p.negated ? 'P' : 'p'}{${body}}`;
}

function jsSet(ranges: Ranges, props: Prop[], negated: boolean): string {
  let out = negated ? '[^' : '[';
  for (const [lo, hi] of ranges) out += lo === hi ? jsChar(lo) : `${jsChar(lo)}-${jsChar(hi)}`;
  for (const p of props) out += jsProp(p);
  return out + ']';
}

/** Ranges plus the other case of every code point in them (for a locally case-insensitive part). */
function withCaseVariants(ranges: Ranges): Ranges {
  const out: Ranges = ranges.map((r) => [r[0], r[1]]);
  for (const [lo, hi] of ranges) {
    if (hi - lo > 0x3000) continue;
    for (let cp = lo; cp <= hi; cp++) {
      const s = String.fromCodePoint(cp);
      for (const v of [s.toLowerCase(), s.toUpperCase()]) {
        const vc = v.codePointAt(0)!;
        if (v.length === String.fromCodePoint(vc).length && vc !== cp) out.push([vc, vc]);
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// RE2 (re2js)
// ---------------------------------------------------------------------------------------------

/**
 * The pattern in RE2 syntax, or null when RE2 cannot express it exactly. With `approximate`, the
 * result is always a pattern that matches at least every string the original matches
 * (backreferences become `.*`, lookaround and atomicity are dropped): a prefilter.
 */
export function emitRe2(parsed: ParsedPattern, approximate: boolean): string | null {
  const caseMode = uniformCase(parsed.root);
  const globalI = caseMode === true;
  const mixed = caseMode === 'mixed';
  let exact = true;
  const inexact = (approx: string): string => {
    exact = false;
    return approx;
  };
  const caseWrap = (i: boolean, s: string): string => (mixed && i ? `(?i:${s})` : s);

  const emit = (n: Node, atEnd: boolean): string => {
    switch (n.t) {
      case 'empty':
        return '(?:)';
      case 'char':
        return caseWrap(n.i, re2Char(n.cp));
      case 'set': {
        if (n.props.some((p) => p.name === 'LC')) return inexact(n.negated ? '(?s:.)' : '(?s:.)');
        return caseWrap(n.i, re2Set(n.ranges, n.props, n.negated));
      }
      case 'any':
        return n.s ? '(?s:.)' : '[^\\n]';
      case 'seq': {
        let out = '';
        for (let k = 0; k < n.items.length; k++) {
          const item = n.items[k];
          if (item.t === 'assert' && item.kind === 'mbol') {
            // RE2's (?m:^) also matches after a newline that ends the subject; PCRE's does not.
            // The two agree when what follows must consume a character.
            let rest = 0;
            for (let j = k + 1; j < n.items.length; j++) rest += widths(n.items[j]).min;
            out += rest > 0 ? '(?m:^)' : inexact('(?m:^)');
            continue;
          }
          out += emit(item, atEnd && k === n.items.length - 1);
        }
        return out;
      }
      case 'alt':
        return `(?:${n.alts.map((a) => emit(a, atEnd)).join('|')})`;
      case 'group':
        if (n.kind === 'atomic') inexact('');
        return `(?:${emit(n.body, atEnd)})`;
      case 'look':
        return inexact('(?:)');
      case 'quant': {
        if (n.mode === 'possessive') inexact('');
        const q = `(?:${emit(n.body, false)})${quantifier(n.min, n.max)}`;
        return n.mode === 'lazy' ? `${q}?` : q;
      }
      case 'backref':
        return inexact('(?s:.*)');
      case 'assert':
        switch (n.kind) {
          case 'bol':
          case 'A':
            return '\\A';
          case 'z':
            return '\\z';
          case 'eol':
          case 'Z':
            // PCRE's $ also matches before a final newline. RE2 has no lookahead; at the very end
            // of the pattern, consuming that newline decides the same match.
            return atEnd ? '(?:\\n?\\z)' : inexact('(?:)');
          case 'mbol':
            return inexact('(?m:^)');
          case 'meol':
            return '(?m:$)';
          case 'b':
            return '\\b';
          case 'B':
            return '\\B';
        }
    }
  };
  const body = emit(parsed.root, true);
  if (!exact && !approximate) return null;
  return globalI ? `(?i)${body}` : body;
}

function re2Char(cp: number): string {
  if (isPlainChar(cp) && cp !== 0x20) return String.fromCodePoint(cp);
  return `\\x{${cp.toString(16)}}`;
}

function re2Set(ranges: Ranges, props: Prop[], negated: boolean): string {
  if (ranges.length === 0 && props.length === 0) return negated ? '(?s:.)' : '[^\\x{0}-\\x{10ffff}]';
  let out = negated ? '[^' : '[';
  for (const [lo, hi] of ranges) out += lo === hi ? re2Char(lo) : `${re2Char(lo)}-${re2Char(hi)}`;
  for (const p of props) out += `\\${p.negated ? 'P' : 'p'}{${p.name}}`;
  return out + ']';
}
