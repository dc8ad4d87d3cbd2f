/**
 * Reading argument expressions as values without running anything: literals, object and array
 * literals, arithmetic on numbers (`60 * 60 * 24`), `NaN`, BSON constructors (`NumberLong`,
 * `Decimal128.fromString`), dates (`new Date()`, `ISODate()`), and simple `const` bindings of the
 * same unit (a name bound exactly once, by `const`, with an initializer). Anything else is
 * `unknown`, and a check that meets `unknown` says nothing rather than guess.
 */
import type { Expression, Node, ObjectExpression } from '@babel/types';
import { Decimal128, Double, Int32, Long } from 'bson';
import type { BindingEnv, ImportBinding } from './scan';

export type LitType = 'number' | 'string' | 'date' | 'bool' | 'other';

interface LitBase {
  /** The expression at the use site (what a diagnostic underlines). */
  at: Node;
  /** The expression the value was read from (after following a const; what a fix edits). */
  node: Node;
}

export type Lit =
  | (LitBase & { kind: 'value'; value: unknown })
  | (LitBase & { kind: 'object'; props: Prop[]; complete: boolean })
  | (LitBase & { kind: 'array'; items: Lit[]; complete: boolean })
  /**
   * A value whose BSON type is known but not its value (`Date.now()`, `new Date()`). `env`: the
   * variable of a `process.env.NAME` read, a string or undefined at run time; `fallback`: what
   * `process.env.NAME || fallback` gives when it is not set (UNKNOWN when not literal).
   */
  | (LitBase & { kind: 'typed'; type: LitType; date?: Date; env?: string; fallback?: unknown })
  | (LitBase & { kind: 'unknown' });

export interface Prop {
  key: string;
  keyNode: Node;
  /** The whole property (`key: value`), for edits that remove it. */
  node: Node;
  value: Lit;
}

export const UNKNOWN: unique symbol = Symbol('unknown');

const BSON_NUMBER_CTORS: Record<string, (v: unknown) => unknown> = {
  NumberInt: (v) => new Int32(Number(v)),
  Int32: (v) => new Int32(Number(v)),
  NumberLong: (v) => Long.fromString(String(v)),
  Long: (v) => Long.fromString(String(v)),
  Double: (v) => new Double(Number(v)),
  NumberDecimal: (v) => Decimal128.fromString(String(v)),
  Decimal128: (v) => Decimal128.fromString(String(v)),
};

const MAX_DEPTH = 20;

// Literal makers (plain functions, not closures per evaluation: arguments of thousands of calls are read).
function unknownLit(at: Node, node: Node): Lit {
  return { kind: 'unknown', at, node };
}

function valueLit(at: Node, node: Node, value: unknown): Lit {
  return { kind: 'value', value, at, node };
}

function typedLit(at: Node, node: Node, type: LitType, date?: Date): Lit {
  return date ? { kind: 'typed', type, at, node, date } : { kind: 'typed', type, at, node };
}

/**
 * An imported name's value (`member`: a property of it, `appConf.TTL`). Plain numbers and strings
 * cross files, and `EnvRead`s: an environment variable stays a string wherever it is read.
 */
export type ImportedValue = (binding: ImportBinding, member?: string) => unknown;

/** A `process.env.NAME` read (with its `|| fallback`) made in another file. */
export class EnvRead {
  constructor(
    readonly env: string,
    readonly fallback: unknown,
  ) {}
}

export class Evaluator {
  constructor(
    private readonly env: BindingEnv,
    private readonly imported?: ImportedValue,
  ) {}

  /** The initializer of a const that may be followed (bound once in the unit). */
  constInit(name: string): Expression | undefined {
    if (this.env.bindingCount(name) !== 1) return undefined;
    return this.env.constInit(name);
  }

  /** Strip parentheses and TypeScript-only wrappers. */
  static unwrap(node: Node): Node {
    let n = node;
    while (
      n.type === 'TSAsExpression' ||
      n.type === 'TSSatisfiesExpression' ||
      n.type === 'TSNonNullExpression' ||
      n.type === 'TSTypeAssertion' ||
      n.type === 'ParenthesizedExpression'
    ) {
      n = n.expression;
    }
    return n;
  }

  /** Follow const identifiers to the expression they stand for. */
  resolve(node: Node, depth = 0): Node {
    const n = Evaluator.unwrap(node);
    if (n.type === 'Identifier' && depth < MAX_DEPTH) {
      const init = this.constInit(n.name);
      if (init) return this.resolve(init, depth + 1);
    }
    return n;
  }

