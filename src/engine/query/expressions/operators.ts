/** Fills the expression compiler's operator table with every family's operators. */
import { ACCUMULATOR_EXPRESSIONS } from './accumulators';
import { ARITHMETIC_OPERATORS } from './arithmetic';
import { ARRAY_OPERATORS } from './array';
import { CONVERSION_OPERATORS } from './conversion';
import { defineOperators } from './core';
import { DATE_OPERATORS } from './date';
import { LOGIC_OPERATORS } from './logic';
import { OBJECT_OPERATORS } from './object';
import { STRING_OPERATORS } from './string';
import { VARIABLE_OPERATORS } from './variables';

for (const table of [
  VARIABLE_OPERATORS,
  ARITHMETIC_OPERATORS,
  LOGIC_OPERATORS,
  STRING_OPERATORS,
  ARRAY_OPERATORS,
  OBJECT_OPERATORS,
  CONVERSION_OPERATORS,
  DATE_OPERATORS,
  ACCUMULATOR_EXPRESSIONS,
])
  defineOperators(table);
