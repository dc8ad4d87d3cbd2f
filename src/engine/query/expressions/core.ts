/**
 * The expression compiler: literals, field paths, variables, object and array expressions, and
 * the dispatch of `{$op: ...}` to the operator families (registered by ./operators, which the
 * folder's index loads, so that no family module and this one import each other).
 *
 * Semantics follow mongod's ExpressionXxx classes:
 * - "missing" (a path that reaches nothing) is JS `undefined`; it is distinct from null in
 *   comparisons (missing sorts before null, so {$eq: ["$nope", null]} is false) but most operators
 *   treat both as "nullish" and answer null.
 * - "$a.b" fans out through arrays: each element that is a document contributes its `b`, other
 *   elements are skipped, so the result is an array.
 * - Errors carry mongod's codes so callers written against a real server see the same failures.
 */
import { codeNameOf, EngineError } from '../../errors';
import { isBsonUndefined } from '../../values/bson-undefined';
import { setField } from '../../values/fields';
import { formatValue } from '../../values/format';
import { isPlainObject, bsonTypeOf, type Document } from '../../values/types';

// ---------------------------------------------------------------------------------------------
// Public surface
// ---------------------------------------------------------------------------------------------

/** Variables visible to an expression ($$ROOT and $$CURRENT default to the document). */
export type Vars = { readonly [name: string]: unknown };

/** A compiled expression: evaluates against a document; `undefined` means "missing". */
export type CompiledExpression = (doc: Document, vars?: Vars) => unknown;

/** Internal form: the root document and the variable scope are passed explicitly. */
export type Fn = (root: Document, vars: Vars) => unknown;

const NO_VARS: Vars = Object.freeze({});

/** Compile an aggregation expression. Throws EngineError on a malformed expression. */
export function compileExpression(expr: unknown): CompiledExpression {
  const fn = compile(expr);
  return (doc, vars) => fn(doc, vars ?? NO_VARS);
}

/** Codes mongod names that errors.ts may not know; EngineError would call them `Location<n>`. */
const LOCAL_CODE_NAMES: Record<number, string> = {
  2: 'BadValue',
  9: 'FailedToParse',
  14: 'TypeMismatch',
  168: 'InvalidPipelineOperator',
  238: 'NotImplemented',
  241: 'ConversionFailure',
};

/** An EngineError whose codeName is mongod's even when errors.ts has no entry for the code. */
export function aggError(code: number, message: string): EngineError {
  const err = new EngineError(code, message);
  const name = LOCAL_CODE_NAMES[code];
  if (name && codeNameOf(code) !== name) (err as unknown as { codeName: string }).codeName = name;
  return err;
}

export function fail(code: number, message: string): never {
  throw aggError(code, message);
}

/** mongod's type name of a value, "missing" for undefined (as in its error messages). */
export function typeName(v: unknown): string {
  return v === undefined ? 'missing' : bsonTypeOf(v);
}

export function show(v: unknown): string {
  return v === undefined ? 'MISSING' : formatValue(v);
}

/** Null, missing, or a stored BSON undefined: the values mongod's expressions treat alike as "nullish". */
export function isNullish(v: unknown): boolean {
  return v === null || v === undefined || isBsonUndefined(v);
}

// ---------------------------------------------------------------------------------------------
// Compilation: literals, field paths, variables, objects, arrays, operators
// ---------------------------------------------------------------------------------------------

export function compile(expr: unknown): Fn {
  if (typeof expr === 'string') return expr.startsWith('$') ? compileFieldPath(expr) : constant(expr);
  if (Array.isArray(expr)) return compileArray(expr);
  if (isPlainObject(expr)) return compileObject(expr);
  return constant(expr);
}

export function constant(value: unknown): Fn {
  return () => value;
}

export const hasOwn = Object.prototype.hasOwnProperty;

/** Field lookup that never reaches Object.prototype ("$constructor" is a field name, not a function). */
function getField(obj: Document, key: string): unknown {
  return hasOwn.call(obj, key) ? obj[key] : undefined;
}

/** Walk `parts[i..]` from `value` with mongod's expression semantics (arrays fan out). */
function walkPath(value: unknown, parts: readonly string[], i: number): unknown {
  for (; i < parts.length; i++) {
    if (isPlainObject(value)) value = getField(value, parts[i]);
    else if (Array.isArray(value)) return walkArray(value, parts, i);
    else return undefined;
  }
  return value;
}

function walkArray(arr: readonly unknown[], parts: readonly string[], i: number): unknown[] {
  const out: unknown[] = [];
  for (const el of arr) {
    // Only documents continue the path; scalars and nested arrays are skipped, as in mongod.
    if (!isPlainObject(el)) continue;
    const v = walkPath(el, parts, i);
    if (v !== undefined) out.push(v);
  }
  return out;
}

