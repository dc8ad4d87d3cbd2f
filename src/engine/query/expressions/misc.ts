/** Data size, timestamp parts and randomness: $bsonSize, $binarySize, $tsSecond, $tsIncrement, $rand, $sampleRate. */
import { Int32, Long, type Binary, type Timestamp } from 'bson';
import { numericKind, toDouble } from '../../values/numbers';
import { bsonDocumentSize } from '../../values/bson-size';
import { bsonTypeOf, isPlainObject } from '../../values/types';
import { fail, isNullish, show, typeName, unary, type OperatorParser } from './core';

function opBsonSize(v: unknown, name: string): unknown {
  if (isNullish(v)) return null;
  if (!isPlainObject(v)) fail(31393, `${name} requires a document input, found: ${typeName(v)}`);
  return new Int32(bsonDocumentSize(v));
}

function opBinarySize(v: unknown, name: string): unknown {
  if (isNullish(v)) return null;
  if (typeof v === 'string') return new Int32(Buffer.byteLength(v, 'utf8'));
  if (bsonTypeOf(v) === 'binData') return new Int32((v as Binary).length());
  fail(51276, `${name} requires a string or BinData argument, found: ${typeName(v)}`);
}

function timestampPart(part: 't' | 'i', code: number): (v: unknown, name: string) => unknown {
  return (v, name) => {
    if (isNullish(v)) return null;
    if (bsonTypeOf(v) !== 'timestamp') fail(code, `${name} expects argument of type timestamp, got ${typeName(v)}`);
    return Long.fromNumber((v as Timestamp)[part]);
  };
}

const parseRand: OperatorParser = (arg, name) => {
  if (!isPlainObject(arg) || Object.keys(arg).length !== 0)
    fail(3040501, `${name} does not currently accept arguments: write {${name}: {}}`);
  return () => Math.random();
};

/** True for each document with probability `rate`, a constant in [0, 1]. */
const parseSampleRate: OperatorParser = (arg, name) => {
  if (!numericKind(arg)) fail(31180, `${name} requires a numeric constant rate, found: ${show(arg)}`);
  const rate = toDouble(arg);
  if (!(rate >= 0 && rate <= 1)) fail(31181, `${name} requires a rate between 0 and 1 (inclusive), found: ${rate}`);
  return () => Math.random() < rate;
};

export const MISC_OPERATORS: Readonly<Record<string, OperatorParser>> = {
  $bsonSize: unary(opBsonSize),
  $binarySize: unary(opBinarySize),
  $tsSecond: unary(timestampPart('t', 5687301)),
  $tsIncrement: unary(timestampPart('i', 5687302)),
  $rand: parseRand,
  $sampleRate: parseSampleRate,
};
