import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../../src/engine/errors';
import { compileFilter } from '../../../../src/engine/query/matcher';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

function within(shape: Document, loc: unknown): boolean {
  return compileFilter({ loc: { $geoWithin: shape } })({ loc });
}

function assertBadValue(shape: unknown, message: RegExp): void {
  expectError(() => compileFilter({ loc: { $geoWithin: shape } }), ErrorCode.BadValue, message);
}

const point = (lng: number, lat: number): Document => ({ type: 'Point', coordinates: [lng, lat] });

const polygon = (...ring: unknown[][]): Document => ({ type: 'Polygon', coordinates: [ring] });

describe('matcher: $geoWithin $polygon boundary', () => {
  const square = {
    $polygon: [
      [0, 0],
      [10, 0],
      [10, 10],
      [0, 10],
    ],
  };

  test('$polygon: a point on the right or the top edge is inside, as on the left and the bottom', () => {
    // The even-odd count alone leaves the right and top edges out; the boundary test puts them in.
    assert.equal(within(square, [10, 5]), true, 'right edge');
    assert.equal(within(square, [5, 10]), true, 'top edge');
    assert.equal(within(square, [10, 10]), true, 'top right corner');
    assert.equal(within(square, [10.5, 5]), false);
    assert.equal(within(square, [5, 10.5]), false);
  });

  test('$polygon: a point a rounding step right of a slanted right edge is outside', () => {
    // The edge runs from (1.2, 12.3) up to (4.2, 18). At y = 17.158 the interpolated x rounds to
    // exactly this point's x, yet in exact arithmetic the point lies right of the edge's line.
    const wedge = {
      $polygon: [
        [1.2, 12.3],
        [-10, 15],
        [4.2, 18],
      ],
    };
    assert.equal(within(wedge, [3.756842105263159, 17.158]), false);
    assert.equal(within(wedge, [3.7, 17.158]), true);
  });

  test('$polygon, $box and $center refuse an infinite or NaN coordinate, as MongoDB does', () => {
    assertBadValue(
      {
        $polygon: [
          [0, 0],
          [Infinity, 0],
          [Infinity, 10],
          [0, 10],
        ],
      },
      /malformed \$polygon: point coordinates must be finite numbers/,
    );
    assertBadValue(
      {
        $box: [
          [0, 0],
          [10, NaN],
        ],
      },
      /malformed \$box: point coordinates must be finite numbers/,
    );
    assertBadValue({ $center: [[-Infinity, 0], 1] }, /malformed \$center: point coordinates must be finite numbers/);
  });

  test('$box names the shape when its first corner is malformed', () => {
    assertBadValue(
      {
        $box: [
          ['a', 0],
          [10, 10],
        ],
      },
      /malformed \$box: point must be a pair of numbers/,
    );
  });
});

