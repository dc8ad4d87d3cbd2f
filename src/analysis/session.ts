/**
 * Incremental re-analysis of one document while it is edited. A whole-file parse of 10,000 lines
 * costs more than the time a keystroke may take, so a session keeps the last text's tree as its
 * top-level statements, each with its own facts (scan, definitions, syntax errors), and on an edit
 * parses again only the statements the edit touches. The rules that look across statements run
 * over the combined facts every time (they are cheap). The result is always the result
 * `analyzeText` gives for the new text; whenever that cannot be guaranteed the session parses the
 * whole text instead:
 *
 * - the re-parsed slice runs from the end of the untouched statement before the edit to the start
 *   of the untouched statement after it, parsed where it lies (babel's `startIndex`), and must
 *   parse without an unrecoverable error, with every syntax error inside its statements, and not
 *   end in a line comment (which would run on into the next statement);
 * - the statement before the slice may have no syntax error at its end (a missing semicolon
 *   depends on what follows), and no error may sit where a statement outside the slice touches
 *   one inside it: such statements are parsed again with the slice;
 * - at both seams the old and new statements must stay apart in a whole-file parse too: the
 *   statement before the seam ends with `;` or a block, or a line break separates a token that
 *   cannot continue an expression from one that cannot start a continuation (ASI). Otherwise the
 *   slice grows by a statement and is parsed again;
 * - a name declared at program scope by a re-parsed statement may not be declared by another one
 *   (a redeclaration is a syntax error only a whole-file parse sees);
 * - a slice may not begin with a directive or `#!` anywhere but at the start of the file.
 *
 * Trees parsed at different times keep their own positions: every re-parsed slice gets positions
 * after all earlier ones (virtual positions), and each statement knows what to add to its node
 * positions to find them in the current text (`Unit.offsetOf`). Definitions of untouched
 * statements are kept unless a name they looked up (a `const` they followed, a binding count)
 * now answers differently.
 */
import type { ClassDeclaration, Expression, Node, Statement } from '@babel/types';
import { analyzeText, checkDefinitions, mayDefineIndexes } from './analyze';
import { DefinitionFinder, type Definitions, type IndexDef } from './definitions';
import { importedValues } from './imports';
import type { ImportedValue } from './literals';
import { addBinding, scanStatement, type BindingEnv, type ImportBinding, type TreeScan } from './scan';
import { parseModule, sourceKindOf, type SourceKind, type Unit } from './source';
import type { AnalysisOptions, AnalysisResult } from './types';

/** One change of an editor event, in offsets of the text before it (VS Code's `TextDocumentContentChangeEvent`). */
export interface ContentChange {
  rangeOffset: number;
  rangeLength: number;
  text: string;
}

/** How the last `update` got its result (for tests and the benchmark). */
export interface UpdateInfo {
  mode: 'full' | 'incremental' | 'none';
  /** Why a whole-file parse was needed (mode `full`). */
  reason?: string;
  /** Top-level statements parsed again (mode `incremental`). */
  reparsed?: number;
  /** Statements whose definitions were found again (parsed again, or a name they read changed). */
  refound?: number;
}

interface StatementDefs {
  fromCalls: Definitions;
  /** Indexes of classes, loose option objects and typed declarations: each group follows all of the one before. */
  fromClasses: IndexDef[];
  fromLoose: IndexDef[];
  fromTyped: IndexDef[];
  /** Names whose bindings the definitions looked up. */
  reads: Set<string>;
}

interface StatementRecord {
  node: Statement;
  /** Added to the node positions of this statement's tree to get offsets in the current text. */
  shift: number;
  /** Syntax errors the parser recovered from, positioned in this statement. */
  errors: number;
  /**
   * Those of them at its very end, such as a missing semicolon: they may depend on what follows
   * (a line break in the gap after it ends the statement instead).
   */
  endErrors: number;
  /**
   * A syntax error lies where the statement before it ends and this one starts (no gap between
   * them): it may belong to either, so the two are only ever parsed again together.
   */
  sharedStart: boolean;
  scan: TreeScan;
  /** Names the statement declares at program scope or exports. */
  names: string[];
  defs: StatementDefs | undefined;
}

