import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../../src/engine/errors';
import { compileFilter } from '../../../../src/engine/query/matcher';
import type { Document } from '../../../../src/engine/values/types';
import { expectError } from '../../helpers/expect-error';

function within(shape: Document, loc: unknown): boolean {
  return compileFilter({ loc: { $geoWithin: shape } })(loc === undefined ? {} : { loc });
}

function assertBadValue(shape: unknown, message: RegExp): void {
  expectError(() => compileFilter({ loc: { $geoWithin: shape } }), ErrorCode.BadValue, message);
}

const square = {
  type: 'Polygon',
  coordinates: [
    [
      [0, 0],
      [10, 0],
      [10, 10],
      [0, 10],
      [0, 0],
    ],
  ],
};

const point = (lng: number, lat: number): Document => ({ type: 'Point', coordinates: [lng, lat] });

describe('matcher: $geoWithin $box', () => {
  test('$box: every edge of the box is inside, a step beyond any edge is outside', () => {
    const box = {
      $box: [
        [0, 0],
        [10, 10],
      ],
    };
    for (const p of [
      [0, 5],
      [10, 5],
      [5, 0],
      [5, 10],
    ])
      assert.equal(within(box, p), true, `edge point ${String(p)}`);
    for (const p of [
      [-0.1, 5],
      [10.1, 5],
      [5, -0.1],
      [5, 10.1],
    ])
      assert.equal(within(box, p), false, `outside point ${String(p)}`);
  });

  test('$box: the corners may be given in either order', () => {
    const box = {
      $box: [
        [10, 10],
        [0, 0],
      ],
    };
    assert.equal(within(box, [5, 5]), true);
    assert.equal(within(box, [11, 5]), false);
  });

  test('$box needs exactly two corner points, each a pair of numbers', () => {
    assertBadValue({ $box: [[0, 0]] }, /malformed \$box: needs two corner points/);
    assertBadValue({ $box: 'abc' }, /malformed \$box: needs two corner points/);
    assertBadValue(
      {
        $box: [
          [0, 0],
          ['a', 1],
        ],
      },
      /malformed \$box: point must be a pair of numbers/,
    );
    assertBadValue({ $box: [[0, 0], [1]] }, /malformed \$box: point must be a pair of numbers/);
  });
});

describe('matcher: stored locations', () => {
  const box = {
    $box: [
      [0, 0],
      [10, 10],
    ],
  };

  test('a legacy pair is an array or an embedded document of two numbers, read in order', () => {
    assert.equal(within(box, { lng: 5, lat: 5 }), true);
    assert.equal(within(box, { lng: 5, lat: 50 }), false, 'the second value is y');
    assert.equal(within(box, { lng: 50, lat: 5 }), false, 'the first value is x');
  });

  test('a location with fewer than two numbers, or a non-number coordinate, is no location', () => {
    assert.equal(within(box, { lng: 5 }), false);
    assert.equal(within(box, { lng: 5, lat: '5' }), false);
    assert.equal(within(box, { lng: '5', lat: 5 }), false);
    assert.equal(within(box, 'abc'), false);
    assert.equal(within(box, 5), false);
    assert.equal(within(box, undefined), false, 'a missing field is not within any shape');
  });

  test('legacy shapes ($box) contain points only, never a GeoJSON line', () => {
    assert.equal(within(box, point(5, 5)), true);
    const line = {
      type: 'LineString',
      coordinates: [
        [1, 1],
        [2, 2],
      ],
    };
    assert.equal(within(box, line), false);
  });

  test('a GeoJSON Point needs an array of coordinates and a known type', () => {
    const sphereBox = { $geometry: square };
    assert.equal(within(sphereBox, { type: 'Point', coordinates: { x: 5, y: 5 } }), false);
    assert.equal(within(sphereBox, { type: 'Pointy', coordinates: [5, 5] }), false);
    assert.equal(within(sphereBox, { type: 'MultiPoint', coordinates: [] }), false, 'no vertex at all');
    assert.equal(
      within(sphereBox, { type: 7, coordinates: 5 }),
      true,
      'a non-string type is no GeoJSON: a legacy pair (7, 5)',
    );
  });
});