  eval(node: Node, at: Node = node, depth = 0): Lit {
    const n = Evaluator.unwrap(node);
    if (depth > MAX_DEPTH) return unknownLit(at, n);
    switch (n.type) {
      case 'NumericLiteral':
      case 'StringLiteral':
      case 'BooleanLiteral':
        return valueLit(at, n, n.value);
      case 'NullLiteral':
        return valueLit(at, n, null);
      case 'TemplateLiteral':
        return n.expressions.length === 0
          ? valueLit(at, n, n.quasis.map((q) => q.value.cooked ?? q.value.raw).join(''))
          : typedLit(at, n, 'string');
      case 'Identifier': {
        if (n.name === 'NaN' && this.env.bindingCount('NaN') === undefined) return valueLit(at, n, NaN);
        if (n.name === 'Infinity' && this.env.bindingCount('Infinity') === undefined) return valueLit(at, n, Infinity);
        if (n.name === 'undefined' && this.env.bindingCount('undefined') === undefined)
          return valueLit(at, n, undefined);
        const init = this.constInit(n.name);
        if (init) return this.eval(init, at, depth + 1);
        return this.importedLit(n.name, undefined, at, n);
      }
      case 'LogicalExpression': {
        const l = this.eval(n.left, n.left, depth + 1);
        if (l.kind === 'typed' && l.env !== undefined && n.operator !== '&&') {
          const r = this.eval(n.right, n.right, depth + 1);
          return { kind: 'typed', type: 'string', at, node: n, env: l.env, fallback: plainValue(r) };
        }
        if (l.kind !== 'value') return unknownLit(at, n);
        const right =
          n.operator === '||' ? !l.value : n.operator === '&&' ? !!l.value : l.value === null || l.value === undefined;
        return right ? this.eval(n.right, at, depth + 1) : { ...l, at };
      }
      case 'UnaryExpression': {
        const arg = this.eval(n.argument, n.argument, depth + 1);
        if (arg.kind !== 'value' || (n.operator !== '-' && n.operator !== '+'))
          return arg.kind === 'typed' && arg.type === 'number' ? typedLit(at, n, 'number') : unknownLit(at, n);
        const num = toNumber(arg.value);
        if (num === undefined) return unknownLit(at, n);
        return valueLit(at, n, n.operator === '-' ? -num : num);
      }
      case 'BinaryExpression': {
        if (n.left.type === 'PrivateName') return unknownLit(at, n);
        const l = this.eval(n.left, n.left, depth + 1);
        const r = this.eval(n.right, n.right, depth + 1);
        if (l.kind === 'value' && r.kind === 'value') {
          if (n.operator === '+' && (typeof l.value === 'string' || typeof r.value === 'string'))
            return valueLit(at, n, String(l.value) + String(r.value));
          const a = toNumber(l.value);
          const b = toNumber(r.value);
          if (a === undefined || b === undefined) return unknownLit(at, n);
          switch (n.operator) {
            case '+':
              return valueLit(at, n, a + b);
            case '-':
              return valueLit(at, n, a - b);
            case '*':
              return valueLit(at, n, a * b);
            case '/':
              return valueLit(at, n, a / b);
            case '%':
              return valueLit(at, n, a % b);
            case '**':
              return valueLit(at, n, a ** b);
          }
          return unknownLit(at, n);
        }
        const isNum = (x: Lit) =>
          (x.kind === 'value' && typeof x.value === 'number') || (x.kind === 'typed' && x.type === 'number');
        if (['-', '*', '/', '%', '**'].includes(n.operator) && isNum(l) && isNum(r)) return typedLit(at, n, 'number');
        return unknownLit(at, n);
      }
      case 'ObjectExpression':
        return this.object(n, at, depth);
      case 'ArrayExpression': {
        const items: Lit[] = [];
        let complete = true;
        for (const e of n.elements) {
          if (!e || e.type === 'SpreadElement') {
            complete = false;
            continue;
          }
          items.push(this.eval(e, e, depth + 1));
        }
        return { kind: 'array', items, complete, at, node: n };
      }
      case 'MemberExpression': {
        const envName = processEnvName(n);
        if (envName !== undefined && this.env.bindingCount('process') === undefined)
          return { kind: 'typed', type: 'string', at, node: n, env: envName };
        if (
          n.object.type === 'Identifier' &&
          n.object.name === 'Number' &&
          !n.computed &&
          n.property.type === 'Identifier'
        ) {
          const v = (Number as unknown as Record<string, unknown>)[n.property.name];
          if (typeof v === 'number') return valueLit(at, n, v);
        }
        const key = staticKey(n.property, n.computed);
        if (key === undefined) return unknownLit(at, n);
        if (n.object.type === 'Identifier' && !this.constInit(n.object.name))
          return this.importedLit(n.object.name, key, at, n);
        const obj = this.eval(n.object, n.object, depth + 1);
        if (obj.kind !== 'object') return unknownLit(at, n);
        const prop = lastProp(obj.props, key);
        return prop && obj.complete ? this.eval(prop.value.node, at, depth + 1) : unknownLit(at, n);
      }
      case 'CallExpression':
      case 'NewExpression':
        return this.call(n, at, depth);
      case 'AwaitExpression':
        return unknownLit(at, n);
    }
    return unknownLit(at, n);
  }

