import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectError } from '../../../helpers/expect-error';
import { aggregate, assertDecimal, assertDouble, assertInt, assertLong, dec, ev, int, long } from './helpers';

describe('$exp, $ln, $log, $log10, $sqrt', () => {
  test('$exp, $ln and $log10 answer doubles for ints and doubles', () => {
    assertDouble(ev({ $exp: int(0) }), 1);
    assertDouble(ev({ $ln: Math.E }), 1);
    assertDouble(ev({ $log10: int(1000) }), 3);
    assertDouble(ev({ $log: [int(8), int(2)] }), 3, 1e-12);
  });

  test('a decimal operand makes a decimal result', () => {
    assertDecimal(ev({ $sqrt: dec('2.25') }), '1.5');
    assertDecimal(ev({ $log10: dec('100') }), '2');
  });

  test('decimal logarithms and exponentials are exact to 34 digits; a power of ten has an exact log10', () => {
    // The input is e rounded to 34 digits, a little below e: its ln is just under 1.
    assertDecimal(ev({ $ln: dec('2.718281828459045235360287471352662') }), '0.9999999999999999999999999999999998');
    assertDecimal(ev({ $ln: dec('10') }), '2.302585092994045684017991454684364');
    assertDecimal(ev({ $ln: dec('1.000') }), '0');
    assertDecimal(ev({ $exp: dec('1') }), '2.718281828459045235360287471352662');
    assertDecimal(ev({ $exp: dec('-1') }), '0.3678794411714423215955237701614609');
    assertDecimal(ev({ $exp: dec('100') }), '2.688117141816135448412625551580014E+43');
    assertDecimal(ev({ $log10: dec('2') }), '0.3010299956639811952137388947244930');
    assertDecimal(ev({ $log10: dec('0.001') }), '-3');
    // $log is ln(x) / ln(base), a decimal division: an exact quotient keeps its ideal exponent;
    // NaN falls through to doubles as in mongod.
    assertDecimal(ev({ $log: [dec('10'), dec('10')] }), '1');
    assertDecimal(ev({ $log: [dec('100'), int(10)] }), '2');
    assert.ok(Number.isNaN(ev({ $log: [NaN, dec('10')] })));
    expectError(() => ev({ $log: [dec('10'), dec('1.0')] }), 28759);
    expectError(() => ev({ $ln: dec('-1') }), 28766);
    expectError(() => ev({ $log10: dec('0') }), 28761);
  });

  test('null or missing operands answer null', () => {
    assert.equal(ev({ $sqrt: null }), null);
    assert.equal(ev({ $ln: '$nope' }), null);
    assert.equal(ev({ $log: [8, '$nope'] }), null);
  });

  test('non-numbers are refused with 28765 (single operand) and 28756/28757 ($log)', () => {
    expectError(() => ev({ $exp: 'x' }), 28765, '$exp only supports numeric types, not string');
    expectError(() => ev({ $log: ['x', 2] }), 28756, "$log's argument must be numeric, not string");
    expectError(() => ev({ $log: [2, 'x'] }), 28757, "$log's base must be numeric, not string");
  });

  test('domain errors: $ln 28766, $log10 28761, $log 28758/28759, $sqrt 28714; NaN passes through', () => {
    expectError(() => ev({ $ln: 0 }), 28766, "$ln's argument must be a positive number, but is 0");
    expectError(() => ev({ $log10: -1 }), 28761, /positive number, but is -1/);
    expectError(() => ev({ $log: [-1, 10] }), 28758);
    expectError(() => ev({ $log: [10, 1] }), 28759, "$log's base must be a positive number not equal to 1, but is 1");
    expectError(() => ev({ $sqrt: -4 }), 28714, "$sqrt's argument must be greater than or equal to 0");
    assert.ok(Number.isNaN(ev({ $sqrt: NaN })));
  });

  test('wrong operand counts are 16020', () => {
    expectError(() => ev({ $log: [1] }), 16020, 'Expression $log takes exactly 2 arguments. 1 were passed in.');
  });
});

describe('$pow', () => {
  test('int ^ int stays int while it fits, becomes long, then double', () => {
    assertInt(ev({ $pow: [int(2), int(10)] }), 1024);
    assertLong(ev({ $pow: [int(2), int(40)] }), 2n ** 40n);
    assertDouble(ev({ $pow: [int(2), int(64)] }), 2 ** 64);
  });

  test('a long operand keeps a long; a negative exponent gives a double; ±1 bases stay integral', () => {
    assertLong(ev({ $pow: [long(3), int(2)] }), 9);
    assertDouble(ev({ $pow: [int(2), int(-1)] }), 0.5);
    assertInt(ev({ $pow: [int(-1), int(-3)] }), -1);
  });

  test('doubles and decimals promote', () => {
    assertDouble(ev({ $pow: [2, 0.5] }), Math.SQRT2);
    // mongod's decimal power has a full 34-digit coefficient, even when exact.
    assertDecimal(ev({ $pow: [dec('2'), int(3)] }), '8.000000000000000000000000000000000');
  });

  test('$pow of decimals keeps 34 digits: exact powers, negative and fractional exponents', () => {
    assertDecimal(ev({ $pow: [dec('10.0'), -2] }), '0.01000000000000000000000000000000000');
    assertDecimal(ev({ $pow: [dec('10.0'), 2] }), '100.0000000000000000000000000000000');
    assertDecimal(ev({ $pow: [0.5, dec('-1')] }), '2.000000000000000000000000000000000');
    assertDecimal(ev({ $pow: [dec('-2.0'), int(3)] }), '-8.000000000000000000000000000000000');
    // 5^-112 = 2^112 × 10^-112: exactly 34 digits.
    assertDecimal(ev({ $pow: [int(5), dec('-112')] }), '5.192296858534827628530496329220096E-79');
    assertDecimal(ev({ $pow: [dec('2'), dec('0.5')] }), '1.414213562373095048801688724209698');
    assertDecimal(ev({ $pow: [dec('-2'), dec('0.5')] }), 'NaN');
    assertDecimal(ev({ $pow: [dec('NaN'), 2] }), 'NaN');
  });

  test('0 to a negative power is 28764; non-numbers 28762/28763; null answers null', () => {
    expectError(() => ev({ $pow: [0, -1] }), 28764, '$pow cannot take a base of 0 and a negative exponent');
    expectError(() => ev({ $pow: ['a', 1] }), 28762, "$pow's base must be numeric, not string");
    expectError(() => ev({ $pow: [1, 'a'] }), 28763, "$pow's exponent must be numeric, not string");
    assert.equal(ev({ $pow: [null, 2] }), null);
  });
});

