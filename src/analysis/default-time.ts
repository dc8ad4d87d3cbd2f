/**
 * What the `default` of a Mongoose date path gives: the current time, computed once when the
 * schema is built (`Date.now()`, `new Date()`) or per document (`Date.now`, `() => new Date()`),
 * and how far ahead of now it is (`() => Date.now() + 5 * 60 * 1000` is an expiry time).
 */
import type { Node } from '@babel/types';
import { Evaluator, lastProp, toNumber, type Lit } from './literals';
import type { ObjectLit } from './mongoose-schema';

export interface DefaultTime {
  /** The default as written (what a fix edits). */
  lit: Lit;
  /** Computed once, when the schema is built, rather than per document. */
  once: boolean;
  /** Milliseconds ahead of now (0 for now itself); undefined when not known. */
  aheadMs: number | undefined;
}

function isDateNow(n: Node): boolean {
  return (
    n.type === 'CallExpression' &&
    n.arguments.length === 0 &&
    n.callee.type === 'MemberExpression' &&
    !n.callee.computed &&
    n.callee.object.type === 'Identifier' &&
    n.callee.object.name === 'Date' &&
    n.callee.property.type === 'Identifier' &&
    n.callee.property.name === 'now'
  );
}

/** `Date.now()`, `new Date()`, Mongoose's `now()`, `new Date().getTime()`. */
function isNowExpression(n: Node): boolean {
  if (isDateNow(n)) return true;
  if (
    n.type === 'NewExpression' &&
    n.callee.type === 'Identifier' &&
    n.callee.name === 'Date' &&
    n.arguments.length === 0
  )
    return true;
  if (
    n.type === 'CallExpression' &&
    n.callee.type === 'Identifier' &&
    n.callee.name === 'now' &&
    n.arguments.length === 0
  )
    return true;
  if (
    n.type === 'CallExpression' &&
    n.arguments.length === 0 &&
    n.callee.type === 'MemberExpression' &&
    n.callee.property.type === 'Identifier' &&
    (n.callee.property.name === 'getTime' || n.callee.property.name === 'valueOf')
  )
    return isNowExpression(Evaluator.unwrap(n.callee.object));
  return false;
}

/** Milliseconds ahead of now of a time expression (`now`, `now + n`, `new Date(now + n)`); undefined: not a time of now. */
function aheadOf(n: Node, ev: Evaluator): number | undefined | 'unknown' {
  const e = Evaluator.unwrap(n);
  if (isNowExpression(e)) return 0;
  if (
    e.type === 'NewExpression' &&
    e.callee.type === 'Identifier' &&
    e.callee.name === 'Date' &&
    e.arguments.length === 1
  )
    return aheadOf(e.arguments[0], ev);
  if (e.type === 'BinaryExpression' && (e.operator === '+' || e.operator === '-') && e.left.type !== 'PrivateName') {
    const base = aheadOf(e.left, ev);
    if (base === undefined) return undefined;
    const off = ev.eval(e.right);
    const ms = off.kind === 'value' ? toNumber(off.value) : undefined;
    if (base === 'unknown' || ms === undefined) return 'unknown';
    return e.operator === '+' ? base + ms : base - ms;
  }
  return undefined;
}

/** The body of `() => expr`, `() => { return expr }` or `function () { return expr }`. */
function returned(n: Node): Node | undefined {
  if (n.type !== 'ArrowFunctionExpression' && n.type !== 'FunctionExpression') return undefined;
  if (n.body.type !== 'BlockStatement') return n.body;
  const last = n.body.body[n.body.body.length - 1];
  return n.body.body.length === 1 && last?.type === 'ReturnStatement' && last.argument ? last.argument : undefined;
}

/** The time a path's `default` gives; undefined when it is not a time of now (or not known). */
export function defaultTimeOf(spec: ObjectLit, ev: Evaluator): DefaultTime | undefined {
  const p = lastProp(spec.props, 'default');
  if (!p) return undefined;
  const lit = p.value;
  const node = Evaluator.unwrap(lit.node);
  if (
    node.type === 'MemberExpression' &&
    !node.computed &&
    node.object.type === 'Identifier' &&
    node.object.name === 'Date' &&
    node.property.type === 'Identifier' &&
    node.property.name === 'now'
  )
    return { lit, once: false, aheadMs: 0 };
  const body = returned(node);
  const expr = body ?? node;
  const ahead = aheadOf(expr, ev);
  if (ahead === undefined) return undefined;
  return { lit, once: body === undefined, aheadMs: ahead === 'unknown' ? undefined : ahead };
}
