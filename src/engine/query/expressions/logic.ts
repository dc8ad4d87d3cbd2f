/** Comparison, boolean and conditional operators. */
import { Int32 } from 'bson';
import { compareValues } from '../../values/compare';
import { numericKind, toDouble } from '../../values/numbers';
import { isPlainObject } from '../../values/types';
import {
  binary,
  compile,
  compileArgs,
  fail,
  isNullish,
  namedArgs,
  operandList,
  unary,
  type Fn,
  typeName,
  type OperatorParser,
} from './core';

function comparison(test: (c: number) => boolean): OperatorParser {
  return binary((a, b) => test(compareValues(a, b)));
}

/** mongod's truthiness: false, null, missing and numeric zero are false; everything else is true. */
export function isTruthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (v === true) return true;
  if (typeof v === 'number') return v !== 0;
  if (numericKind(v)) return toDouble(v) !== 0;
  return true;
}

const parseAnd: OperatorParser = (arg) => {
  const fns = operandList(arg).map(compile);
  return (root, vars) => fns.every((fn) => isTruthy(fn(root, vars)));
};

const parseOr: OperatorParser = (arg) => {
  const fns = operandList(arg).map(compile);
  return (root, vars) => fns.some((fn) => isTruthy(fn(root, vars)));
};

const parseCond: OperatorParser = (arg, name) => {
  let parts: [Fn, Fn, Fn];
  if (isPlainObject(arg)) {
    const named = namedArgs(arg, ['if', 'then', 'else'], ['if', 'then', 'else'], {
      unknown: (f) => [17083, `Unrecognized parameter to $cond: ${f}`],
      missing: (f) => [
        ({ if: 17080, then: 17081, else: 17082 } as Record<string, number>)[f],
        `Missing '${f}' parameter to $cond`,
      ],
    });
    parts = [named.if!, named.then!, named.else!];
  } else {
    parts = compileArgs(name, arg, 3) as [Fn, Fn, Fn];
  }
  const [test, then, otherwise] = parts;
  return (root, vars) => (isTruthy(test(root, vars)) ? then(root, vars) : otherwise(root, vars));
};

const parseIfNull: OperatorParser = (arg, name) => {
  const fns = operandList(arg).map(compile);
  if (fns.length < 2) fail(1257300, `${name} needs at least two arguments, had: ${fns.length}`);
  return (root, vars) => {
    // The last operand is the replacement and is returned as is, even when null or missing.
    for (let i = 0; i < fns.length - 1; i++) {
      const v = fns[i](root, vars);
      if (!isNullish(v)) return v;
    }
    return fns[fns.length - 1](root, vars);
  };
};

const parseSwitch: OperatorParser = (arg, name) => {
  if (!isPlainObject(arg)) fail(40060, `${name} requires an object as an argument, found: ${typeName(arg)}`);
  const branches: Array<[Fn, Fn]> = [];
  let otherwise: Fn | undefined;
  for (const key of Object.keys(arg)) {
    const value = arg[key];
    if (key === 'branches') {
      if (!Array.isArray(value)) fail(40061, `${name} expects an array for 'branches', found: ${typeName(value)}`);
      for (const branch of value) {
        if (!isPlainObject(branch))
          fail(40062, `${name} expects each branch to be an object, found: ${typeName(branch)}`);
        for (const k of Object.keys(branch))
          if (k !== 'case' && k !== 'then') fail(40063, `${name} found an unknown argument to a branch: ${k}`);
        if (!('case' in branch)) fail(40064, `${name} requires each branch have a 'case' expression`);
        if (!('then' in branch)) fail(40065, `${name} requires each branch have a 'then' expression.`);
        branches.push([compile(branch.case), compile(branch.then)]);
      }
    } else if (key === 'default') {
      otherwise = compile(value);
    } else {
      fail(40067, `${name} found an unknown argument: ${key}`);
    }
  }
  if (branches.length === 0) fail(40068, `${name} requires at least one branch.`);
  return (root, vars) => {
    for (const [test, then] of branches) if (isTruthy(test(root, vars))) return then(root, vars);
    if (!otherwise) fail(40066, `${name} could not find a matching branch for an input, and no default was specified.`);
    return otherwise(root, vars);
  };
};

export const LOGIC_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  // Comparison
  $eq: comparison((c) => c === 0),
  $ne: comparison((c) => c !== 0),
  $gt: comparison((c) => c > 0),
  $gte: comparison((c) => c >= 0),
  $lt: comparison((c) => c < 0),
  $lte: comparison((c) => c <= 0),
  $cmp: binary((a, b) => new Int32(compareValues(a, b))),

  // Boolean and conditional
  $and: parseAnd,
  $or: parseOr,
  $not: unary((v) => !isTruthy(v)),
  $cond: parseCond,
  $ifNull: parseIfNull,
  $switch: parseSwitch,
};
