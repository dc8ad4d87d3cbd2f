/**
 * A parser for the PCRE2 dialect mongod compiles `$regex` patterns with (always UTF; options
 * `i m s x`, `u` accepted and redundant). It produces a small syntax tree with every option already
 * applied to the node it governs (inline `(?i)`, `(?-s:...)` and `x` included), so the emitters in
 * `emit.ts` can write the same pattern for JavaScript's RegExp and for RE2 without re-reading flags.
 *
 * Shorthand classes are resolved to PCRE's own code point sets (`\d`, `\w`, `\s` are ASCII in
 * mongod, which does not set UCP; `.` excludes only `\n`), so neither target's different defaults
 * leak in. Syntax PCRE refuses is refused here with mongod's code 51091.
 */
import { EngineError, ErrorCode } from '../../errors';

/** A set of code point ranges, sorted, inclusive. */
export type Ranges = Array<[number, number]>;

export type Node =
  | { t: 'empty' }
  | { t: 'char'; cp: number; i: boolean }
  | { t: 'set'; ranges: Ranges; props: Prop[]; negated: boolean; i: boolean }
  | { t: 'any'; s: boolean }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; alts: Node[] }
  | { t: 'group'; kind: 'capture' | 'plain' | 'atomic'; index: number; body: Node }
  | { t: 'look'; behind: boolean; negated: boolean; body: Node }
  | { t: 'quant'; body: Node; min: number; max: number; mode: 'greedy' | 'lazy' | 'possessive' }
  | { t: 'backref'; index: number; i: boolean }
  | { t: 'assert'; kind: AssertKind };

/** bol/eol: `^`/`$` without m; mbol/meol: with m; A, z, Z: `\A \z \Z`; b/B: word boundaries. */
export type AssertKind = 'bol' | 'eol' | 'mbol' | 'meol' | 'A' | 'z' | 'Z' | 'b' | 'B';

/** A Unicode property escape inside a set: `\p{L}` (general category) or `\p{Greek}` (script). */
export interface Prop {
  name: string;
  script: boolean;
  negated: boolean;
}

export interface ParsedPattern {
  root: Node;
  groupCount: number;
}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
}

const MAX_CP = 0x10ffff;
const DIGIT: Ranges = [[0x30, 0x39]];
const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
// PCRE2 \s: space, \t \n \v \f \r (VT included since PCRE 8.34).
const SPACE: Ranges = [
  [0x09, 0x0d],
  [0x20, 0x20],
];
const HSPACE: Ranges = [
  [0x09, 0x09],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x180e, 0x180e],
  [0x2000, 0x200a],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
];
const VSPACE: Ranges = [
  [0x0a, 0x0d],
  [0x85, 0x85],
  [0x2028, 0x2029],
];

