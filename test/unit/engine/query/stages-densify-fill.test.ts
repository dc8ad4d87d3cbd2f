/** $densify and $fill, with mongod's results and error codes. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Int32 } from 'bson';
import type { Document } from '../../../../src/engine';
import { runPipeline } from '../../../../src/engine/query/aggregate';
import { expectError } from '../../helpers/expect-error';

const NOW = new Date('2030-06-01T12:00:00Z');
const run = (input: Document[], pipeline: Document[]): Document[] => runPipeline(input, pipeline, { now: NOW });
const at = (iso: string): Date => new Date(`2021-05-18T${iso}:00.000Z`);

const COFFEE: Document[] = [
  { altitude: 600, variety: 'Arabica Typica', score: 68.3 },
  { altitude: 750, variety: 'Arabica Typica', score: 69.5 },
  { altitude: 950, variety: 'Arabica Typica', score: 70.5 },
  { altitude: 1250, variety: 'Gesha', score: 88.15 },
  { altitude: 1700, variety: 'Gesha', score: 85.5 },
  { altitude: 1600, variety: 'Gesha', score: 88.25 },
];

const altitudesOf = (docs: Document[], variety: string): number[] =>
  docs.filter((d) => d.variety === variety).map((d) => d.altitude as number);

describe('$densify', () => {
  it('dates with a unit and explicit bounds: hourly documents fill [lower, upper), later ones pass through', () => {
    const input = ['00:00', '04:00', '08:00', '12:00'].map((t, i) => ({ _id: i, timestamp: at(t), temp: i }));
    const out = run(input, [
      { $densify: { field: 'timestamp', range: { step: 1, unit: 'hour', bounds: [at('00:00'), at('08:00')] } } },
    ]);
    assert.deepEqual(
      out.map((d) => (d.timestamp as Date).toISOString().slice(11, 16)),
      ['00:00', '01:00', '02:00', '03:00', '04:00', '05:00', '06:00', '07:00', '08:00', '12:00'],
    );
    assert.deepEqual(out[1], { timestamp: at('01:00') }, 'a generated document holds only the field');
    assert.equal(out[4].temp, 1, 'existing documents are kept whole');
  });

  it('bounds "full" with partitions: every partition gets the grid from the smallest to the largest value', () => {
    const out = run(COFFEE, [
      { $densify: { field: 'altitude', partitionByFields: ['variety'], range: { bounds: 'full', step: 200 } } },
    ]);
    assert.deepEqual(
      altitudesOf(out, 'Arabica Typica').sort((a, b) => a - b),
      [600, 750, 800, 950, 1000, 1200, 1400, 1600],
    );
    assert.deepEqual(
      altitudesOf(out, 'Gesha').sort((a, b) => a - b),
      [600, 800, 1000, 1200, 1250, 1400, 1600, 1700],
    );
    assert.ok(out.some((d) => d.altitude === 800 && d.variety === 'Gesha' && !('score' in d)));
  });

  it('bounds "partition": each partition from its own smallest to its largest value, sorted by partition', () => {
    const out = run(COFFEE, [
      { $densify: { field: 'altitude', partitionByFields: ['variety'], range: { bounds: 'partition', step: 200 } } },
    ]);
    assert.deepEqual(
      out.map((d) => [d.variety, d.altitude]),
      [
        ['Arabica Typica', 600],
        ['Arabica Typica', 750],
        ['Arabica Typica', 800],
        ['Arabica Typica', 950],
        ['Gesha', 1250],
        ['Gesha', 1450],
        ['Gesha', 1600],
        ['Gesha', 1650],
        ['Gesha', 1700],
      ],
    );
  });

  it('numbers with explicit bounds and no documents inside still fill the whole range; null and missing pass through', () => {
    const out = run(
      [{ _id: 'n', x: null }, { _id: 'm' }],
      [{ $densify: { field: 'x', range: { step: 5, bounds: [0, 20] } } }],
    );
    assert.deepEqual(out, [{ _id: 'n', x: null }, { _id: 'm' }, { x: 0 }, { x: 5 }, { x: 10 }, { x: 15 }]);
  });

  it('a value off the grid does not move the grid, and a value on it is not generated twice', () => {
    const out = run(
      [{ x: 0 }, { x: 3 }, { x: 4 }, { x: 9 }],
      [{ $densify: { field: 'x', range: { step: 2, bounds: 'full' } } }],
    );
    assert.deepEqual(
      out.map((d) => d.x),
      [0, 2, 3, 4, 6, 8, 9],
    );
  });

  it('months step by calendar months from the previous value (Jan 31, Feb 29, Mar 29), on a dotted field', () => {
    const out = run(
      [{ m: { d: new Date('2024-01-31T00:00:00Z') } }, { m: { d: new Date('2024-05-01T00:00:00Z') } }],
      [{ $densify: { field: 'm.d', range: { step: 1, unit: 'month', bounds: 'full' } } }],
    );
    assert.deepEqual(
      out.map((d) => ((d.m as Document).d as Date).toISOString().slice(0, 10)),
      ['2024-01-31', '2024-02-29', '2024-03-29', '2024-04-29', '2024-05-01'],
    );
  });

  it('refuses malformed specifications with mongod codes', () => {
    const densify = (spec: unknown) => () => run([], [{ $densify: spec }]);
    expectError(densify(1), 9);
    expectError(
      densify({ range: { step: 1, bounds: 'full' } }),
      40414,
      "BSON field '$densify.field' is missing but a required field",
    );
    expectError(densify({ field: 'x', range: { step: 1, bounds: 'full' }, other: 1 }), 40415);
    expectError(densify({ field: 'x', range: { step: 0, bounds: 'full' } }), 5733401);
    expectError(densify({ field: 'x', range: { step: 1.5, unit: 'day', bounds: 'full' } }), 6586400);
    expectError(densify({ field: 'x', range: { step: 1, bounds: 'all' } }), 5946802);
    expectError(densify({ field: 'x', range: { step: 1, bounds: 7 } }), 5733404);
    expectError(densify({ field: 'x', range: { step: 1, bounds: [1] } }), 5733403);
    expectError(densify({ field: 'x', range: { step: 1, bounds: [5, 1] } }), 5733402);
    expectError(densify({ field: 'x', range: { step: 1, unit: 'day', bounds: [1, 5] } }), 5733409);
    expectError(densify({ field: 'x', range: { step: 1, bounds: [new Date(0), new Date(1)] } }), 5733410);
    expectError(densify({ field: 'x', range: { step: new Int32(1), bounds: [0.5, 5] } }), 5876900);
    expectError(densify({ field: 'x', range: { step: 1, bounds: ['a', 'b'] } }), 5946800);
    expectError(densify({ field: 'x', range: { step: 1, bounds: 'partition' } }), 5733408);
    expectError(densify({ field: 'x', range: { step: 1, unit: 'fortnight', bounds: 'full' } }), 9);
  });

  it('refuses a field value that is not a number or date, or whose kind does not match the unit', () => {
    const spec = { $densify: { field: 'x', range: { step: 1, bounds: 'full' } } };
    expectError(() => run([{ x: 'a' }], [spec]), 5733201, 'Densify field type must be numeric or a date');
    expectError(() => run([{ x: new Date(0) }], [spec]), 6053600);
    expectError(
      () => run([{ x: 1 }], [{ $densify: { field: 'x', range: { step: 1, unit: 'day', bounds: 'full' } } }]),
      6053600,
      'Encountered numeric densify value in collection when step has a date unit.',
    );
  });

  it("stops at mongod's limit of generated documents (5897900)", () => {
    expectError(
      () => run([{ x: 0 }, { x: 1e6 }], [{ $densify: { field: 'x', range: { step: 1, bounds: 'full' } } }]),
      5897900,
    );
  });
});

describe('$fill', () => {
  it("value: null and missing fields get the expression's value, others keep theirs", () => {
    const out = run(
      [
        { _id: 1, boots: 5 },
        { _id: 2, boots: null, sandals: 3 },
      ],
      [{ $fill: { output: { boots: { value: 0 }, sandals: { value: { $literal: 'none' } } } } }],
    );
    assert.deepEqual(out, [
      { _id: 1, boots: 5, sandals: 'none' },
      { _id: 2, boots: 0, sandals: 3 },
    ]);
  });

  it('method "linear": gaps are interpolated along sortBy', () => {
    const prices = [500, null, 515, null, null, 560].map((p, i) => ({ time: i, price: p }));
    const out = run(prices.reverse(), [{ $fill: { sortBy: { time: 1 }, output: { price: { method: 'linear' } } } }]);
    assert.deepEqual(
      out.map((d) => d.price),
      [500, 507.5, 515, 530, 545, 560],
    );
  });

  it('method "locf" per partition (partitionByFields): the last value seen in the same partition', () => {
    const out = run(
      [
        { t: 1, g: 'a', s: 90 },
        { t: 1, g: 'b', s: 10 },
        { t: 2, g: 'a', s: null },
        { t: 3, g: 'b' },
        { t: 4, g: 'a', s: 80 },
      ],
      [
        { $fill: { sortBy: { t: 1 }, partitionByFields: ['g'], output: { s: { method: 'locf' } } } },
        { $sort: { g: 1, t: 1 } },
      ],
    );
    assert.deepEqual(
      out.map((d) => [d.g, d.t, d.s]),
      [
        ['a', 1, 90],
        ['a', 2, 90],
        ['a', 4, 80],
        ['b', 1, 10],
        ['b', 3, 10],
      ],
    );
  });

  it('partitionBy takes an expression', () => {
    const out = run(
      [
        { t: 1, g: 'A', s: 1 },
        { t: 2, g: 'a' },
      ],
      [{ $fill: { sortBy: { t: 1 }, partitionBy: { $toLower: '$g' }, output: { s: { method: 'locf' } } } }],
    );
    assert.deepEqual(
      out.map((d) => d.s),
      [1, 1],
    );
  });

  it('refuses malformed specifications with mongod codes', () => {
    const fill = (spec: unknown) => () => run([], [{ $fill: spec }]);
    expectError(fill('x'), 9);
    expectError(fill({}), 40414, "BSON field '$fill.output' is missing but a required field");
    expectError(fill({ output: {} }), 6050203);
    expectError(fill({ output: { a: 1 } }), 6050200);
    expectError(fill({ output: { a: { method: 'locf', value: 1 } } }), 6050201);
    expectError(fill({ output: { a: { method: 'nearest' } } }), 6050202, 'Method must be either locf or linear');
    expectError(fill({ output: { a: { value: 1 } }, partitionBy: '$g', partitionByFields: ['g'] }), 6050204);
    expectError(fill({ output: { a: { value: 1 } }, other: 1 }), 40415);
  });
});