const MAX_SLICE_ATTEMPTS = 8;
/** Virtual positions of a new slice start this far after the last one (nothing is ever there). */
const VIRTUAL_GAP = 1;

const NONE = Symbol('unbound');
const MANY = Symbol('bound more than once');
const NO_CONST = Symbol('bound once, not by a const with an initializer');

class Incremental implements BindingEnv {
  records: StatementRecord[] = [];
  /** The same records, by the virtual position of their nodes. */
  private byPosition: StatementRecord[] = [];
  private readonly counts = new Map<string, number>();
  private readonly consts = new Map<string, Expression[]>();
  private readonly classes = new Map<string, ClassDeclaration[]>();
  private readonly imports = new Map<string, ImportBinding[]>();
  private readonly declared = new Map<string, number>();
  private nextVirtual: number;
  /** Names looked up by the definitions being found. */
  private reads: Set<string> | undefined;
  readonly unit: Unit;

  constructor(
    text: string,
    readonly kind: SourceKind,
    private readonly program: Node,
    statements: Statement[],
    errorPositions: number[],
  ) {
    this.unit = { text, base: 0, ast: undefined, syntaxErrors: 0, offsetOf: (p) => this.offsetOf(p) };
    this.nextVirtual = text.length + VIRTUAL_GAP;
    const records = statements.map((s) => this.record(s, 0));
    this.assignErrors(records, errorPositions);
    for (const r of records) this.add(r);
    this.records = records;
    this.byPosition = [...records];
  }

  /** Errors outside every statement (only a whole-file parse may judge those). */
  gapErrors = 0;

  private record(node: Statement, shift: number): StatementRecord {
    return {
      node,
      shift,
      errors: 0,
      endErrors: 0,
      sharedStart: false,
      scan: scanStatement(node, this.program),
      names: programScopeNames(node),
      defs: undefined,
    };
  }

  private assignErrors(records: StatementRecord[], positions: number[]): void {
    for (const p of positions) {
      const k = firstEndingAtOrAfter(records, p, (x) => x.node.end!);
      const r = records[k];
      if (r && r.node.start! <= p) {
        r.errors++;
        if (p === r.node.end) {
          r.endErrors++;
          const next = records[k + 1];
          if (next && next.node.start === p) next.sharedStart = true;
        }
      } else this.gapErrors++;
    }
  }

  // BindingEnv, over every statement; records what is read.
  bindingCount(name: string): number | undefined {
    this.reads?.add(name);
    return this.counts.get(name);
  }

  constInit(name: string): Expression | undefined {
    this.reads?.add(name);
    const list = this.consts.get(name);
    return list?.[list.length - 1];
  }

  classDeclaration(name: string): ClassDeclaration | undefined {
    this.reads?.add(name);
    const list = this.classes.get(name);
    return list?.[list.length - 1];
  }

  importOf(name: string): ImportBinding | undefined {
    this.reads?.add(name);
    const list = this.imports.get(name);
    return list?.[list.length - 1];
  }

  /** What the Evaluator can learn about a name: unbound, bound more than once, or its one binding. */
  private answer(name: string): unknown {
    const n = this.counts.get(name);
    if (n === undefined) return NONE;
    if (n !== 1) return MANY;
    return this.consts.get(name)?.[0] ?? this.classes.get(name)?.[0] ?? this.imports.get(name)?.[0] ?? NO_CONST;
  }

  private add(r: StatementRecord): void {
    for (const name of r.scan.bindings) this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
    for (const c of r.scan.consts) {
      const list = this.consts.get(c.name);
      if (list) list.push(c.init);
      else this.consts.set(c.name, [c.init]);
    }
    for (const c of r.scan.classes) {
      if (c.type !== 'ClassDeclaration' || !c.id) continue;
      const list = this.classes.get(c.id.name);
      if (list) list.push(c);
      else this.classes.set(c.id.name, [c]);
    }
    for (const i of r.scan.imports) {
      const list = this.imports.get(i.local);
      if (list) list.push(i);
      else this.imports.set(i.local, [i]);
    }
    for (const name of r.names) this.declared.set(name, (this.declared.get(name) ?? 0) + 1);
  }

