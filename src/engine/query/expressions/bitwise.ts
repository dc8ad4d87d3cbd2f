/** Bitwise operators on ints and longs: an int stays int, any long makes a long. */
import { Int32, Long } from 'bson';
import { numericKind } from '../../values/numbers';
import { fail, isNullish, typeName, type OperatorParser, unary, variadic } from './core';
import { toBigInt } from './numeric';

function bitwise(op: (a: bigint, b: bigint) => bigint, identity: bigint): OperatorParser {
  return variadic((vals, name) => {
    let acc = identity;
    let long = false;
    for (const v of vals) {
      if (isNullish(v)) return null;
      const kind = numericKind(v);
      if (kind !== 'int' && kind !== 'long') fail(14, `${name} only supports int and long operands.`);
      if (kind === 'long') long = true;
      acc = op(acc, toBigInt(v));
    }
    return long ? Long.fromBigInt(BigInt.asIntN(64, acc)) : new Int32(Number(BigInt.asIntN(32, acc)));
  });
}

function opBitNot(v: unknown, name: string): unknown {
  if (isNullish(v)) return null;
  const kind = numericKind(v);
  if (kind === 'int') return new Int32(~(v as Int32).value);
  if (kind === 'long') return Long.fromBigInt(~(v as Long).toBigInt());
  if (kind) fail(14, `${name} only supports int and long, not: ${typeName(v)}.`);
  fail(28765, `${name} only supports numeric types, not ${typeName(v)}`);
}

export const BITWISE_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $bitAnd: bitwise((a, b) => a & b, -1n),
  $bitOr: bitwise((a, b) => a | b, 0n),
  $bitXor: bitwise((a, b) => a ^ b, 0n),
  $bitNot: unary(opBitNot),
};