describe('matcher: $geoWithin $polygon', () => {
  const tri = {
    $polygon: [
      [0, 0],
      [10, 0],
      [0, 10],
    ],
  };

  test('$polygon: points on an edge or a vertex are inside', () => {
    assert.equal(within(tri, [5, 0]), true);
    assert.equal(within(tri, [0, 5]), true);
    assert.equal(within(tri, [5, 5]), true, 'on the hypotenuse');
    assert.equal(within(tri, [0, 0]), true);
    assert.equal(within(tri, [10, 0]), true);
  });

  test('$polygon: a point on the line through an edge but beyond its ends is outside', () => {
    assert.equal(within(tri, [-5, 0]), false);
    assert.equal(within(tri, [15, 0]), false);
    assert.equal(within(tri, [0, -5]), false);
    assert.equal(within(tri, [0, 15]), false);
    assert.equal(within(tri, [15, -5]), false, 'on the hypotenuse line, below its lower end');
    assert.equal(within(tri, [-5, 15]), false, 'on the hypotenuse line, above its upper end');
  });

  test('$polygon: a concave polygon leaves its notch outside', () => {
    // A U shape: the notch between the arms (5, 8) is outside, the arms and the base inside.
    const u = {
      $polygon: [
        [0, 0],
        [10, 0],
        [10, 10],
        [7, 10],
        [7, 3],
        [3, 3],
        [3, 10],
        [0, 10],
      ],
    };
    assert.equal(within(u, [5, 8]), false);
    assert.equal(within(u, [1, 8]), true);
    assert.equal(within(u, [9, 8]), true);
    assert.equal(within(u, [5, 1]), true);
    assert.equal(within(u, [11, 8]), false);
    assert.equal(within(u, [-1, 1]), false);
  });

  test('$polygon needs at least three points', () => {
    assertBadValue(
      {
        $polygon: [
          [0, 0],
          [1, 1],
        ],
      },
      /Polygon must have at least 3 points/,
    );
    assertBadValue({ $polygon: 5 }, /Polygon must have at least 3 points/);
    assertBadValue({ $polygon: [[0, 0], [1, 1], ['x']] }, /malformed \$polygon/);
  });
});

describe('matcher: $geoWithin $center and $centerSphere', () => {
  test('$center with radius 0 contains its center only', () => {
    assert.equal(within({ $center: [[2, 3], 0] }, [2, 3]), true);
    assert.equal(within({ $center: [[2, 3], 0] }, [2, 3.001]), false);
  });

  test('$center and $centerSphere need [center, radius] with a non-negative number radius', () => {
    assertBadValue({ $center: [[0, 0]] }, /malformed \$center: needs \[center, radius\]/);
    assertBadValue({ $center: 'x' }, /malformed \$center: needs \[center, radius\]/);
    assertBadValue({ $center: [[0, 0], -1] }, /malformed \$center: radius must be a non-negative number/);
    assertBadValue({ $center: [[0, 0], NaN] }, /malformed \$center: radius must be a non-negative number/);
    assertBadValue({ $center: [[0, 0], '5'] }, /malformed \$center: radius must be a non-negative number/);
    assertBadValue({ $centerSphere: [[0, 0], -0.5] }, /malformed \$centerSphere: radius/);
    assertBadValue({ $centerSphere: [['a', 0], 1] }, /malformed \$centerSphere: point/);
  });

  test('$centerSphere contains its own center even when the unit vectors round above 1', () => {
    // cos/sin of these degrees give a unit vector whose dot product with itself is 1 + 2^-52.
    assert.equal(within({ $centerSphere: [[-180, -81.6], 0] }, [-180, -81.6]), true);
  });

  test('$centerSphere of radius pi contains the antipode even when the dot product rounds below -1', () => {
    assert.equal(within({ $centerSphere: [[-179, -26.1], Math.PI] }, [1, 26.1]), true);
  });

  test('$centerSphere contains a GeoJSON line when it contains all of its vertices', () => {
    const f = { $centerSphere: [[0, 0], (10 * Math.PI) / 180] };
    const line = (end: number): Document => ({
      type: 'LineString',
      coordinates: [
        [0, 0],
        [0, end],
      ],
    });
    assert.equal(within(f, line(5)), true);
    assert.equal(within(f, line(15)), false);
  });
});