  private remove(r: StatementRecord): void {
    for (const name of r.scan.bindings) {
      const n = this.counts.get(name)! - 1;
      if (n === 0) this.counts.delete(name);
      else this.counts.set(name, n);
    }
    for (const c of r.scan.consts) {
      const list = this.consts.get(c.name)!;
      list.splice(list.indexOf(c.init), 1);
      if (list.length === 0) this.consts.delete(c.name);
    }
    for (const c of r.scan.classes) {
      if (c.type !== 'ClassDeclaration' || !c.id) continue;
      const list = this.classes.get(c.id.name)!;
      list.splice(list.indexOf(c), 1);
      if (list.length === 0) this.classes.delete(c.id.name);
    }
    for (const i of r.scan.imports) {
      const list = this.imports.get(i.local)!;
      list.splice(list.indexOf(i), 1);
      if (list.length === 0) this.imports.delete(i.local);
    }
    for (const name of r.names) {
      const n = this.declared.get(name)! - 1;
      if (n === 0) this.declared.delete(name);
      else this.declared.set(name, n);
    }
  }

  /** Current text offset of a node position (any statement's tree). */
  offsetOf(position: number): number {
    const list = this.byPosition;
    let lo = 0;
    let hi = list.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (list[mid].node.start! <= position) lo = mid;
      else hi = mid - 1;
    }
    return position + (list[lo]?.shift ?? 0);
  }

  private start(r: StatementRecord): number {
    return r.node.start! + r.shift;
  }

  private end(r: StatementRecord): number {
    return r.node.end! + r.shift;
  }

  /**
   * Apply one edit (old text [from, to) replaced by `inserted` characters, giving `text`). Returns
   * how many statements were parsed again, or a reason why the whole text must be parsed.
   */
  edit(text: string, from: number, to: number, inserted: number): { reparsed: number } | { reason: string } {
    const records = this.records;
    const delta = inserted - (to - from);
    // Statements the edit touches, its ends included: typing right after `foo()` may continue it.
    let i = firstEndingAtOrAfter(records, from, (r) => this.end(r));
    let j = lastStartingAtOrBefore(records, to, (r) => this.start(r));
    if (j < i - 1) j = i - 1;
    for (let attempt = 0; attempt < MAX_SLICE_ATTEMPTS; attempt++) {
      const before = i > 0 ? records[i - 1] : undefined;
      const after = j + 1 < records.length ? records[j + 1] : undefined;
      if (before && (before.endErrors > 0 || records[i]?.sharedStart)) {
        // Its error may depend on what followed it, which the edit changes, or belong to the
        // first statement of the slice: parse it again too.
        i--;
        continue;
      }
      if (after && after.sharedStart) {
        j++;
        continue;
      }
      const sliceStart = before ? this.end(before) : 0;
      const sliceEnd = (after ? this.start(after) : text.length - delta) + delta;
      const slice = text.slice(sliceStart, sliceEnd);
      const virtual = this.nextVirtual;
      let ast;
      try {
        ast = parseModule(slice, this.kind, virtual);
      } catch {
        return { reason: 'the edited statements do not parse on their own' };
      }
      const program = ast.program;
      if (sliceStart > 0 && (program.directives.length > 0 || program.interpreter))
        return { reason: 'a directive or #! after the start of the file' };
      const shift = sliceStart - virtual;
      const statements = program.body;
      const first = statements[0];
      const last = statements[statements.length - 1];
      for (const e of ast.errors ?? []) {
        const p = (e as { loc?: { index: number } }).loc?.index;
        const holder = p === undefined ? undefined : statements[firstEndingAtOrAfter(statements, p, (x) => x.end!)];
        if (p === undefined || !holder || holder.start! > p)
          return { reason: 'a syntax error outside the edited statements' };
      }
      // A line comment that runs to the end of the slice runs on into the next statement in the
      // whole text (nothing but that statement's first token follows it).
      const comments = ast.comments ?? [];
      const lastComment = comments[comments.length - 1];
      if (after && lastComment && lastComment.type === 'CommentLine' && lastComment.end === virtual + slice.length) {
        j++;
        continue;
      }
      // The seams: old statement | new statements | old statement.
      const afterShift = after ? after.shift + delta : 0;
      if (before && !separate(text, before.node, before.shift, first ?? after?.node, first ? shift : afterShift)) {
        i--;
        continue;
      }
      if (after && !separate(text, last ?? before?.node, last ? shift : (before?.shift ?? 0), after.node, afterShift)) {
        j++;
        continue;
      }
      return this.commit(text, i, j, statements, shift, ast.errors ?? [], delta, virtual + slice.length + VIRTUAL_GAP);
    }
    return { reason: 'the edit reaches too many statements' };
  }

  private commit(
    text: string,
    i: number,
    j: number,
    statements: Statement[],
    shift: number,
    errors: unknown[],
    delta: number,
    nextVirtual: number,
  ): { reparsed: number } | { reason: string } {
    const removed = this.records.slice(i, j + 1);
    const added = statements.map((s) => this.record(s, shift));
    // A program-scope name of a replaced or new statement that another statement declares too:
    // the whole-file parse decides whether that is a redeclaration error.
    for (const r of removed) this.remove(r);
    const clash = [...removed, ...added].some((r) => r.names.some((n) => this.declared.has(n)));
    if (clash) {
      for (const r of removed) this.add(r);
      return { reason: 'a program-scope name declared by another statement too' };
    }
    for (const r of removed) this.add(r);
    this.assignErrors(
      added,
      errors.map((e) => (e as { loc: { index: number } }).loc.index),
    );

    const touched = new Set<string>();
    for (const r of [...removed, ...added]) {
      for (const n of r.scan.bindings) touched.add(n);
      for (const c of r.scan.consts) touched.add(c.name);
    }
    const answers = new Map<string, unknown>();
    for (const n of touched) answers.set(n, this.answer(n));
    for (const r of removed) this.remove(r);
    for (const r of added) this.add(r);
    const changed = [...touched].filter((n) => answers.get(n) !== this.answer(n));

    for (let k = j + 1; k < this.records.length; k++) this.records[k].shift += delta;
    // Rebuilt rather than spliced with spread arguments: an edit may replace every statement.
    this.records = [...this.records.slice(0, i), ...added, ...this.records.slice(j + 1)];
    const gone = new Set(removed);
    this.byPosition = [...this.byPosition.filter((r) => !gone.has(r)), ...added];
    this.nextVirtual = nextVirtual;
    this.unit.text = text;
    if (changed.length > 0) {
      for (const r of this.records) if (r.defs && changed.some((n) => r.defs!.reads.has(n))) r.defs = undefined;
    }
    return { reparsed: added.length };
  }

  /** Definitions of every statement (found again where needed), in `analyzeText`'s order. */
  definitions(imported?: ImportedValue): { defs: Definitions; refound: number; syntaxErrors: number } {
    let refound = 0;
    let syntaxErrors = 0;
    const defs: Definitions = { indexes: [], collections: [], collMods: [], inserts: [], splitOptions: [], slips: [] };
    const classes: IndexDef[] = [];
    const loose: IndexDef[] = [];
    const typed: IndexDef[] = [];
    for (const r of this.records) {
      if (!r.defs) {
        refound++;
        r.defs = this.find(r, imported);
      }
      syntaxErrors += r.errors;
      const d = r.defs.fromCalls;
      pushAll(defs.indexes, d.indexes);
      pushAll(defs.collections, d.collections);
      pushAll(defs.collMods, d.collMods);
      pushAll(defs.inserts, d.inserts);
      pushAll(defs.splitOptions, d.splitOptions);
      pushAll(defs.slips, d.slips);
      pushAll(classes, r.defs.fromClasses);
      pushAll(loose, r.defs.fromLoose);
      pushAll(typed, r.defs.fromTyped);
    }
    pushAll(defs.indexes, classes);
    pushAll(defs.indexes, loose);
    pushAll(defs.indexes, typed);
    return { defs, refound, syntaxErrors };
  }

  private find(r: StatementRecord, imported: ImportedValue | undefined): StatementDefs {
    const reads = new Set<string>();
    this.reads = reads;
    try {
      const finder = new DefinitionFinder(this.unit, r.scan, this, imported);
      const later = () => finder.out.indexes.length;
      finder.findInCalls();
      const calls = later();
      finder.findInClasses();
      const classes = later();
      finder.findLoose();
      const loose = later();
      finder.findInTyped();
      const fromTyped = finder.out.indexes.splice(loose);
      const fromLoose = finder.out.indexes.splice(classes);
      const fromClasses = finder.out.indexes.splice(calls);
      return { fromCalls: finder.out, fromClasses, fromLoose, fromTyped, reads };
    } finally {
      this.reads = undefined;
    }
  }
}