describe('matcher: $geoWithin on the sphere away from the prime meridian', () => {
  test('$centerSphere measures longitude in degrees, as latitude', () => {
    const cap = { $centerSphere: [[0, 0], (10 * Math.PI) / 180] };
    assert.equal(within(cap, [9, 0]), true);
    assert.equal(within(cap, [11, 0]), false);
    assert.equal(within(cap, [-11, 0]), false);
  });

  test('$geometry Polygon: a square near longitude 95 contains its middle and no point beyond an edge', () => {
    const square = polygon([90, 40], [100, 40], [100, 50], [90, 50], [90, 40]);
    assert.equal(within({ $geometry: square }, point(95, 45)), true);
    for (const [lng, lat] of [
      [105, 45],
      [85, 45],
      [95, 55],
      [95, 35],
    ])
      assert.equal(within({ $geometry: square }, point(lng, lat)), false, `(${lng}, ${lat})`);
  });

  test('$geometry Polygon: a triangle on the equator at longitude 90 contains its middle and no point beyond an edge', () => {
    const triangle = polygon([80, -5], [100, -5], [90, 10], [80, -5]);
    assert.equal(within({ $geometry: triangle }, point(90, 0)), true);
    for (const [lng, lat] of [
      [100, 5],
      [80, 5],
      [85, -8],
      [90, 12],
    ])
      assert.equal(within({ $geometry: triangle }, point(lng, lat)), false, `(${lng}, ${lat})`);
  });

  test('$geometry Polygon: a ring around the north pole contains the pole and not the lower latitudes', () => {
    const cap = polygon([0, 80], [90, 80], [180, 80], [-90, 80], [0, 80]);
    assert.equal(within({ $geometry: cap }, point(45, 85)), true);
    assert.equal(within({ $geometry: cap }, point(0, 90)), true);
    assert.equal(within({ $geometry: cap }, point(45, 70)), false);
    assert.equal(within({ $geometry: cap }, point(-135, 60)), false);
  });

  test('$geometry Polygon: the antipode of a vertex is outside', () => {
    const square = polygon([0, 0], [10, 0], [10, 10], [0, 10], [0, 0]);
    assert.equal(within({ $geometry: square }, point(-180, 0)), false, 'antipode of (0, 0)');
    assert.equal(within({ $geometry: square }, point(-170, -10)), false, 'antipode of (10, 10)');
    assert.equal(within({ $geometry: square }, point(10, 10)), true, 'the vertex itself');
  });

  test('$geometry Polygon: a point whose antipode is a vertex gets the answer of the points around it', () => {
    // Edges AB and CA lie on great circles through A = (180, 0) and so through its antipode (0, 0);
    // edge BC, about 7 degrees south of (0, 0), keeps that point and its neighbours out of the
    // triangle, the smaller of the two regions the ring parts the sphere into.
    const triangle = polygon(
      [180, 0],
      [42.797715039727294, 0.515733337957299],
      [-19.31787539346304, -10.573040936783935],
      [180, 0],
    );
    for (const [lng, lat] of [
      [0, 0],
      [1e-5, 2e-5],
      [-2e-5, 1e-5],
      [1e-7, 0],
      [0, -1e-7],
      [0, -1],
    ]) {
      assert.equal(within({ $geometry: triangle }, point(lng, lat)), false, `(${lng}, ${lat})`);
    }
    assert.equal(within({ $geometry: triangle }, point(100, 0)), true, 'a point well inside');
    assert.equal(within({ $geometry: triangle }, point(179.99, -0.001)), true, 'near the vertex, inside');
    assert.equal(within({ $geometry: triangle }, point(179.99, 0.01)), false, 'near the vertex, north of edge AB');
  });

  test('$geometry Polygon: a point across the globe from a small polygon is outside it, its antipode inside', () => {
    const square = polygon([-1, -1], [1, -1], [1, 1], [-1, 1], [-1, -1]);
    assert.equal(within({ $geometry: square }, point(0, 0)), true);
    assert.equal(within({ $geometry: square }, point(180, 0)), false, 'the antipode of its middle');
    assert.equal(within({ $geometry: square }, point(179.5, 0.2)), false);
    assert.equal(within({ $geometry: square }, point(90, 0)), false);
  });

  test('$geometry Polygon: a ring walked clockwise is the same polygon as walked counter-clockwise', () => {
    const ccw = polygon([30, 20], [40, 20], [40, 30], [30, 30], [30, 20]);
    const cw = polygon([30, 20], [30, 30], [40, 30], [40, 20], [30, 20]);
    for (const [lng, lat, inside] of [
      [35, 25, true],
      [39.9, 29.9, true],
      [45, 25, false],
      [-145, -25, false],
    ] as const) {
      assert.equal(within({ $geometry: ccw }, point(lng, lat)), inside, `ccw (${lng}, ${lat})`);
      assert.equal(within({ $geometry: cw }, point(lng, lat)), inside, `cw (${lng}, ${lat})`);
    }
  });

  test('$geometry Polygon: every vertex of a ring is inside, wherever the ring starts', () => {
    const ring = [
      [30, 20],
      [40, 20],
      [40, 30],
      [30, 30],
    ];
    for (let start = 0; start < ring.length; start++) {
      const turned = [...ring.slice(start), ...ring.slice(0, start)];
      const shape = { $geometry: polygon(...turned, turned[0]) };
      for (const [lng, lat] of ring)
        assert.equal(within(shape, point(lng, lat)), true, `(${lng}, ${lat}) from ${start}`);
    }
  });
});

describe('matcher: $geoWithin $geometry rings', () => {
  test('a triangle, three vertices and the first repeated, is a polygon', () => {
    const triangle = polygon([0, 0], [10, 0], [0, 10], [0, 0]);
    assert.equal(within({ $geometry: triangle }, point(2, 2)), true);
    assert.equal(within({ $geometry: triangle }, point(8, 8)), false);
  });

  test('a ring whose last vertex is not its first is refused: MongoDB does not close it', () => {
    const notClosed = /Loop is not closed, first vertex does not equal last vertex: repeat the first vertex at the end/;
    assertBadValue({ $geometry: polygon([0, 0], [10, 0], [10, 10], [0, 10]) }, notClosed);
    assertBadValue({ $geometry: polygon([0, 0], [10, 10], [0, 10], [10, 0]) }, notClosed);
    assertBadValue({ $geometry: polygon([0, 0], [10, 0], [10, 10], [0, 0.5]) }, notClosed);
  });

  test('a vertex repeated in a row counts once toward the three different vertices', () => {
    assertBadValue(
      { $geometry: polygon([0, 0], [10, 0], [10, 0], [0, 0]) },
      /Loop must have at least 3 different vertices/,
    );
    assertBadValue({ $geometry: { type: 'Polygon', coordinates: [[]] } }, /Loop has no vertices/);
    const repeated = polygon([0, 0], [10, 0], [10, 0], [10, 10], [0, 0]);
    assert.equal(within({ $geometry: repeated }, point(8, 2)), true);
  });

  test('a vertex off the globe (longitude beyond ±180, latitude beyond ±90) is refused, naming it', () => {
    assertBadValue(
      { $geometry: polygon([0, 0], [200, -1], [10, 10], [0, 0]) },
      /Longitude\/latitude is out of bounds, lng: 200 lat: -1/,
    );
    assertBadValue(
      { $geometry: polygon([0, 0], [10, 0], [10, -90.5], [0, 0]) },
      /Longitude\/latitude is out of bounds, lng: 10 lat: -90.5/,
    );
    const edge = polygon([-180, -90], [180, -90], [180, 90], [-180, -90]);
    assert.doesNotThrow(() => within({ $geometry: edge }, point(0, 0)), 'the bounds themselves are on the globe');
  });

  test('a malformed vertex of a ring names the Polygon', () => {
    assertBadValue({ $geometry: polygon([0, 0], [10, 0], ['x', 10], [0, 0]) }, /malformed Polygon: point must be/);
  });
});