describe('matcher: $geoWithin $geometry', () => {
  test('$geometry Polygon: holes are outside', () => {
    const withHole = {
      type: 'Polygon',
      coordinates: [
        square.coordinates[0],
        [
          [4, 4],
          [6, 4],
          [6, 6],
          [4, 6],
          [4, 4],
        ],
      ],
    };
    assert.equal(within({ $geometry: withHole }, point(5, 5)), false);
    assert.equal(within({ $geometry: withHole }, point(2, 2)), true);
    assert.equal(within({ $geometry: withHole }, point(15, 5)), false);
  });

  test('$geometry Polygon: a ring wound clockwise contains the same points', () => {
    const clockwise = { type: 'Polygon', coordinates: [[...square.coordinates[0]].reverse()] };
    assert.equal(within({ $geometry: clockwise }, point(5, 5)), true);
    assert.equal(within({ $geometry: clockwise }, point(15, 5)), false);
  });

  test('$geometry Polygon: a vertex of the ring is inside', () => {
    assert.equal(within({ $geometry: square }, point(10, 10)), true);
    assert.equal(within({ $geometry: square }, point(0, 0)), true);
  });

  test('$geometry MultiPolygon: a point inside any of its polygons', () => {
    const far = square.coordinates[0].map(([x, y]) => [x + 20, y]);
    const multi = { type: 'MultiPolygon', coordinates: [square.coordinates, [far]] };
    assert.equal(within({ $geometry: multi }, point(5, 5)), true);
    assert.equal(within({ $geometry: multi }, point(25, 5)), true);
    assert.equal(within({ $geometry: multi }, point(15, 5)), false);
  });

  test('$geometry contains a stored polygon or line when it contains all of its vertices', () => {
    const inner = (d: number): Document => ({
      type: 'Polygon',
      coordinates: [
        [
          [2, 2],
          [d, 2],
          [d, d],
          [2, 2],
        ],
      ],
    });
    assert.equal(within({ $geometry: square }, inner(8)), true);
    assert.equal(within({ $geometry: square }, inner(12)), false);
    const multiPoint = {
      type: 'MultiPoint',
      coordinates: [
        [1, 1],
        [9, 9],
      ],
    };
    assert.equal(within({ $geometry: square }, multiPoint), true);
    const multiLine = {
      type: 'MultiLineString',
      coordinates: [
        [
          [1, 1],
          [2, 2],
        ],
        [
          [3, 3],
          [11, 11],
        ],
      ],
    };
    assert.equal(within({ $geometry: square }, multiLine), false);
    const multiPoly = { type: 'MultiPolygon', coordinates: [inner(8).coordinates] };
    assert.equal(within({ $geometry: square }, multiPoly), true);
  });

  test('a GeoJSON vertex that is not a number pair makes the stored geometry no location', () => {
    const bad = {
      type: 'LineString',
      coordinates: [
        [1, 1],
        ['a', 2],
      ],
    };
    assert.equal(within({ $geometry: square }, bad), false);
    assert.equal(within({ $geometry: square }, { type: 'LineString', coordinates: [1, 1] }), false);
  });

  test('$geometry errors: not an object, not a polygon, rings that are no loops', () => {
    assertBadValue({ $geometry: 5 }, /\$geometry must be an object/);
    assertBadValue(
      { $geometry: { type: 'Point', coordinates: [1, 1] } },
      /\$geoWithin not supported with provided geometry/,
    );
    assertBadValue(
      { $geometry: { type: 'MultiPolygon', coordinates: 5 } },
      /\$geoWithin not supported with provided geometry/,
    );
    assertBadValue(
      { $geometry: { type: 'Polygon', coordinates: [] } },
      /Polygon coordinates must be an array of rings/,
    );
    assertBadValue(
      { $geometry: { type: 'Polygon', coordinates: 'x' } },
      /Polygon coordinates must be an array of rings/,
    );
    assertBadValue(
      {
        $geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [1, 0],
              [0, 0],
            ],
          ],
        },
      },
      /Loop must have at least 3 different vertices/,
    );
    assertBadValue(
      { $geometry: { type: 'Polygon', coordinates: ['ring'] } },
      /GeoJSON coordinates must be an array of coordinates, instead got type string/,
    );
  });
});

describe('matcher: $geoWithin arguments', () => {
  test('$geoWithin takes an object naming exactly one shape', () => {
    assertBadValue(5, /\$geoWithin needs an object/);
    assertBadValue({}, /\$geoWithin needs exactly one shape/);
    assertBadValue(
      {
        $box: [
          [0, 0],
          [1, 1],
        ],
        $center: [[0, 0], 1],
      },
      /\$geoWithin needs exactly one shape/,
    );
  });

  test('$within is the deprecated spelling of $geoWithin', () => {
    const f = compileFilter({ loc: { $within: { $center: [[0, 0], 1] } } });
    assert.equal(f({ loc: [0, 1] }), true);
    assert.equal(f({ loc: [0, 2] }), false);
  });
});