function validateFieldPathParts(parts: string[]): void {
  for (const p of parts) {
    if (p === '') fail(15998, 'FieldPath field names may not be empty strings.');
    if (p.startsWith('$'))
      fail(16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.");
    if (p.includes('\0')) fail(16411, 'FieldPath field names may not contain embedded nulls.');
  }
}

const BUILTIN_VARS = new Set([
  'ROOT',
  'CURRENT',
  'REMOVE',
  'NOW',
  'CLUSTER_TIME',
  'USER_ROLES',
  'SEARCH_META',
  // $redact's decisions: defined by that stage only.
  'KEEP',
  'PRUNE',
  'DESCEND',
]);

function compileFieldPath(path: string): Fn {
  if (path === '$') fail(16872, "'$' by itself is not a valid FieldPath");
  if (path.startsWith('$$')) return compileVariablePath(path.slice(2));
  const parts = path.slice(1).split('.');
  validateFieldPathParts(parts);
  if (parts.length === 1) {
    const key = parts[0];
    return (root, vars) => {
      const cur = currentOf(root, vars);
      return isPlainObject(cur) ? getField(cur, key) : undefined;
    };
  }
  return (root, vars) => walkPath(currentOf(root, vars), parts, 0);
}

function currentOf(root: Document, vars: Vars): unknown {
  const cur = vars.CURRENT;
  return cur === undefined ? root : cur;
}

function compileVariablePath(body: string): Fn {
  const [name, ...rest] = body.split('.');
  if (name === '') fail(16869, 'empty variable name');
  if (rest.length) validateFieldPathParts(rest);
  if (!BUILTIN_VARS.has(name)) validateVariableNameForRead(name);
  const read = variableReader(name);
  if (rest.length === 0) return read;
  return (root, vars) => walkPath(read(root, vars), rest, 0);
}

function variableReader(name: string): Fn {
  switch (name) {
    case 'ROOT':
      return (root) => root;
    case 'CURRENT':
      return currentOf;
    case 'REMOVE':
      return () => undefined;
    case 'NOW':
      return (_root, vars) => (vars.NOW instanceof Date ? vars.NOW : new Date());
  }
  // `toString`, `constructor`…: every scope inherits them from Object.prototype; only a definition counts.
  const inherited = name in Object.prototype;
  return (_root, vars) => {
    if (!(name in vars) || (inherited && !definedInScopes(vars, name)))
      fail(17276, `Use of undefined variable: ${name}`);
    return vars[name];
  };
}

/** Whether a scope chain (scopes made with Object.create over the outer ones) defines `name` itself. */
function definedInScopes(vars: Vars, name: string): boolean {
  for (
    let s: object | null = vars;
    s !== null && s !== Object.prototype;
    s = Object.getPrototypeOf(s) as object | null
  ) {
    if (hasOwn.call(s, name)) return true;
  }
  return false;
}

/**
 * A name a user may define ($let, `as`, a stage's `let`): a lowercase letter or non-ASCII character
 * first, then letters, digits, `_` or non-ASCII (mongod's validateNameForUserWrite). So `ROOT`,
 * `REMOVE` or `FOO` cannot be defined: 16867.
 */
export function validateUserVariableName(name: string): void {
  if (name === 'CURRENT') return;
  checkVariableName(name, (c) => (c >= 0x61 && c <= 0x7a) || c > 0x7f);
}

/** A name a `$$` reference may read: it may start with an uppercase letter (a system variable). */
function validateVariableNameForRead(name: string): void {
  checkVariableName(name, (c) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c > 0x7f);
}

function checkVariableName(name: string, firstOk: (charCode: number) => boolean): void {
  if (name === '') fail(16866, 'empty variable names are not allowed');
  if (!firstOk(name.charCodeAt(0))) fail(16867, `'${name}' starts with an invalid character for a user variable name`);
  for (let i = 1; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const ok =
      (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c > 0x7f;
    if (!ok) fail(16868, `'${name}' contains an invalid character for a variable name: '${name[i]}'`);
  }
}

function compileArray(items: unknown[]): Fn {
  const fns = items.map(compile);
  return (root, vars) => {
    const out = new Array(fns.length);
    // A missing element becomes null: arrays cannot hold "missing".
    for (let i = 0; i < fns.length; i++) {
      const v = fns[i](root, vars);
      out[i] = v === undefined ? null : v;
    }
    return out;
  };
}

function compileObject(obj: Document): Fn {
  const keys = Object.keys(obj);
  if (keys.length === 0) return () => ({});
  if (keys[0].startsWith('$')) {
    if (keys.length !== 1) {
      fail(
        15983,
        `an expression specification must contain exactly one field, the name of the expression. Found ${keys.length} fields in ${show(obj)}`,
      );
    }
    return compileOperator(keys[0], obj[keys[0]]);
  }
  const fields: [string, Fn][] = keys.map((k) => {
    if (k.startsWith('$'))
      fail(16410, `FieldPath field names may not start with '$'. Consider using $getField or $setField.`);
    if (k.includes('.'))
      fail(16412, "FieldPath field names may not contain '.'. Consider using $getField or $setField.");
    if (k === '') fail(16411, 'FieldPath field names may not be empty strings.');
    return [k, compile(obj[k])];
  });
  return (root, vars) => {
    const out: Document = {};
    for (const [k, fn] of fields) {
      const v = fn(root, vars);
      if (v !== undefined) setField(out, k, v);
    }
    return out;
  };
}

export type OperatorParser = (arg: unknown, name: string) => Fn;

/** The operator table, filled once by ./operators (through the folder's index). */
const OPERATORS = new Map<string, OperatorParser>();

/** Adds a family's operators to the table; a name defined twice is a programming error. */
export function defineOperators(table: Readonly<Record<string, OperatorParser>>): void {
  for (const [name, parser] of Object.entries(table)) {
    if (OPERATORS.has(name)) throw new Error(`expression operator ${name} defined twice`);
    OPERATORS.set(name, parser);
  }
}

function compileOperator(name: string, arg: unknown): Fn {
  const parser = OPERATORS.get(name);
  if (!parser) fail(168, `Unrecognized expression '${name}'`);
  return parser(arg, name);
}

/** True when `name` is an expression operator this engine implements. */
export function isExpressionOperator(name: string): boolean {
  return OPERATORS.has(name);
}

// ---------------------------------------------------------------------------------------------
// Operator-building helpers
// ---------------------------------------------------------------------------------------------

export function operandList(arg: unknown): unknown[] {
  return Array.isArray(arg) ? arg : [arg];
}

export function arityError(name: string, got: number, min: number, max: number): never {
  if (min === max) fail(16020, `Expression ${name} takes exactly ${min} arguments. ${got} were passed in.`);
  if (max === Infinity) fail(16021, `Expression ${name} takes at least ${min} arguments, but ${got} were passed in.`);
  fail(28667, `Expression ${name} takes at least ${min} arguments, and at most ${max}, but ${got} were passed in.`);
}

export function compileArgs(name: string, arg: unknown, min: number, max = min): Fn[] {
  const list = operandList(arg);
  if (list.length < min || list.length > max) arityError(name, list.length, min, max);
  return list.map(compile);
}

/** An operator taking exactly one operand (given bare or as a one-element array). */
export function unary(f: (v: unknown, name: string) => unknown): OperatorParser {
  return (arg, name) => {
    const [a] = compileArgs(name, arg, 1);
    return (root, vars) => f(a(root, vars), name);
  };
}

export function binary(f: (a: unknown, b: unknown, name: string) => unknown): OperatorParser {
  return (arg, name) => {
    const [a, b] = compileArgs(name, arg, 2);
    return (root, vars) => f(a(root, vars), b(root, vars), name);
  };
}

export function ternary(f: (a: unknown, b: unknown, c: unknown, name: string) => unknown): OperatorParser {
  return (arg, name) => {
    const [a, b, c] = compileArgs(name, arg, 3);
    return (root, vars) => f(a(root, vars), b(root, vars), c(root, vars), name);
  };
}

/** Any number of operands between min and max, all evaluated before `f` runs. */
export function variadic(f: (vals: unknown[], name: string) => unknown, min = 0, max = Infinity): OperatorParser {
  return (arg, name) => {
    const fns = compileArgs(name, arg, min, max);
    return (root, vars) =>
      f(
        fns.map((fn) => fn(root, vars)),
        name,
      );
  };
}

/** Compiles the fields of an `{a: ..., b: ...}` argument, rejecting unknown and missing ones. */
export function namedArgs(
  arg: Document,
  allowed: readonly string[],
  required: readonly string[],
  errors: { unknown: (field: string) => [number, string]; missing: (field: string) => [number, string] },
): Record<string, Fn | undefined> {
  const out: Record<string, Fn | undefined> = {};
  for (const key of Object.keys(arg)) {
    if (!allowed.includes(key)) fail(...errors.unknown(key));
    out[key] = compile(arg[key]);
  }
  for (const key of required) if (!out[key]) fail(...errors.missing(key));
  return out;
}

export function requireObjectArg(arg: unknown, code: number, message: string): Document {
  if (!isPlainObject(arg)) fail(code, message);
  return arg;
}

/** Binds `name` to `value` on top of `vars` without copying the outer scope. */
export function bind(vars: Vars, name: string, value: unknown): Vars {
  const scope = Object.create(vars) as Record<string, unknown>;
  defineVariable(scope, name, value);
  return scope;
}

/**
 * Sets `name` on a scope made with Object.create: a plain assignment throws when an outer scope is
 * frozen (a $lookup's `let`) and already holds the name, and an inner definition must shadow it.
 */
export function defineVariable(scope: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(scope, name, { value, writable: true, enumerable: true, configurable: true });
}

export function loopVariable(name: string, as: unknown, code: number): string {
  if (as === undefined) return 'this';
  if (typeof as !== 'string') fail(code, `${name} 'as' must be a string`);
  validateUserVariableName(as);
  return as;
}