/** POSIX classes as PCRE defines them without UCP (ASCII). */
const POSIX: Record<string, Ranges> = {
  alpha: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  digit: DIGIT,
  alnum: [
    [0x30, 0x39],
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  upper: [[0x41, 0x5a]],
  lower: [[0x61, 0x7a]],
  space: SPACE,
  blank: [
    [0x09, 0x09],
    [0x20, 0x20],
  ],
  punct: [
    [0x21, 0x2f],
    [0x3a, 0x40],
    [0x5b, 0x60],
    [0x7b, 0x7e],
  ],
  print: [[0x20, 0x7e]],
  graph: [[0x21, 0x7e]],
  cntrl: [
    [0x00, 0x1f],
    [0x7f, 0x7f],
  ],
  xdigit: [
    [0x30, 0x39],
    [0x41, 0x46],
    [0x61, 0x66],
  ],
  word: WORD,
  ascii: [[0x00, 0x7f]],
};

const prop = (name: string): Prop => ({ name, script: false, negated: false });

/** PCRE2's other start options (pcre2pattern): newline conventions, limits, NOTEMPTY. */
const OTHER_START_OPTIONS = new Set([
  'CR',
  'CRLF',
  'ANYCRLF',
  'ANY',
  'NUL',
  'BSR_ANYCRLF',
  'BSR_UNICODE',
  'NOTEMPTY',
  'NOTEMPTY_ATSTART',
  'LIMIT_HEAP',
  'LIMIT_MATCH',
  'LIMIT_DEPTH',
  'LIMIT_RECURSION',
]);

/** Backtracking control verbs (pcre2pattern), besides FAIL, ACCEPT and MARK. */
const BACKTRACK_VERBS = new Set(['COMMIT', 'PRUNE', 'SKIP', 'THEN']);

/** PCRE2's special properties: Xan alphanumeric, Xps / Xsp space, Xwd word. */
const SPECIAL_PROPERTIES: Record<string, { ranges: Ranges; props: Prop[] }> = {
  Xan: { ranges: [], props: [prop('L'), prop('N')] },
  Xps: { ranges: SPACE, props: [prop('Z')] },
  Xsp: { ranges: SPACE, props: [prop('Z')] },
  Xwd: { ranges: [[0x5f, 0x5f]], props: [prop('L'), prop('N')] },
};

/** \d \w \s under (*UCP) (pcre2pattern: \p{Nd}; \p{L}, \p{N} and underscore; \p{Z} and h/v space). */
const UCP_CLASSES: Record<string, { ranges: Ranges; props: Prop[] }> = {
  d: { ranges: [], props: [prop('Nd')] },
  w: SPECIAL_PROPERTIES.Xwd,
  s: SPECIAL_PROPERTIES.Xps,
};

/** POSIX classes (*UCP) turns into properties; the others stay ASCII, as in PCRE2. */
const UCP_POSIX: Record<string, { ranges: Ranges; props: Prop[] }> = {
  alnum: SPECIAL_PROPERTIES.Xan,
  alpha: { ranges: [], props: [prop('L')] },
  digit: { ranges: [], props: [prop('Nd')] },
  lower: { ranges: [], props: [prop('Ll')] },
  space: SPECIAL_PROPERTIES.Xps,
  upper: { ranges: [], props: [prop('Lu')] },
  word: SPECIAL_PROPERTIES.Xwd,
};

/** Unicode general categories PCRE knows by their short names. */
const CATEGORIES = new Set([
  'C',
  'Cc',
  'Cf',
  'Cn',
  'Co',
  'Cs',
  'L',
  'Ll',
  'Lm',
  'Lo',
  'Lt',
  'Lu',
  'M',
  'Mc',
  'Me',
  'Mn',
  'N',
  'Nd',
  'Nl',
  'No',
  'P',
  'Pc',
  'Pd',
  'Pe',
  'Pf',
  'Pi',
  'Po',
  'Ps',
  'S',
  'Sc',
  'Sk',
  'Sm',
  'So',
  'Z',
  'Zl',
  'Zp',
  'Zs',
]);

export function invalidRegex(message: string): EngineError {
  return new EngineError(51091, `Regular expression is invalid: ${message}`);
}

function unsupported(what: string): EngineError {
  return new EngineError(ErrorCode.NotImplemented, `${what} in a regular expression is not supported by this engine`);
}

export function normalizeRanges(input: Ranges): Ranges {
  const sorted = input.filter((r) => r[0] <= r[1]).sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

export function complementRanges(input: Ranges): Ranges {
  const out: Ranges = [];
  let next = 0;
  for (const [lo, hi] of normalizeRanges(input)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CP) out.push([next, MAX_CP]);
  return out;
}

/** Parse a pattern under mongod's options (already validated to be a subset of `imsxu`). */
export function parsePcre(pattern: string, options: string): ParsedPattern {
  if (pattern.includes('\0')) {
    throw new EngineError(ErrorCode.BadValue, 'Regular expression cannot contain an embedded null byte');
  }
  return new Parser(pattern, options).parse();
}

class Parser {
  private pos = 0;
  private groupCount = 0;
  private readonly names = new Map<string, number>();
  private readonly totalGroups: number;
  private readonly backrefs: Array<{ node: Extract<Node, { t: 'backref' }>; name?: string }> = [];
  private lookbehindDepth = 0;
  /** (*UCP): \d \w \s and the POSIX classes take Unicode properties instead of ASCII. */
  private ucp = false;
  /** (*NO_START_OPT): PCRE2 tries every start position, which (*COMMIT) then notices. */
  private noStartOpt = false;
  /** Nesting of alternations: 1 is the pattern's top level. */
  private altDepth = 0;
  /** Items parsed so far in the innermost sequence (a leading verb comes before any). */
  private seqLength = 0;
  /** A (*COMMIT), (*PRUNE), (*SKIP) or (*THEN) led the pattern; which one. */
  private leadingVerb: string | undefined;
  /** A top-level (*ACCEPT) was met: the rest of its sequence is never reached. */
  private acceptPending = false;

  constructor(
    private readonly src: string,
    options: string,
  ) {
    this.flags = {
      i: options.includes('i'),
      m: options.includes('m'),
      s: options.includes('s'),
      x: options.includes('x'),
    };
    this.totalGroups = countCapturingGroups(src);
  }

  private flags: Flags;

  parse(): ParsedPattern {
    this.parseStartOptions();
    const root = this.parseAlternation();
    this.checkLeadingVerb(root);
    if (this.pos < this.src.length) throw invalidRegex(`unmatched closing parenthesis at offset ${this.pos}`);
    for (const ref of this.backrefs) {
      if (ref.name !== undefined) {
        const index = this.names.get(ref.name);
        if (index === undefined) throw invalidRegex(`reference to non-existent subpattern '${ref.name}'`);
        ref.node.index = index;
      } else if (ref.node.index > this.groupCount) {
        throw invalidRegex(`reference to non-existent subpattern at offset ${this.pos}`);
      }
    }
    return { root, groupCount: this.groupCount };
  }

  /**
   * PCRE2's start-of-pattern options. (*UTF) and (*UTF8) restate what mongod always sets; the
   * newline and optimisation settings named here change nothing a match test can see. Others
   * (other newline conventions, match limits, NOTEMPTY) are refused.
   */
  private parseStartOptions(): void {
    for (;;) {
      const m = /^\(\*([A-Z_0-9]+)(?:=\d+)?\)/.exec(this.src.slice(this.pos));
      if (!m) return;
      const name = m[1];
      // Only the limits take a number; anything else of that shape is left to the verb reader.
      if (m[0].includes('=') !== name.startsWith('LIMIT_')) return;
      if (name === 'UCP') this.ucp = true;
      else if (name === 'NO_START_OPT') this.noStartOpt = true;
      else if (!['UTF', 'UTF8', 'LF', 'NO_AUTO_POSSESS', 'NO_DOTSTAR_ANCHOR', 'NO_JIT'].includes(name)) {
        // Backtracking verbs share the syntax: they (and unknown names) are read as atoms.
        if (!OTHER_START_OPTIONS.has(name)) return;
        throw unsupported(`the start option (*${name})`);
      }
      this.pos += m[0].length;
    }
  }

  /**
   * A backtracking control verb, `(*NAME)` or `(*NAME:ARG)`, as an atom: null when it matches
   * nothing itself. Only the forms whose effect a JavaScript pattern can show exactly are taken:
   * (*FAIL) anywhere, (*ACCEPT) at the top level, marks anywhere, and (*COMMIT), (*PRUNE), (*SKIP),
   * (*THEN) leading the pattern (checkLeadingVerb says when those change no match test).
   */
  private parseVerb(start: number): Node | null {
    const m = /^\(\*([A-Z]*)(?::([^)]*))?\)/.exec(this.src.slice(start));
    if (!m) throw invalidRegex(`(*VERB) not recognized or malformed at offset ${start}`);
    const [whole, name, arg] = m;
    this.pos = start + whole.length;
    if ((name === 'FAIL' || name === 'F') && arg === undefined)
      return { t: 'set', ranges: [], props: [], negated: false, i: false };
    if (name === 'MARK' || name === '') {
      if (!arg) throw invalidRegex(`(*MARK) must have an argument at offset ${start}`);
      return null;
    }
    if (name === 'ACCEPT') {
      if (this.altDepth !== 1) throw unsupported('(*ACCEPT) inside a group');
      this.acceptPending = true;
      return null;
    }
    if (!BACKTRACK_VERBS.has(name)) throw invalidRegex(`(*VERB) not recognized or malformed at offset ${start}`);
    if (this.altDepth !== 1 || this.seqLength > 0 || (this.leadingVerb !== undefined && name !== this.leadingVerb))
      throw unsupported(`(*${name}) after the start of the pattern`);
    this.leadingVerb = name;
    return null;
  }

  /**
   * A verb leading the pattern. Backtracking into (*PRUNE), (*SKIP) or (*THEN) there fails the
   * match at the current start and moves to the next one, as a plain failure does: without a
   * top-level alternation they change no match test. (*COMMIT) there stops at the first start
   * PCRE2 tries, which its start-of-match optimisation puts at the first character that can begin
   * a match: for a pattern of at most one single-character item that is a plain search too.
   */
  private checkLeadingVerb(root: Node): void {
    if (this.leadingVerb === undefined) return;
    if (root.t === 'alt') throw unsupported(`(*${this.leadingVerb}) before a top-level alternation`);
    if (this.leadingVerb !== 'COMMIT') return;
    const single = root.t === 'empty' || root.t === 'char' || root.t === 'set' || root.t === 'any';
    if (!single || this.noStartOpt) throw unsupported('(*COMMIT) before more than one item');
  }

  private peek(offset = 0): string {
    return this.src[this.pos + offset] ?? '';
  }

  private eof(): boolean {
    return this.pos >= this.src.length;
  }

  /** In extended mode, whitespace and #-comments between tokens are ignored. */
  private skipExtended(): void {
    if (!this.flags.x) return;
    while (!this.eof()) {
      const ch = this.peek();
      if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\f' || ch === '\v') {
        this.pos++;
      } else if (ch === '#') {
        while (!this.eof() && this.peek() !== '\n') this.pos++;
      } else if (ch === '(' && this.src.startsWith('(?#', this.pos)) {
        this.skipComment();
      } else {
        return;
      }
    }
  }

  private skipComment(): void {
    const end = this.src.indexOf(')', this.pos);
    if (end < 0) throw invalidRegex(`missing ) at end of (?# comment`);
    this.pos = end + 1;
  }

  private parseAlternation(): Node {
    const saved = { ...this.flags };
    this.altDepth++;
    const alts: Node[] = [this.parseSequence()];
    while (this.peek() === '|') {
      this.pos++;
      alts.push(this.parseSequence());
    }
    this.altDepth--;
    // An inline (?i) lasts to the end of the group that holds it, across its alternatives.
    this.flags = saved;
    return alts.length === 1 ? alts[0] : { t: 'alt', alts };
  }

  private parseSequence(): Node {
    const items: Node[] = [];
    // After a top-level (*ACCEPT) the match has ended: what follows is parsed, never matched.
    let accepted = false;
    for (;;) {
      this.skipExtended();
      if (this.eof() || this.peek() === '|' || this.peek() === ')') break;
      const outer = this.seqLength;
      this.seqLength = items.length;
      const atom = this.parseAtom();
      this.seqLength = outer;
      if (this.acceptPending) {
        this.acceptPending = false;
        accepted = true;
      }
      if (atom === null) continue;
      const item = this.parseQuantifiers(atom);
      if (!accepted) items.push(item);
    }
    if (items.length === 0) return { t: 'empty' };
    return items.length === 1 ? items[0] : { t: 'seq', items };
  }

  private parseQuantifiers(atom: Node): Node {
    let node = atom;
    for (;;) {
      this.skipExtended();
      if (node.t === 'quant' && '*+?'.includes(this.peek()) && !this.eof()) {
        throw invalidRegex(`quantifier does not follow a repeatable item at offset ${this.pos}`);
      }
      const q = this.readQuantifier();
      if (!q) return node;
      if (node.t === 'empty') throw invalidRegex(`quantifier does not follow a repeatable item at offset ${this.pos}`);
      let mode: 'greedy' | 'lazy' | 'possessive' = 'greedy';
      if (this.peek() === '?') {
        mode = 'lazy';
        this.pos++;
      } else if (this.peek() === '+') {
        mode = 'possessive';
        this.pos++;
      }
      node = { t: 'quant', body: node, min: q.min, max: q.max, mode };
    }
  }

  private readQuantifier(): { min: number; max: number } | null {
    const ch = this.peek();
    if (ch === '*') return (this.pos++, { min: 0, max: Infinity });
    if (ch === '+') return (this.pos++, { min: 1, max: Infinity });
    if (ch === '?') return (this.pos++, { min: 0, max: 1 });
    if (ch !== '{') return null;
    // {n}, {n,}, {n,m}; anything else is a literal '{' in PCRE.
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos, this.pos + 24));
    if (!m) return null;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    if (min > 65535 || (max !== Infinity && max > 65535))
      throw invalidRegex(`number too big in {} quantifier at offset ${this.pos}`);
    if (max < min) throw invalidRegex(`numbers out of order in {} quantifier at offset ${this.pos}`);
    this.pos += m[0].length;
    return { min, max };
  }

  private charNode(cp: number): Node {
    return { t: 'char', cp, i: this.flags.i };
  }

  private parseAtom(): Node | null {
    const ch = this.peek();
    switch (ch) {
      case '(':
        return this.parseGroup();
      case '[':
        return this.parseClass();
      case '.':
        this.pos++;
        return { t: 'any', s: this.flags.s };
      case '^':
        this.pos++;
        return { t: 'assert', kind: this.flags.m ? 'mbol' : 'bol' };
      case '$':
        this.pos++;
        return { t: 'assert', kind: this.flags.m ? 'meol' : 'eol' };
      case '\\':
        return this.parseEscape();
      case '*':
      case '+':
      case '?':
        throw invalidRegex(`quantifier does not follow a repeatable item at offset ${this.pos}`);
      case '{':
        if (this.readQuantifierPeek())
          throw invalidRegex(`quantifier does not follow a repeatable item at offset ${this.pos}`);
        break;
    }
    const cp = this.src.codePointAt(this.pos)!;
    this.pos += cp > 0xffff ? 2 : 1;
    return this.charNode(cp);
  }

  private readQuantifierPeek(): boolean {
    return /^\{\d+(,\d*)?\}/.test(this.src.slice(this.pos, this.pos + 24));
  }

  private parseGroup(): Node | null {
    const start = this.pos;
    this.pos++; // (
    if (this.peek() === '*') return this.parseVerb(start);
    let kind: 'capture' | 'plain' | 'atomic' | 'look' = 'capture';
    let behind = false;
    let negated = false;
    let name: string | undefined;
    if (this.peek() === '?') {
      this.pos++;
      const c = this.peek();
      if (c === '#') {
        this.pos = start;
        this.skipComment();
        return null;
      }
      if (c === ':') {
        kind = 'plain';
        this.pos++;
      } else if (c === '>') {
        kind = 'atomic';
        this.pos++;
      } else if (c === '=' || c === '!') {
        kind = 'look';
        negated = c === '!';
        this.pos++;
      } else if (c === '<' && (this.peek(1) === '=' || this.peek(1) === '!')) {
        kind = 'look';
        behind = true;
        negated = this.peek(1) === '!';
        this.pos += 2;
      } else if (c === '<' || c === "'" || (c === 'P' && this.peek(1) === '<')) {
        if (c === 'P') this.pos++;
        const close = this.peek() === "'" ? "'" : '>';
        this.pos++;
        name = this.readName(close);
      } else if (c === 'P' && this.peek(1) === '=') {
        this.pos += 2;
        const refName = this.readName(')');
        return this.backref(0, refName);
      } else if (c === 'P' && this.peek(1) === '>') {
        throw unsupported('recursion');
      } else if (c === '|') {
        throw unsupported('a branch reset group');
      } else if (c === '(') {
        throw unsupported('a conditional group');
      } else if (c === 'R' || (/[0-9+&-]/.test(c) && this.isRecursion())) {
        throw unsupported('recursion');
      } else if (c === 'C') {
        throw unsupported('a callout');
      } else {
        return this.parseInlineFlags(start);
      }
    }
    const saved = { ...this.flags };
    let index = 0;
    if (kind === 'capture') {
      index = ++this.groupCount;
      if (name !== undefined) {
        if (this.names.has(name)) throw invalidRegex(`two named subpatterns have the same name at offset ${start}`);
        this.names.set(name, index);
      }
    }
    if (kind === 'look' && behind) this.lookbehindDepth++;
    const body = this.parseAlternation();
    if (kind === 'look' && behind) this.lookbehindDepth--;
    if (this.peek() !== ')') throw invalidRegex(`missing closing parenthesis at offset ${this.src.length}`);
    this.pos++;
    this.flags = saved;
    if (kind === 'look') {
      if (behind) checkLookbehind(body, start);
      return { t: 'look', behind, negated, body };
    }
    return { t: 'group', kind, index, body };
  }

  private isRecursion(): boolean {
    // (?1), (?-1), (?+1), (?&name) are subroutine calls; (?-i) is a flag change.
    const rest = this.src.slice(this.pos);
    return /^(?:[0-9]+|[+-][0-9]+|&\w+)\)/.test(rest);
  }

  private readName(close: string): string {
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.src.slice(this.pos));
    if (!m || this.src[this.pos + m[0].length] !== close)
      throw invalidRegex(`syntax error in subpattern name (missing terminator?) at offset ${this.pos}`);
    this.pos += m[0].length + 1;
    return m[0];
  }

  /** (?imsx-imsx) for the rest of the group, or (?imsx-imsx:...) for its body. */
  private parseInlineFlags(start: number): Node | null {
    const m = /^([imsxnUJ]*)(?:-([imsxnUJ]*))?([:)])/.exec(this.src.slice(this.pos));
    if (!m) throw invalidRegex(`unrecognized character after (? or (?- at offset ${this.pos}`);
    const set = m[1];
    const clear = m[2] ?? '';
    if (/[nUJ]/.test(set + clear)) throw unsupported(`the inline option (?${set}${clear ? '-' + clear : ''})`);
    this.pos += m[0].length;
    const apply = (flags: Flags): Flags => {
      const next = { ...flags };
      for (const f of set) next[f as keyof Flags] = true;
      for (const f of clear) next[f as keyof Flags] = false;
      return next;
    };
    if (m[3] === ')') {
      this.flags = apply(this.flags);
      return null;
    }
    const saved = this.flags;
    this.flags = apply(saved);
    const body = this.parseAlternation();
    if (this.peek() !== ')') throw invalidRegex(`missing closing parenthesis at offset ${start}`);
    this.pos++;
    this.flags = saved;
    return { t: 'group', kind: 'plain', index: 0, body };
  }

  private backref(index: number, name?: string): Node {
    if (this.lookbehindDepth > 0) throw invalidRegex('lookbehind assertion is not fixed length');
    const node: Extract<Node, { t: 'backref' }> = { t: 'backref', index, i: this.flags.i };
    this.backrefs.push({ node, name });
    return node;
  }

  private parseEscape(): Node {
    const start = this.pos;
    this.pos++; // backslash
    if (this.eof()) throw invalidRegex(`\\ at end of pattern at offset ${start}`);
    const c = this.peek();
    this.pos++;
    switch (c) {
      case 'A':
        return { t: 'assert', kind: 'A' };
      case 'z':
        return { t: 'assert', kind: 'z' };
      case 'Z':
        return { t: 'assert', kind: 'Z' };
      case 'G':
        return { t: 'assert', kind: 'A' }; // the start of the (only) match attempt
      case 'b':
      case 'B':
        // Under (*UCP) a word boundary is between Unicode word characters: not written yet.
        if (this.ucp) throw unsupported(`\\${c} under (*UCP)`);
        return { t: 'assert', kind: c };
      case 'Q': {
        const end = this.src.indexOf('\\E', this.pos);
        const text = this.src.slice(this.pos, end < 0 ? undefined : end);
        this.pos = end < 0 ? this.src.length : end + 2;
        const items = [...text].map((s) => this.charNode(s.codePointAt(0)!));
        return items.length === 0
          ? { t: 'empty' }
          : items.length === 1
            ? items[0]
            : { t: 'group', kind: 'plain', index: 0, body: { t: 'seq', items } };
      }
      case 'E':
        return { t: 'empty' };
      case 'N':
        return { t: 'set', ranges: [[0x0a, 0x0a]], props: [], negated: true, i: false };
      case 'R': {
        const single: Node = { t: 'set', ranges: VSPACE, props: [], negated: false, i: false };
        const crlf: Node = { t: 'seq', items: [this.rawChar(0x0d), this.rawChar(0x0a)] };
        return { t: 'group', kind: 'atomic', index: 0, body: { t: 'alt', alts: [crlf, single] } };
      }
      case 'K':
        throw unsupported('\\K');
      case 'X':
        throw unsupported('\\X');
      case 'C':
        throw unsupported('\\C');
      case 'g':
        return this.parseGReference(start);
      case 'k': {
        const open = this.peek();
        const close = open === '<' ? '>' : open === "'" ? "'" : open === '{' ? '}' : '';
        if (!close)
          throw invalidRegex(`\\k is not followed by a braced, angle-bracketed, or quoted name at offset ${start}`);
        this.pos++;
        return this.backref(0, this.readName(close));
      }
    }
    if (c >= '1' && c <= '9') {
      this.pos--;
      const digits = /^\d+/.exec(this.src.slice(this.pos))![0];
      const n = Number(digits);
      if (n < 10 || n <= this.totalGroups) {
        this.pos += digits.length;
        return this.backref(n);
      }
      // Not a group number: up to three octal digits, else the digits are literal.
      const oct = /^[0-7]{1,3}/.exec(digits);
      if (oct) {
        this.pos += oct[0].length;
        return this.charNode(parseInt(oct[0], 8));
      }
      this.pos += 1;
      return this.charNode(c.charCodeAt(0));
    }
    const set = this.classEscape(c, start);
    if (set) return { t: 'set', ranges: set.ranges, props: set.props, negated: set.negated, i: this.flags.i };
    return this.charNode(this.charEscape(c, start));
  }

  private rawChar(cp: number): Node {
    return { t: 'char', cp, i: false };
  }

  private parseGReference(start: number): Node {
    const m = /^(?:\{(-?\d+|[A-Za-z_]\w*)\}|(-?\d+)|<([^>]*)>|'([^']*)')/.exec(this.src.slice(this.pos));
    if (!m) throw invalidRegex(`a numbered reference must not be zero at offset ${start}`);
    this.pos += m[0].length;
    if (m[3] !== undefined || m[4] !== undefined) throw unsupported('a subroutine call');
    const ref = m[1] ?? m[2];
    if (/^-?\d+$/.test(ref)) {
      let n = Number(ref);
      if (n === 0) throw invalidRegex(`a numbered reference must not be zero at offset ${start}`);
      if (n < 0) n = this.groupCount + 1 + n;
      if (n <= 0) throw invalidRegex(`reference to non-existent subpattern at offset ${start}`);
      return this.backref(n);
    }
    return this.backref(0, ref);
  }

  /** \d \w \s \h \v \p{..} and their negations, as sets; undefined for other escapes. */
  private classEscape(c: string, start: number): { ranges: Ranges; props: Prop[]; negated: boolean } | undefined {
    if (this.ucp && 'dDwWsS'.includes(c)) {
      const set = UCP_CLASSES[c.toLowerCase()];
      return { ranges: set.ranges, props: set.props, negated: c !== c.toLowerCase() };
    }
    switch (c) {
      case 'd':
        return { ranges: DIGIT, props: [], negated: false };
      case 'D':
        return { ranges: DIGIT, props: [], negated: true };
      case 'w':
        return { ranges: WORD, props: [], negated: false };
      case 'W':
        return { ranges: WORD, props: [], negated: true };
      case 's':
        return { ranges: SPACE, props: [], negated: false };
      case 'S':
        return { ranges: SPACE, props: [], negated: true };
      case 'h':
        return { ranges: HSPACE, props: [], negated: false };
      case 'H':
        return { ranges: HSPACE, props: [], negated: true };
      case 'v':
        return { ranges: VSPACE, props: [], negated: false };
      case 'V':
        return { ranges: VSPACE, props: [], negated: true };
      case 'p':
      case 'P': {
        let name: string;
        if (this.peek() === '{') {
          const end = this.src.indexOf('}', this.pos);
          if (end < 0) throw invalidRegex(`malformed \\P or \\p sequence at offset ${start}`);
          name = this.src.slice(this.pos + 1, end);
          this.pos = end + 1;
        } else {
          name = this.peek();
          this.pos++;
        }
        let negated = c === 'P';
        if (name.startsWith('^')) {
          negated = !negated;
          name = name.slice(1);
        }
        name = name.replace(/[\s_-]/g, '');
        if (name === 'Any') return { ranges: [[0, MAX_CP]], props: [], negated };
        // PCRE2's own properties, unions of categories (pcre2pattern "PCRE2 special category properties").
        const special = SPECIAL_PROPERTIES[name];
        if (special) return { ranges: special.ranges, props: special.props, negated };
        if (name === 'L&' || name === 'LC')
          return { ranges: [], props: [{ name: 'LC', script: false, negated: false }], negated };
        const script = !CATEGORIES.has(name);
        if (script && !/^[A-Z][A-Za-z]+$/.test(name))
          throw invalidRegex(`unknown property name after \\P or \\p at offset ${start}`);
        return { ranges: [], props: [{ name, script, negated: false }], negated };
      }
    }
    return undefined;
  }

  /** A single-character escape: \n, \x41, \x{263a}, \o{101}, \0, \cA, \. ... */
  private charEscape(c: string, start: number): number {
    switch (c) {
      case 'a':
        return 0x07;
      case 'e':
        return 0x1b;
      case 'f':
        return 0x0c;
      case 'n':
        return 0x0a;
      case 'r':
        return 0x0d;
      case 't':
        return 0x09;
      case '0': {
        const m = /^[0-7]{0,2}/.exec(this.src.slice(this.pos))![0];
        this.pos += m.length;
        return parseInt('0' + m, 8);
      }
      case 'o': {
        const m = /^\{([0-7]+)\}/.exec(this.src.slice(this.pos));
        if (!m) throw invalidRegex(`missing opening brace after \\o at offset ${start}`);
        this.pos += m[0].length;
        return this.checkCodePoint(parseInt(m[1], 8), start);
      }
      case 'x': {
        const braced = /^\{([0-9A-Fa-f]+)\}/.exec(this.src.slice(this.pos));
        if (braced) {
          this.pos += braced[0].length;
          return this.checkCodePoint(parseInt(braced[1], 16), start);
        }
        const m = /^[0-9A-Fa-f]{0,2}/.exec(this.src.slice(this.pos))![0];
        this.pos += m.length;
        return m ? parseInt(m, 16) : 0;
      }
      case 'c': {
        const next = this.peek();
        if (!next || next.charCodeAt(0) > 127)
          throw invalidRegex(`\\c must be followed by a printable ASCII character at offset ${start}`);
        this.pos++;
        return next.toUpperCase().charCodeAt(0) ^ 0x40;
      }
    }
    // PCRE2 refuses an unknown escaped letter or digit; other characters stand for themselves.
    if (/[A-Za-z0-9]/.test(c)) throw invalidRegex(`unrecognized character follows \\ at offset ${start + 1}`);
    const cp = this.src.codePointAt(this.pos - 1)!;
    if (cp > 0xffff) this.pos++;
    return cp;
  }

  private checkCodePoint(cp: number, start: number): number {
    if (cp > MAX_CP) throw invalidRegex(`character code point value in \\x{} or \\o{} is too large at offset ${start}`);
    if (cp >= 0xd800 && cp <= 0xdfff)
      throw invalidRegex(`disallowed Unicode code point (>= 0xd800 && <= 0xdfff) at offset ${start}`);
    return cp;
  }

  private parseClass(): Node {
    const start = this.pos;
    this.pos++; // [
    let negated = false;
    if (this.peek() === '^') {
      negated = true;
      this.pos++;
    }
    const ranges: Ranges = [];
    const props: Prop[] = [];
    let first = true;
    for (;;) {
      if (this.eof()) throw invalidRegex(`missing terminating ] for character class at offset ${this.src.length}`);
      const c = this.peek();
      if (c === ']' && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (c === '[' && this.peek(1) === ':') {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(this.src.slice(this.pos));
        if (m) {
          const set = POSIX[m[2]];
          if (!set) throw invalidRegex(`unknown POSIX class name at offset ${this.pos}`);
          const unicode = this.ucp ? UCP_POSIX[m[2]] : undefined;
          if (unicode) {
            if (m[1]) throw unsupported('a negated POSIX class under (*UCP)');
            ranges.push(...unicode.ranges);
            props.push(...unicode.props);
            this.pos += m[0].length;
            continue;
          }
          ranges.push(...(m[1] ? complementRanges(set) : set));
          this.pos += m[0].length;
          continue;
        }
      }
      if (
        c === '[' &&
        (this.peek(1) === '.' || this.peek(1) === '=') &&
        /^\[([.=]).*?\1\]/.test(this.src.slice(this.pos))
      ) {
        throw invalidRegex(`POSIX collating elements are not supported at offset ${this.pos}`);
      }
      let lo: number;
      if (c === '\\') {
        const escStart = this.pos;
        this.pos++;
        const e = this.peek();
        this.pos++;
        const set = this.classEscape(e, escStart);
        if (set) {
          if (set.negated) {
            // The complement of a union is no union of complements: only one part can be flipped.
            if (set.props.length > 1 || (set.props.length > 0 && set.ranges.length > 0))
              throw unsupported('a negated Unicode class of several properties inside [...]');
            if (set.props.length) props.push(...set.props.map((p) => ({ ...p, negated: !p.negated })));
            else ranges.push(...complementRanges(set.ranges));
          } else {
            ranges.push(...set.ranges);
            props.push(...set.props);
          }
          continue;
        }
        if (e === 'b') lo = 0x08;
        else if (e === 'Q') {
          const end = this.src.indexOf('\\E', this.pos);
          const text = this.src.slice(this.pos, end < 0 ? undefined : end);
          this.pos = end < 0 ? this.src.length : end + 2;
          for (const s of text) ranges.push([s.codePointAt(0)!, s.codePointAt(0)!]);
          continue;
        } else if (e === 'E') continue;
        else if (e === 'N' || e === 'R' || e === 'X')
          throw invalidRegex(`escape sequence is invalid in character class at offset ${escStart + 1}`);
        else lo = this.charEscape(e, escStart);
      } else {
        lo = this.src.codePointAt(this.pos)!;
        this.pos += lo > 0xffff ? 2 : 1;
      }
      // A range lo-hi, unless '-' is last or followed by a class escape.
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== '') {
        const save = this.pos;
        this.pos++;
        let hi: number | undefined;
        if (this.peek() === '\\') {
          const escStart = this.pos;
          this.pos++;
          const e = this.peek();
          this.pos++;
          if (this.classEscape(e, escStart) || e === 'Q' || e === 'E') {
            throw invalidRegex(`invalid range in character class at offset ${escStart + 1}`);
          }
          hi = e === 'b' ? 0x08 : this.charEscape(e, escStart);
        } else if (this.peek() === '[' && this.peek(1) === ':') {
          throw invalidRegex(`invalid range in character class at offset ${this.pos}`);
        } else {
          hi = this.src.codePointAt(this.pos)!;
          this.pos += hi > 0xffff ? 2 : 1;
        }
        if (hi === undefined) this.pos = save;
        else {
          if (hi < lo) throw invalidRegex(`range out of order in character class at offset ${this.pos - 1}`);
          ranges.push([lo, hi]);
          continue;
        }
      }
      ranges.push([lo, lo]);
    }
    void start;
    return { t: 'set', ranges: normalizeRanges(ranges), props, negated, i: this.flags.i };
  }
}

