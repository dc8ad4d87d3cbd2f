/** The BSON constructors of the shell: with or without `new`, the engine's classes, stored as their BSON types. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Binary, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'bson';
import { parseISODate } from '../../../src/shell/bson-globals';
import { harness, plain, START } from './helpers';

describe('parseISODate', () => {
  it('reads the ISO forms mongosh accepts; no zone means UTC', () => {
    assert.equal(parseISODate('2026-01-01')?.toISOString(), '2026-01-01T00:00:00.000Z');
    assert.equal(parseISODate('2026-01-01T10:20')?.toISOString(), '2026-01-01T10:20:00.000Z');
    assert.equal(parseISODate('2026-01-01T10:20:30')?.toISOString(), '2026-01-01T10:20:30.000Z');
    assert.equal(parseISODate('2026-01-01T10:20:30.5Z')?.toISOString(), '2026-01-01T10:20:30.500Z');
    assert.equal(parseISODate('2026-01-01T10:20:30.123456Z')?.toISOString(), '2026-01-01T10:20:30.123Z');
    assert.equal(parseISODate('2026-01-01T10:20:30+0100')?.toISOString(), '2026-01-01T09:20:30.000Z');
    assert.equal(parseISODate('2026-01-01T10:20:30-02:30')?.toISOString(), '2026-01-01T12:50:30.000Z');
    assert.equal(parseISODate('20260101T102030Z')?.toISOString(), '2026-01-01T10:20:30.000Z');
    assert.equal(parseISODate('2026-01-01 10:20:30Z')?.toISOString(), '2026-01-01T10:20:30.000Z');
    assert.equal(parseISODate('0050-06-01')?.toISOString(), '0050-06-01T00:00:00.000Z');
  });

  it('refuses what is not an ISO date', () => {
    for (const bad of ['July 22, 2013', '2026-13-01', '2026-01-01T25:00', 'yesterday', '']) {
      assert.equal(parseISODate(bad), undefined, bad);
    }
  });
});

describe('BSON globals in the shell', () => {
  it('ObjectId works with and without new, is instanceof ObjectId and keeps the static helpers', () => {
    const h = harness();
    const [a, b] = h.value(
      `[ObjectId('65a1b2c3d4e5f6a7b8c9d0e1'), new ObjectId('65a1b2c3d4e5f6a7b8c9d0e1')]`,
    ) as ObjectId[];
    assert.ok(a instanceof ObjectId);
    assert.ok(a.equals(b));
    assert.deepEqual(
      plain(
        h.value(
          `[ObjectId() instanceof ObjectId, ObjectId.isValid('65a1b2c3d4e5f6a7b8c9d0e1'), ObjectId.createFromHexString('65a1b2c3d4e5f6a7b8c9d0e1').toHexString(), typeof ObjectId().toHexString()]`,
        ),
      ),
      [true, true, '65a1b2c3d4e5f6a7b8c9d0e1', 'string'],
    );
    const fromTime = h.value('ObjectId.createFromTime(1700000000)') as ObjectId;
    assert.equal(fromTime.getTimestamp().getTime(), 1700000000 * 1000);
  });

  it('ISODate: no argument reads the engine clock, a string is parsed, garbage is refused', () => {
    const h = harness();
    assert.equal((h.value('ISODate()') as Date).getTime(), START);
    assert.equal((h.value('new ISODate("2013-07-22T14:00:00Z")') as Date).toISOString(), '2013-07-22T14:00:00.000Z');
    assert.equal((h.value('ISODate(0)') as Date).getTime(), 0);
    assert.equal(h.value('ISODate("2026-01-01") instanceof Date'), true);
    const bad = h.failure('ISODate("next tuesday")');
    assert.equal(bad.error?.name, 'MongoshInvalidInputError', "mongosh's name for a bad ISODate argument");
    assert.match(bad.error?.message ?? '', /not a valid ISODate/);
  });

  it('number constructors make Int32, Long, Decimal128 and Double', () => {
    const h = harness();
    const v = h.value(
      `[NumberInt(5), NumberInt("24"), NumberLong(7), NumberLong("9223372036854775807"), NumberDecimal("1.10"), Double(2), Int32(3), Long(8), Decimal128("3.3"), NumberLong()]`,
    ) as unknown[];
    assert.ok(v[0] instanceof Int32 && v[0].value === 5);
    assert.equal((v[1] as Int32).value, 24);
    assert.ok(Long.isLong(v[2]) && v[2].toNumber() === 7);
    assert.equal((v[3] as Long).toString(), '9223372036854775807');
    assert.ok(v[4] instanceof Decimal128 && v[4].toString() === '1.10');
    assert.ok(v[5] instanceof Double && v[5].value === 2);
    assert.equal((v[6] as Int32).value, 3);
    assert.equal((v[7] as Long).toNumber(), 8);
    assert.equal((v[8] as Decimal128).toString(), '3.3');
    assert.equal((v[9] as Long).toNumber(), 0);
  });

  it('the numbers are stored with their BSON types', () => {
    const h = harness();
    h.run(
      'db.n.insertOne({ i: NumberInt(1), l: NumberLong(1), d: NumberDecimal("1"), f: Double(1), ts: Timestamp({ t: 1, i: 1 }) })',
    );
    assert.deepEqual(
      plain(
        h.value(
          `['int', 'long', 'decimal', 'double', 'timestamp'].map((t, k) => db.n.countDocuments({ [['i', 'l', 'd', 'f', 'ts'][k]]: { $type: t } }))`,
        ),
      ),
      [1, 1, 1, 1, 1],
    );
  });

  it('Timestamp accepts {t, i}, the legacy (t, i) and nothing', () => {
    const h = harness();
    const [a, b, c] = h.value('[Timestamp({ t: 10, i: 2 }), Timestamp(10, 2), Timestamp()]') as Timestamp[];
    assert.ok(a instanceof Timestamp);
    assert.deepEqual([a.t, a.i], [10, 2]);
    assert.deepEqual([b.t, b.i], [10, 2]);
    assert.deepEqual([c.t, c.i], [0, 0]);
  });

  it("a stored Timestamp read back is the shell's Timestamp: instanceof, constructor, and it stores again as itself", () => {
    const h = harness();
    h.value('db.t.insertOne({ _id: 1, ts: Timestamp({ t: 5, i: 2 }) })');
    assert.deepEqual(
      plain(
        h.value(
          'const back = db.t.findOne().ts; [back instanceof Timestamp, back.constructor === Timestamp, Timestamp(1, 1).constructor === Timestamp, new Timestamp({ t: 1, i: 1 }) instanceof Timestamp]',
        ),
      ),
      [true, true, true, true],
    );
    assert.deepEqual(
      plain(
        h.value(
          'db.t.insertOne({ _id: 2, ts: back }); [db.t.countDocuments({ ts: Timestamp({ t: 5, i: 2 }) }), back.t, back.i]',
        ),
      ),
      [2, 5, 2],
    );
    const stored = h.engine.runCommand('test', { find: 't', filter: { _id: 2 } });
    const ts = (stored.cursor as { firstBatch: { ts: unknown }[] }).firstBatch[0].ts as Timestamp;
    assert.ok(ts instanceof Timestamp, 'the engine stores a bson Timestamp');
    assert.equal(h.rendered('db.t.findOne({ _id: 1 }).ts'), 'Timestamp({ t: 5, i: 2 })');
  });

  it('UUID, BinData, HexData and MD5 make Binary values of the right subtype', () => {
    const h = harness();
    const [u, r, bd, hd, md5] = h.value(
      `[UUID('01234567-89ab-cdef-0123-456789abcdef'), UUID(), BinData(0, 'aGVsbG8='), HexData(128, '0102'), MD5('0123456789abcdef0123456789abcdef')]`,
    ) as Binary[];
    assert.equal(u.sub_type, 4);
    assert.equal(u.toString('hex'), '0123456789abcdef0123456789abcdef');
    assert.equal(r.sub_type, 4);
    assert.equal(r.position, 16);
    assert.equal(bd.sub_type, 0);
    assert.equal(Buffer.from(bd.buffer.subarray(0, bd.position)).toString(), 'hello');
    assert.equal(hd.sub_type, 128);
    assert.equal(hd.toString('hex'), '0102');
    assert.equal(md5.sub_type, 5);
    assert.equal(h.failure('UUID("nope")').error?.name, 'BSONError');
    assert.equal(h.failure('BinData("x")').error?.name, 'TypeError');
  });

  it('MinKey and MaxKey sort below and above everything', () => {
    const h = harness();
    assert.ok(h.value('MinKey()') instanceof MinKey);
    assert.ok(h.value('new MaxKey()') instanceof MaxKey);
    h.run('db.k.insertMany([{ _id: 1, v: MaxKey() }, { _id: 2, v: 5 }, { _id: 3, v: MinKey() }])');
    assert.deepEqual(plain(h.value('db.k.find().sort({ v: 1 }).toArray().map(d => d._id)')), [3, 2, 1]);
  });

  it('Code, BSONRegExp, BSONSymbol, DBRef and bsonsize are available', () => {
    const h = harness();
    assert.equal(
      h.rendered(`[Code('f()'), BSONRegExp('^a', 'i'), BSONSymbol('s'), DBRef('c', 1)]`),
      "[ Code('f()'), BSONRegExp('^a', 'i'), BSONSymbol('s'), DBRef('c', 1) ]",
    );
    assert.equal(h.value('bsonsize({ a: 1 })'), 12); // 1 is stored as an int32
    assert.equal(h.value('bsonsize({ a: 1.5 })'), 16);
  });

  it('EJSON stringifies and parses extended JSON', () => {
    const h = harness();
    assert.equal(
      h.value(`EJSON.stringify({ d: ISODate('2026-01-01T00:00:00Z'), n: NumberLong(5) })`),
      '{"d":{"$date":"2026-01-01T00:00:00Z"},"n":5}',
    );
    assert.equal(
      h.value(`EJSON.stringify({ d: ISODate('2026-01-01T00:00:00Z') }, { relaxed: false })`),
      '{"d":{"$date":{"$numberLong":"1767225600000"}}}',
    );
    const parsed = h.value(
      `EJSON.parse('{"d":{"$date":"2026-01-01T00:00:00Z"},"o":{"$oid":"65a1b2c3d4e5f6a7b8c9d0e1"}}')`,
    ) as Record<string, unknown>;
    assert.ok(parsed.d instanceof Date);
    assert.ok(parsed.o instanceof ObjectId);
    assert.deepEqual(plain(h.value(`EJSON.serialize({ n: NumberInt(1) })`)), { n: 1 });
    assert.equal(h.failure('EJSON.parse("{")').error?.name, 'SyntaxError');
  });
});
