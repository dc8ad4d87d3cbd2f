/** mongosh 2.x's text for values: every BSON type, nesting and line breaking, and relaxed EJSON. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as vm from 'node:vm';
import {
  Binary,
  BSONRegExp,
  BSONSymbol,
  Code,
  DBRef,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
  UUID,
} from 'bson';
import { formatBson, fullDepth, render, renderForPrint, shellDisplay, toRelaxedEjson } from '../../../src/shell/render';
import { harness } from './helpers';

const OID = '65a1b2c3d4e5f6a7b8c9d0e1';

describe('formatBson: each BSON type in mongosh 2.x form', () => {
  const cases: Array<[string, object, string]> = [
    ['ObjectId', new ObjectId(OID), `ObjectId('${OID}')`],
    ['Long', Long.fromString('9007199254740993'), "Long('9007199254740993')"],
    ['unsigned Long', Long.fromString('5', true), "Long('5', true)"],
    ['Int32', new Int32(42), 'Int32(42)'],
    ['Double', new Double(1.5), 'Double(1.5)'],
    ['Decimal128', Decimal128.fromString('0.1'), "Decimal128('0.1')"],
    ['Timestamp', new Timestamp({ t: 1700000000, i: 3 }), 'Timestamp({ t: 1700000000, i: 3 })'],
    ['UUID', new UUID('01234567-89ab-cdef-0123-456789abcdef'), "UUID('01234567-89ab-cdef-0123-456789abcdef')"],
    [
      'UUID as Binary subtype 4',
      new Binary(Buffer.from('0123456789abcdef0123456789abcdef', 'hex'), 4),
      "UUID('01234567-89ab-cdef-0123-456789abcdef')",
    ],
    [
      'MD5',
      new Binary(Buffer.from('0123456789abcdef0123456789abcdef', 'hex'), 5),
      "MD5('0123456789abcdef0123456789abcdef')",
    ],
    ['Binary', new Binary(Buffer.from('hello'), 0), "Binary.createFromBase64('aGVsbG8=', 0)"],
    ['Binary of another subtype', new Binary(Buffer.from([1, 2]), 128), "Binary.createFromBase64('AQI=', 128)"],
    ['MinKey', new MinKey(), 'MinKey()'],
    ['MaxKey', new MaxKey(), 'MaxKey()'],
    ['BSONRegExp', new BSONRegExp('^a', 'i'), "BSONRegExp('^a', 'i')"],
    ['BSONSymbol', new BSONSymbol('sym'), "BSONSymbol('sym')"],
    ['Code', new Code('function () {}'), "Code('function () {}')"],
    ['Code with scope', new Code('x', { a: 1 }), "Code('x', { a: 1 })"],
    ['DBRef', new DBRef('users', new ObjectId(OID)), `DBRef('users', ObjectId('${OID}'))`],
    ['DBRef with db', new DBRef('users', new ObjectId(OID), 'app'), `DBRef('users', ObjectId('${OID}'), 'app')`],
  ];
  for (const [name, value, expected] of cases) {
    it(name, () => assert.equal(formatBson(value), expected));
  }

  it('is undefined for anything that is not a BSON value', () => {
    assert.equal(formatBson({ a: 1 }), undefined);
    assert.equal(formatBson(new Date(0)), undefined);
  });
});

describe('render', () => {
  it('prints dates as ISODate and invalid dates as Invalid Date', () => {
    assert.equal(render(new Date('2026-01-01T00:00:00Z')), "ISODate('2026-01-01T00:00:00.000Z')");
    assert.equal(render(new Date(NaN)), 'Invalid Date');
  });

  it('prints dates and regexes of another realm the same way', () => {
    const value = vm.runInNewContext('({ d: new Date(0), r: /a+/i })');
    assert.equal(render(value), "{ d: ISODate('1970-01-01T00:00:00.000Z'), r: /a+/i }");
  });

  it('prints top-level strings raw and nested strings quoted; undefined prints nothing', () => {
    assert.equal(render('expireAt_1'), 'expireAt_1');
    assert.equal(render({ s: "it's" }), '{ s: "it\'s" }');
    assert.equal(render(['a']), "[ 'a' ]");
    assert.equal(render(undefined), undefined);
    assert.equal(render(null), 'null');
    assert.equal(render('tab\there'), 'tab\there'); // tab and newline are allowed, as in mongosh
    assert.equal(render('bell\x07'), "'bell\\x07'");
  });

  it('prints numbers, booleans and -0 as mongosh does', () => {
    assert.equal(render(3), '3');
    assert.equal(render(1.5), '1.5');
    assert.equal(render(-0), '-0');
    assert.equal(render(true), 'true');
    assert.equal(render({ n: 1e21, nan: NaN }), '{ n: 1e+21, nan: NaN }');
  });

  it('keeps short documents on one line and breaks long ones, two spaces per level', () => {
    assert.equal(render({ a: 1, b: 'x' }), "{ a: 1, b: 'x' }");
    assert.equal(
      render({ acknowledged: true, insertedId: new ObjectId(OID) }),
      `{\n  acknowledged: true,\n  insertedId: ObjectId('${OID}')\n}`,
    );
    assert.equal(
      render([
        { _id: 1, name: 'one' },
        { _id: 2, name: 'two' },
      ]),
      "[ { _id: 1, name: 'one' }, { _id: 2, name: 'two' } ]",
    );
    const long = render({
      description: 'a fairly long string value here',
      other: 'another fairly long value',
      n: { deep: [1, 2] },
    });
    assert.equal(
      long,
      "{\n  description: 'a fairly long string value here',\n  other: 'another fairly long value',\n  n: { deep: [ 1, 2 ] }\n}",
    );
  });

  it('quotes keys that are not identifiers', () => {
    assert.equal(render({ 'a.b': 1, 'with space': 2, ok: 3 }), "{ 'a.b': 1, 'with space': 2, ok: 3 }");
  });

  it('cuts nesting at depth 6 with [Object] / [Array], unless full', () => {
    const deep = { l1: { l2: { l3: { l4: { l5: { l6: { l7: { x: 1 } }, arr: [[1]] } } } } } };
    const text = render(deep)!;
    assert.match(text, /l7: \[Object\]/);
    assert.match(text, /arr: \[ \[Array\] \]/);
    assert.doesNotMatch(text, /x: 1/);
    const full = render(deep, { full: true })!;
    assert.match(full, /l7: \{ x: 1 \}/);
  });

  it('shows the first 100 array elements and counts the rest, unless full', () => {
    const items = Array.from({ length: 103 }, (_, i) => i);
    assert.match(render(items)!, /\.\.\. 3 more items\n\]$/);
    assert.doesNotMatch(render(items, { full: true })!, /more items/);
  });

  it('prints values marked fullDepth (explain output) at full depth', () => {
    const value = { a: { b: { c: { d: { e: { f: { g: { h: 1 } } } } } } } };
    fullDepth.add(value);
    assert.match(render(value)!, /h: 1/);
  });

  it('marks cycles instead of looping', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    assert.equal(render(a), "{ name: 'a', self: [Circular] }");
  });

  it('prints shell objects by their display name', () => {
    const db = { [shellDisplay]: () => 'app' };
    assert.equal(render(db), 'app');
    assert.equal(render({ db }), '{ db: app }');
    assert.equal(toRelaxedEjson(db), 'app');
  });

  it('renderForPrint prints strings raw and the rest rendered', () => {
    assert.equal(renderForPrint('a b'), 'a b');
    assert.equal(renderForPrint({ a: new Int32(1) }), '{ a: Int32(1) }');
    assert.equal(renderForPrint(undefined), '', 'mongosh prints undefined as nothing');
  });
});

describe('toRelaxedEjson', () => {
  it('serializes with relaxed EJSON (dates as ISO strings, numbers plain)', () => {
    assert.deepEqual(
      toRelaxedEjson({
        d: new Date('2026-01-01T00:00:00Z'),
        l: Long.fromNumber(5),
        i: new Int32(3),
        o: new ObjectId(OID),
      }),
      {
        d: { $date: '2026-01-01T00:00:00Z' },
        l: 5,
        i: 3,
        o: { $oid: OID },
      },
    );
    assert.deepEqual(toRelaxedEjson(Decimal128.fromString('1.5')), { $numberDecimal: '1.5' });
  });

  it('is undefined for values without an EJSON form', () => {
    assert.equal(toRelaxedEjson(undefined), undefined);
    assert.equal(
      toRelaxedEjson(() => 1),
      undefined,
    );
    const cycle: Record<string, unknown> = {};
    cycle.c = cycle;
    assert.equal(toRelaxedEjson(cycle), undefined);
  });
});

describe('rendering in a session', () => {
  it('renders every BSON constructor of the shell in mongosh form', () => {
    const h = harness();
    const text = h.rendered(`({
      oid: ObjectId('${OID}'), date: ISODate('2026-01-01T00:00:00Z'), long: NumberLong(5), int: NumberInt(7),
      dec: NumberDecimal('2.50'), dbl: Double(2.5), ts: Timestamp({ t: 5, i: 1 }), uuid: UUID('01234567-89ab-cdef-0123-456789abcdef'),
      bin: BinData(0, 'aGk='), min: MinKey(), max: MaxKey(), re: /x/m
    })`);
    assert.equal(
      text,
      [
        '{',
        `  oid: ObjectId('${OID}'),`,
        "  date: ISODate('2026-01-01T00:00:00.000Z'),",
        "  long: Long('5'),",
        '  int: Int32(7),',
        "  dec: Decimal128('2.50'),",
        '  dbl: Double(2.5),',
        '  ts: Timestamp({ t: 5, i: 1 }),',
        "  uuid: UUID('01234567-89ab-cdef-0123-456789abcdef'),",
        "  bin: Binary.createFromBase64('aGk=', 0),",
        '  min: MinKey(),',
        '  max: MaxKey(),',
        '  re: /x/m',
        '}',
      ].join('\n'),
    );
  });

  it('documents read back show int32 as plain numbers, as mongosh reads them', () => {
    const h = harness();
    h.run(`db.c.insertOne({ _id: 1, n: NumberInt(5), l: NumberLong(6), t: ISODate('2026-01-01T00:00:00Z') })`);
    assert.equal(
      h.rendered('db.c.findOne()'),
      "{ _id: 1, n: 5, l: Long('6'), t: ISODate('2026-01-01T00:00:00.000Z') }",
    );
  });

  it('statement results carry relaxed EJSON beside the text', () => {
    const h = harness();
    const result = h.last(`({ when: ISODate('2026-01-01T00:00:00Z'), n: 1 })`);
    assert.deepEqual(result.ejson, { when: { $date: '2026-01-01T00:00:00Z' }, n: 1 });
  });
});