  /** The value of an imported name (or of its property `member`), when another file of the workspace says it. */
  private importedLit(name: string, member: string | undefined, at: Node, n: Node): Lit {
    const binding = this.imported && this.env.bindingCount(name) === 1 ? this.env.importOf?.(name) : undefined;
    if (!binding) return unknownLit(at, n);
    // Only plain values cross files: a fix never edits another file's nodes.
    const v = this.imported!(binding, member);
    if (v instanceof EnvRead) return { kind: 'typed', type: 'string', at, node: n, env: v.env, fallback: v.fallback };
    if (v !== UNKNOWN && (typeof v === 'number' || typeof v === 'string')) return valueLit(at, n, v);
    return unknownLit(at, n);
  }

  private object(n: ObjectExpression, at: Node, depth: number): Lit {
    const props: Prop[] = [];
    let complete = true;
    for (const p of n.properties) {
      if (p.type !== 'ObjectProperty') {
        complete = false;
        continue;
      }
      const key = staticKey(p.key, p.computed);
      if (key === undefined) {
        complete = false;
        continue;
      }
      const valueNode = p.value as Node;
      props.push({ key, keyNode: p.key, node: p, value: this.eval(valueNode, valueNode, depth + 1) });
    }
    return { kind: 'object', props, complete, at, node: n };
  }

  private call(n: Node & { type: 'CallExpression' | 'NewExpression' }, at: Node, depth: number): Lit {
    const callee = Evaluator.unwrap(n.callee);
    const args = n.arguments.map((a) =>
      !a || a.type === 'SpreadElement' || a.type === 'ArgumentPlaceholder'
        ? undefined
        : this.eval(a as Node, a as Node, depth + 1),
    );
    const firstValue = args[0]?.kind === 'value' ? args[0].value : undefined;
    if (callee.type === 'Identifier') {
      const name = callee.name;
      if (name === 'Date') {
        // `Date()` without `new` returns a string, in JavaScript and in mongosh.
        if (n.type === 'CallExpression') return typedLit(at, n, 'string');
        return typedLit(at, n, 'date', dateOf(args));
      }
      if (name === 'ISODate') return typedLit(at, n, 'date', dateOf(args));
      if (name === 'String') return typedLit(at, n, 'string');
      if (name === 'Number' || name === 'parseInt' || name === 'parseFloat') {
        if (name === 'Number' && args.length === 1 && args[0]?.kind === 'value') {
          const v = toNumber(args[0].value);
          return v === undefined ? typedLit(at, n, 'number') : { kind: 'value', value: v, at, node: n };
        }
        return typedLit(at, n, 'number');
      }
      const ctor = Object.hasOwn(BSON_NUMBER_CTORS, name) ? BSON_NUMBER_CTORS[name] : undefined;
      if (ctor && args.length === 1 && args[0]?.kind === 'value') {
        try {
          return { kind: 'value', value: ctor(firstValue), at, node: n };
        } catch {
          return unknownLit(at, n);
        }
      }
      if (ctor) return typedLit(at, n, 'number');
      return unknownLit(at, n);
    }
    if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') {
      const method = callee.property.name;
      const objName = callee.object.type === 'Identifier' ? callee.object.name : undefined;
      if (objName === 'Date' && (method === 'now' || method === 'UTC' || method === 'parse'))
        return typedLit(at, n, 'number');
      if (objName === 'Math') return typedLit(at, n, 'number');
      if (
        objName === 'Long' &&
        (method === 'fromNumber' || method === 'fromString' || method === 'fromInt') &&
        args[0]?.kind === 'value'
      ) {
        try {
          return {
            kind: 'value',
            value: method === 'fromString' ? Long.fromString(String(firstValue)) : Long.fromNumber(Number(firstValue)),
            at,
            node: n,
          };
        } catch {
          return unknownLit(at, n);
        }
      }
      if (objName === 'Decimal128' && method === 'fromString' && args[0]?.kind === 'value') {
        try {
          return { kind: 'value', value: Decimal128.fromString(String(firstValue)), at, node: n };
        } catch {
          return unknownLit(at, n);
        }
      }
      const receiver = this.eval(callee.object, callee.object, depth + 1);
      if (receiver.kind === 'typed' && receiver.type === 'date') {
        if (['toISOString', 'toString', 'toJSON', 'toUTCString', 'toLocaleString', 'toDateString'].includes(method))
          return typedLit(at, n, 'string');
        if (['getTime', 'valueOf', 'getFullYear', 'setTime', 'setDate', 'setHours'].includes(method))
          return typedLit(at, n, 'number');
      }
    }
    return unknownLit(at, n);
  }
}