describe('trigonometry', () => {
  test('$sin, $cos, $tan, $atan, hyperbolics and conversions answer doubles', () => {
    assertDouble(ev({ $sin: Math.PI / 2 }), 1);
    assertDouble(ev({ $cos: int(0) }), 1);
    assertDouble(ev({ $tan: 0 }), 0);
    assertDouble(ev({ $atan2: [int(1), int(1)] }), Math.PI / 4);
    assertDouble(ev({ $sinh: 0 }), 0);
    assertDouble(ev({ $acosh: 1 }), 0);
    assertDouble(ev({ $degreesToRadians: int(180) }), Math.PI);
    assertDouble(ev({ $radiansToDegrees: Math.PI }), 180);
  });

  test('a decimal input gives a decimal output', () => {
    assertDecimal(ev({ $radiansToDegrees: dec('0') }), /^0/);
    assertDecimal(ev({ $atan2: [dec('0'), 1] }), /^0/);
  });

  test('values outside the domain are 50989 with the interval', () => {
    expectError(() => ev({ $acos: 2 }), 50989, 'cannot apply $acos to 2, value must be in [-1,1]');
    expectError(() => ev({ $acosh: 0.5 }), 50989, 'cannot apply $acosh to 0.5, value must be in [1,inf]');
    expectError(() => ev({ $sin: Infinity }), 50989, 'cannot apply $sin to inf, value must be in (-inf,inf)');
  });

  test('null answers null, NaN passes through, non-numbers are 28765 and 51044/51045 for $atan2', () => {
    assert.equal(ev({ $cos: null }), null);
    assert.ok(Number.isNaN(ev({ $asin: NaN })));
    expectError(() => ev({ $tanh: 'x' }), 28765);
    expectError(() => ev({ $atan2: ['x', 1] }), 51044, '$atan2 only supports numeric types, not string');
    expectError(() => ev({ $atan2: [1, 'x'] }), 51045);
  });
});

describe('bitwise operators', () => {
  test('ints stay int, any long makes a long', () => {
    assertInt(ev({ $bitAnd: [int(12), int(10)] }), 8);
    assertInt(ev({ $bitOr: [int(12), int(10)] }), 14);
    assertInt(ev({ $bitXor: [int(12), int(10)] }), 6);
    assertLong(ev({ $bitOr: [int(1), long(2n ** 40n)] }), 2n ** 40n + 1n);
    assertInt(ev({ $bitNot: int(0) }), -1);
    assertLong(ev({ $bitNot: long(5) }), -6);
  });

  test('null answers null; doubles and decimals are TypeMismatch (14)', () => {
    assert.equal(ev({ $bitAnd: [int(1), null] }), null);
    assert.equal(ev({ $bitNot: '$nope' }), null);
    expectError(() => ev({ $bitAnd: [int(1), 1.5] }), 14, '$bitAnd only supports int and long operands.');
    expectError(() => ev({ $bitNot: 2.5 }), 14, '$bitNot only supports int and long, not: double.');
  });
});

describe('arithmetic end to end', () => {
  test('$pow, $sqrt and $bitAnd in $project over a real collection', () => {
    const out = aggregate(
      [{ _id: 1, a: int(3), b: int(4), flags: int(6) }],
      [
        {
          $project: {
            h: { $sqrt: { $add: [{ $pow: ['$a', 2] }, { $pow: ['$b', 2] }] } },
            low: { $bitAnd: ['$flags', int(3)] },
          },
        },
      ],
    );
    assert.equal(out.length, 1);
    assertDouble(out[0].h, 5);
    assertInt(out[0].low, 2);
  });
});

describe('$mod', () => {
  test('$mod: an integer dividend keeps its type when the divisor is a double holding a 32-bit integer', () => {
    assertInt(ev({ $mod: [int(8), 3.0] }), 2);
    assertLong(ev({ $mod: [long(8), 3.0] }), 2);
    assertInt(ev({ $mod: [int(8), int(3)] }), 2);
    assertLong(ev({ $mod: [int(8), long(3)] }), 2);
    assertDouble(ev({ $mod: [int(8), 3.25] }), 1.5);
    assertDouble(ev({ $mod: [138.5, int(3)] }), 0.5);
    // A double divisor beyond 32 bits takes the floating remainder.
    assertDouble(ev({ $mod: [long(500000000000), 450000000000.0] }), 50000000000);
  });
});