/** PCRE needs every top-level branch of a lookbehind to have a fixed length. */
function checkLookbehind(body: Node, start: number): void {
  const branches = body.t === 'alt' ? body.alts : [body];
  for (const b of branches) {
    const w = widths(b);
    if (w.min !== w.max) throw invalidRegex(`lookbehind assertion is not fixed length at offset ${start}`);
  }
}

/** Minimum and maximum number of code points a node consumes (Infinity when unbounded). */
export function widths(node: Node): { min: number; max: number } {
  switch (node.t) {
    case 'empty':
    case 'assert':
    case 'look':
      return { min: 0, max: 0 };
    case 'char':
    case 'set':
    case 'any':
      return { min: 1, max: 1 };
    case 'backref':
      return { min: 0, max: Infinity };
    case 'group':
      return widths(node.body);
    case 'seq': {
      let min = 0;
      let max = 0;
      for (const item of node.items) {
        const w = widths(item);
        min += w.min;
        max += w.max;
      }
      return { min, max };
    }
    case 'alt': {
      let min = Infinity;
      let max = 0;
      for (const a of node.alts) {
        const w = widths(a);
        min = Math.min(min, w.min);
        max = Math.max(max, w.max);
      }
      return { min, max };
    }
    case 'quant': {
      const w = widths(node.body);
      return { min: w.min * node.min, max: node.max === 0 ? 0 : w.max * node.max };
    }
  }
}

/** Capturing groups in the whole pattern (for telling \10 the backreference from \10 the octal). */
function countCapturingGroups(src: string): number {
  let n = 0;
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      if (src[i + 1] === '^') i++;
      if (src[i + 1] === ']') i++;
      continue;
    }
    if (c === '(') {
      if (src[i + 1] !== '?') n++;
      else if (/^\(\?(?:<[A-Za-z_]|'|P<)/.test(src.slice(i, i + 4))) n++;
    }
  }
  return n;
}
