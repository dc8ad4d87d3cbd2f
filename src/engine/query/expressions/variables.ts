/** $let and $literal: scopes of user variables, and values taken as they are. */
import { type Document, isPlainObject } from '../../values/types';
import {
  compile,
  constant,
  defineVariable,
  fail,
  namedArgs,
  requireObjectArg,
  validateUserVariableName,
  type Fn,
  type OperatorParser,
} from './core';

const parseLet: OperatorParser = (arg, name) => {
  // Names first, as mongod reads them: {'a.b': 1} is a bad variable name (16868), not a bad field path.
  const given = (arg as Document | undefined)?.vars;
  if (isPlainObject(given)) Object.keys(given).forEach(validateUserVariableName);
  const f = namedArgs(
    requireObjectArg(arg, 16874, `${name} only supports an object as its argument`),
    ['vars', 'in'],
    ['vars', 'in'],
    {
      unknown: (k) => [16875, `Unrecognized parameter to ${name}: ${k}`],
      missing: (k) =>
        k === 'vars' ? [16876, `Missing 'vars' parameter to ${name}`] : [16877, `Missing 'in' parameter to ${name}`],
    },
  );
  const spec = (arg as Document).vars;
  if (!isPlainObject(spec)) fail(10065, `invalid parameter: expected an object (vars)`);
  const defs = Object.keys(spec).map((k): [string, Fn] => {
    validateUserVariableName(k);
    return [k, compile(spec[k])];
  });
  const body = f.in!;
  return (root, vars) => {
    // All definitions see the outer scope, not each other.
    const scope = Object.create(vars) as Record<string, unknown>;
    for (const [k, fn] of defs) defineVariable(scope, k, fn(root, vars));
    return body(root, scope);
  };
};

export const VARIABLE_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $literal: (arg) => constant(arg),
  // mongod's own name for a constant (what explain prints for one); it still parses it as $literal.
  $const: (arg) => constant(arg),
  $let: parseLet,
};
