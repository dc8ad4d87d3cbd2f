/** Fills the expression compiler's operator table with every family's operators, and lists them. */
import { ACCUMULATOR_EXPRESSIONS } from './accumulators';
import { STATISTICS_EXPRESSIONS } from './accumulators-stats';
import { ARITHMETIC_OPERATORS } from './arithmetic';
import { ARRAY_OPERATORS } from './array';
import { BITWISE_OPERATORS } from './bitwise';
import { CONVERSION_OPERATORS } from './conversion';
import { defineOperators } from './core';
import { DATE_OPERATORS } from './date';
import { DATE_PARTS_OPERATORS } from './date-construct';
import { DATE_UNIT_OPERATORS } from './date-units';
import { LOGIC_OPERATORS } from './logic';
import { MATH_OPERATORS } from './math';
import { MISC_OPERATORS } from './misc';
import { OBJECT_OPERATORS } from './object';
import { REFUSED_EXPRESSIONS, REFUSED_OPERATORS, type RefusedOperator } from './refused';
import { REGEX_OPERATORS } from './regex';
import { SET_OPERATORS } from './set';
import { STRING_OPERATORS } from './string';
import { TRIGONOMETRY_OPERATORS } from './trigonometry';
import { VARIABLE_OPERATORS } from './variables';

const SUPPORTED = [
  VARIABLE_OPERATORS,
  ARITHMETIC_OPERATORS,
  MATH_OPERATORS,
  TRIGONOMETRY_OPERATORS,
  BITWISE_OPERATORS,
  LOGIC_OPERATORS,
  STRING_OPERATORS,
  REGEX_OPERATORS,
  ARRAY_OPERATORS,
  SET_OPERATORS,
  OBJECT_OPERATORS,
  CONVERSION_OPERATORS,
  DATE_OPERATORS,
  DATE_UNIT_OPERATORS,
  DATE_PARTS_OPERATORS,
  MISC_OPERATORS,
  ACCUMULATOR_EXPRESSIONS,
  STATISTICS_EXPRESSIONS,
];

for (const table of SUPPORTED) defineOperators(table);
defineOperators(REFUSED_OPERATORS);

/** Names of the expression operators this engine evaluates, sorted. */
export const EXPRESSION_OPERATORS: readonly string[] = SUPPORTED.flatMap((t) => Object.keys(t)).sort();

/** Expression operators it recognises and refuses, with the error each raises and why. */
export const REFUSED_EXPRESSION_OPERATORS: readonly RefusedOperator[] = REFUSED_EXPRESSIONS;