/** `NAME` of `process.env.NAME` / `process.env['NAME']`. */
function processEnvName(n: Node): string | undefined {
  if (n.type !== 'MemberExpression') return undefined;
  const obj = n.object;
  if (
    obj.type !== 'MemberExpression' ||
    obj.computed ||
    obj.object.type !== 'Identifier' ||
    obj.object.name !== 'process' ||
    obj.property.type !== 'Identifier' ||
    obj.property.name !== 'env'
  )
    return undefined;
  return staticKey(n.property, n.computed);
}

function dateOf(args: Array<Lit | undefined>): Date | undefined {
  if (args.length === 0) return undefined;
  if (
    args.length === 1 &&
    args[0]?.kind === 'value' &&
    (typeof args[0].value === 'string' || typeof args[0].value === 'number')
  ) {
    const d = new Date(args[0].value);
    return Number.isNaN(d.getTime()) ? undefined : d;
  }
  return undefined;
}

function staticKey(key: Node, computed: boolean): string | undefined {
  if (!computed && key.type === 'Identifier') return key.name;
  if (key.type === 'StringLiteral') return key.value;
  if (key.type === 'NumericLiteral') return String(key.value);
  return undefined;
}

export function lastProp(props: Prop[], key: string): Prop | undefined {
  for (let i = props.length - 1; i >= 0; i--) if (props[i].key === key) return props[i];
  return undefined;
}

/** A plain number from a JS number or a BSON number; undefined for anything else. */
export function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (v instanceof Int32 || v instanceof Double) return v.valueOf();
  if (v instanceof Long) return v.toNumber();
  if (v instanceof Decimal128) return Number(v.toString());
  return undefined;
}

/**
 * The plain value of a literal (objects and arrays included), or UNKNOWN when any part is not
 * known. Dates whose instant is not known stand in as the epoch: only their type matters to the
 * rules that read them.
 */
export function plainValue(lit: Lit): unknown {
  switch (lit.kind) {
    case 'value':
      return lit.value;
    case 'typed':
      return lit.type === 'date' ? (lit.date ?? new Date(0)) : UNKNOWN;
    case 'unknown':
      return UNKNOWN;
    case 'array': {
      if (!lit.complete) return UNKNOWN;
      const out: unknown[] = [];
      for (const item of lit.items) {
        const v = plainValue(item);
        if (v === UNKNOWN) return UNKNOWN;
        out.push(v);
      }
      return out;
    }
    case 'object': {
      if (!lit.complete) return UNKNOWN;
      const out: Record<string, unknown> = {};
      for (const p of lit.props) {
        const v = plainValue(p.value);
        if (v === UNKNOWN) return UNKNOWN;
        out[p.key] = v;
      }
      return out;
    }
  }
}

/** What BSON type a literal has, when known. */
export function litType(lit: Lit): LitType | 'array' | 'object' | 'null' | undefined {
  switch (lit.kind) {
    case 'typed':
      return lit.type;
    case 'array':
      return 'array';
    case 'object':
      return 'object';
    case 'unknown':
      return undefined;
    case 'value': {
      const v = lit.value;
      if (v === null || v === undefined) return 'null';
      if (typeof v === 'string') return 'string';
      if (typeof v === 'boolean') return 'bool';
      if (toNumber(v) !== undefined) return 'number';
      return 'other';
    }
  }
}
