/**
 * Operators of MongoDB 8.0 that this engine recognises and refuses, each with the error it
 * raises and why, so that users see a reason instead of "Unrecognized expression" and the
 * compatibility table can list them.
 */
import { fail, type OperatorParser } from './core';

export interface RefusedOperator {
  readonly name: string;
  readonly code: number;
  readonly codeName: string;
  readonly reason: string;
}

const NO_JAVASCRIPT =
  'Cannot run server-side javascript without the javascript engine enabled: this engine runs no server-side JavaScript; write the logic with aggregation operators instead';

export const REFUSED_EXPRESSIONS: readonly RefusedOperator[] = [
  { name: '$function', code: 31264, codeName: 'Location31264', reason: NO_JAVASCRIPT },
  {
    name: '$meta',
    code: 238,
    codeName: 'NotImplemented',
    reason:
      '$meta is not supported: this engine keeps no text-search, Atlas Search, geoNear or index-key metadata to read',
  },
  {
    name: '$toHashedIndexKey',
    code: 238,
    codeName: 'NotImplemented',
    reason: "$toHashedIndexKey is not supported: this engine does not compute mongod's hashed index keys",
  },
];

export const REFUSED_ACCUMULATORS: readonly RefusedOperator[] = [
  { name: '$accumulator', code: 31264, codeName: 'Location31264', reason: NO_JAVASCRIPT },
];

export function refusal(op: RefusedOperator): OperatorParser {
  return () => fail(op.code, op.reason);
}

export const REFUSED_OPERATORS: Readonly<Record<string, OperatorParser>> = Object.fromEntries(
  REFUSED_EXPRESSIONS.map((op) => [op.name, refusal(op)]),
);