function pushAll<T>(into: T[], items: readonly T[]): void {
  for (let k = 0; k < items.length; k++) into.push(items[k]);
}

/** Index of the first record whose end is at or after `offset` (records.length if none). */
function firstEndingAtOrAfter<T>(records: readonly T[], offset: number, end: (r: T) => number): number {
  let lo = 0;
  let hi = records.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (end(records[mid]) >= offset) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Index of the last record whose start is at or before `offset` (-1 if none). */
function lastStartingAtOrBefore<T>(records: readonly T[], offset: number, start: (r: T) => number): number {
  let lo = -1;
  let hi = records.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (start(records[mid]) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// ---- Seams between statements ----

/** Words that, ending a statement, may take an operand from the next line (or begin a declaration). */
const OPEN_ENDS = new Set([
  'let',
  'const',
  'var',
  'await',
  'yield',
  'async',
  'type',
  'interface',
  'declare',
  'abstract',
  'namespace',
  'module',
  'global',
  'enum',
  'readonly',
  'accessor',
  'static',
  'get',
  'set',
  'of',
  'in',
  'instanceof',
  'new',
  'typeof',
  'void',
  'delete',
  'return',
  'throw',
  'break',
  'continue',
  'else',
  'do',
  'case',
  'default',
  'export',
  'import',
  'function',
  'class',
  'extends',
  'implements',
  'as',
  'satisfies',
  'keyof',
  'unique',
  'infer',
  'is',
  'asserts',
  'from',
  'with',
  'if',
  'for',
  'while',
  'switch',
  'try',
  'catch',
  'finally',
  'public',
  'private',
  'protected',
  'override',
  'out',
  'using',
  'debugger',
  'package',
]);

/** Words that, starting a line, may continue the statement before it. */
const CONTINUING_STARTS = new Set([
  'in',
  'instanceof',
  'as',
  'satisfies',
  'of',
  'extends',
  'implements',
  'from',
  'else',
  'catch',
  'finally',
  'while',
  'is',
  'keyof',
]);

function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Whether a statement's last token ends it whatever follows: `;`, or the `}` of a block it ends with. */
function closes(text: string, node: Node, shift: number): boolean {
  const last = text.charCodeAt(node.end! + shift - 1);
  if (last === 59 /* ; */) return true;
  switch (node.type) {
    case 'FunctionDeclaration':
    case 'ClassDeclaration':
    case 'BlockStatement':
    case 'TryStatement':
    case 'SwitchStatement':
    case 'TSInterfaceDeclaration':
    case 'TSEnumDeclaration':
    case 'TSModuleDeclaration':
      return last === 125; /* } */
    case 'ExportNamedDeclaration':
    case 'ExportDefaultDeclaration': {
      const d = node.declaration;
      if (!d) return last === 125;
      return (
        (d.type === 'FunctionDeclaration' ||
          d.type === 'ClassDeclaration' ||
          d.type === 'TSInterfaceDeclaration' ||
          d.type === 'TSEnumDeclaration' ||
          d.type === 'TSModuleDeclaration') &&
        last === 125
      );
    }
    case 'IfStatement':
      return closes(text, node.alternate ?? node.consequent, shift);
    case 'ForStatement':
    case 'ForInStatement':
    case 'ForOfStatement':
    case 'WhileStatement':
    case 'LabeledStatement':
    case 'WithStatement':
      return closes(text, node.body, shift);
  }
  return false;
}

function wordBefore(text: string, end: number): string {
  let s = end;
  while (s > 0 && isWordChar(text.charCodeAt(s - 1))) s--;
  return text.slice(s, end);
}

function wordAt(text: string, start: number): string {
  let e = start;
  while (e < text.length && isWordChar(text.charCodeAt(e))) e++;
  return text.slice(start, e);
}

/**
 * Whether a whole-file parse keeps `prev` and `next` (adjacent top-level statements, positions
 * shifted into `text`) apart: `prev` closes, or automatic semicolon insertion must end it.
 */
function separate(
  text: string,
  prev: Node | undefined,
  prevShift: number,
  next: Node | undefined,
  nextShift: number,
): boolean {
  if (!prev || !next) return true;
  if (closes(text, prev, prevShift)) return true;
  const end = prev.end! + prevShift;
  const start = next.start! + nextShift;
  let lineBreak = false;
  for (let k = end; k < start && !lineBreak; k++) {
    const c = text.charCodeAt(k);
    lineBreak = c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
  }
  if (!lineBreak) return false;
  const last = text.charCodeAt(end - 1);
  const endsOk =
    last === 41 /* ) */ ||
    last === 93 /* ] */ ||
    last === 125 /* } */ ||
    last === 39 /* ' */ ||
    last === 34 /* " */ ||
    last === 96 /* ` */ ||
    (isWordChar(last) && !OPEN_ENDS.has(wordBefore(text, end)));
  if (!endsOk) return false;
  const first = text.charCodeAt(start);
  if (first === 39 || first === 34 || first === 59 /* ; */ || isDigit(first)) return true;
  return isWordChar(first) && !CONTINUING_STARTS.has(wordAt(text, start));
}

// ---- Program-scope names ----

function nameOf(node: Node | null | undefined): string | undefined {
  if (!node) return undefined;
  if (node.type === 'Identifier') return node.name;
  if (node.type === 'StringLiteral') return node.value;
  return undefined;
}

/**
 * Names a top-level statement declares at program scope (its declarations, `var`s in its blocks,
 * imports) or exports: more than babel's redeclaration checks look at, never less.
 */
export function programScopeNames(statement: Statement): string[] {
  const out: string[] = [];
  const declaration = (node: Node | null | undefined, top: boolean): void => {
    if (!node) return;
    switch (node.type) {
      case 'VariableDeclaration':
        if (top || node.kind === 'var') for (const d of node.declarations) addBinding(out, d.id);
        return;
      case 'FunctionDeclaration':
      case 'ClassDeclaration':
      case 'TSDeclareFunction':
      case 'TSEnumDeclaration':
      case 'TSModuleDeclaration':
      case 'TSInterfaceDeclaration':
      case 'TSTypeAliasDeclaration':
      case 'TSImportEqualsDeclaration': {
        const name = nameOf((node as { id?: Node | null }).id);
        if (name !== undefined) out.push(name);
        return;
      }
      case 'ImportDeclaration':
        for (const s of node.specifiers) out.push(s.local.name);
        return;
      case 'ExportNamedDeclaration':
        declaration(node.declaration, true);
        for (const s of node.specifiers) {
          const exported = nameOf(s.exported);
          if (exported !== undefined) out.push(exported);
        }
        return;
      case 'ExportDefaultDeclaration':
        out.push('default');
        declaration(node.declaration, true);
        return;
      case 'ExportAllDeclaration':
        out.push('*');
        return;
      case 'TSExportAssignment':
        out.push('export =');
        return;
      // Blocks (and loop heads) have their own scope for let/const/class; their `var`s belong to
      // the program scope. A statement that is not a block (a label's, an if's or a loop's body)
      // declares in the scope it is in.
      case 'BlockStatement':
        for (const s of node.body) declaration(s, false);
        return;
      case 'IfStatement':
        declaration(node.consequent, top);
        declaration(node.alternate, top);
        return;
      case 'ForStatement':
        declaration(node.init, false);
        declaration(node.body, top);
        return;
      case 'ForInStatement':
      case 'ForOfStatement':
        declaration(node.left, false);
        declaration(node.body, top);
        return;
      case 'WhileStatement':
      case 'DoWhileStatement':
      case 'LabeledStatement':
      case 'WithStatement':
        declaration(node.body, top);
        return;
      case 'TryStatement':
        declaration(node.block, false);
        declaration(node.handler?.body, false);
        declaration(node.finalizer, false);
        return;
      case 'SwitchStatement':
        for (const c of node.cases) for (const s of c.consequent) declaration(s, false);
        return;
    }
  };
  declaration(statement, true);
  return out;
}

// ---- The session ----

/**
 * Analysis of one document across its edits. `update` returns exactly what `analyzeText` returns
 * for the new text, re-parsing only what the edit touched when it can.
 */
export class AnalysisSession {
  private text: string | undefined;
  private state: Incremental | undefined;
  private readonly kind: SourceKind | undefined;
  /** How the last update was done. */
  lastUpdate: UpdateInfo = { mode: 'none' };

  constructor(private readonly fileNameOrLanguage: string) {
    this.kind = sourceKindOf(fileNameOrLanguage);
  }

  /**
   * Analyse the document's new text. `changes` (the content changes of the editor events since
   * the last update, in order) spare comparing the texts; without them the changed range is
   * found by comparing the old and new text.
   */
  update(text: string, options: AnalysisOptions = {}, changes?: readonly ContentChange[]): AnalysisResult {
    const previous = this.text;
    this.text = text;
    if (!this.kind || this.kind === 'ttlbook' || !mayDefineIndexes(text)) {
      // Nothing to keep: .ttlbook files are small and parsed cell by cell; texts without a
      // definition word are not parsed at all.
      this.state = undefined;
      this.lastUpdate = { mode: 'full', reason: 'not kept' };
      return analyzeText(text, this.fileNameOrLanguage, options);
    }
    const state = this.state;
    if (state && previous !== undefined) {
      const range = changedRange(previous, text, changes);
      const outcome = range ? state.edit(text, range.from, range.to, range.inserted) : { reparsed: 0 };
      if ('reparsed' in outcome) {
        const { defs, refound, syntaxErrors } = state.definitions(importedValues(options.imports));
        this.lastUpdate = { mode: 'incremental', reparsed: outcome.reparsed, refound };
        return checkDefinitions(defs, options, syntaxErrors);
      }
      this.lastUpdate = { mode: 'full', reason: outcome.reason };
    } else {
      this.lastUpdate = { mode: 'full', reason: 'no tree kept from the last text' };
    }
    return this.full(text, options);
  }

  private full(text: string, options: AnalysisOptions): AnalysisResult {
    this.state = undefined;
    let ast;
    try {
      ast = parseModule(text, this.kind!);
    } catch {
      // Unrecoverable errors: analyzeText's retries on shorter texts decide; nothing is kept.
      this.lastUpdate = { mode: 'full', reason: `${this.lastUpdate.reason ?? ''}; whole text does not parse` };
      return analyzeText(text, this.fileNameOrLanguage, options);
    }
    const errors = (ast.errors ?? []).map((e) => (e as { loc: { index: number } }).loc.index);
    const state = new Incremental(text, this.kind!, ast.program, ast.program.body, errors);
    const { defs } = state.definitions(importedValues(options.imports));
    // Errors between statements would have to be placed after an edit: keep nothing then.
    if (state.gapErrors === 0) this.state = state;
    return checkDefinitions(defs, options, errors.length);
  }
}

/** The one range the changes replaced, in offsets of the old text; undefined when nothing changed. */
function changedRange(
  before: string,
  after: string,
  changes: readonly ContentChange[] | undefined,
): { from: number; to: number; inserted: number } | undefined {
  if (changes && changes.length === 1) {
    const c = changes[0];
    if (
      c.rangeOffset >= 0 &&
      c.rangeOffset + c.rangeLength <= before.length &&
      before.length - c.rangeLength + c.text.length === after.length
    ) {
      return { from: c.rangeOffset, to: c.rangeOffset + c.rangeLength, inserted: c.text.length };
    }
  }
  if (before === after) return undefined;
  const max = Math.min(before.length, after.length);
  let prefix = 0;
  while (prefix < max && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (
    suffix < max - prefix &&
    before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)
  )
    suffix++;
  return { from: prefix, to: before.length - suffix, inserted: after.length - suffix - prefix };
}
