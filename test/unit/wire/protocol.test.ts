/**
 * The wire protocol's frames as bytes (src/wire/protocol.ts), without a socket: what an OP_MSG or
 * OP_QUERY frame parses to, which malformed frame is refused and why (the reason is what the
 * connection logs when it closes), the nesting test run before a document is decoded, the frames
 * the server writes, and the CRC-32C checksum.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  Binary,
  BSON,
  BSONRegExp,
  BSONSymbol,
  Code,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
  type Document,
} from 'bson';
import {
  bsonNestsDeeperThan,
  crc32c,
  FrameError,
  MSG_EXHAUST_ALLOWED,
  MSG_MORE_TO_COME,
  OP_MSG,
  OP_QUERY,
  OP_REPLY,
  opMsgFrame,
  opReplyFrame,
  parseOpMsg,
  parseOpQuery,
  readHeader,
} from '../../../src/wire/protocol';
import { bson, header, opMsg, opQuery } from './raw-client';

/** An int32 in little-endian bytes. */
function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n, 0);
  return b;
}

/** An OP_MSG frame from its sections' bytes as given (so they may be wrong), with a correct length. */
function rawMsg(flags: number, ...sections: Buffer[]): Buffer {
  const rest = Buffer.concat([Buffer.alloc(4), ...sections]);
  rest.writeUInt32LE(flags >>> 0, 0);
  return Buffer.concat([header(16 + rest.length, 9, 0, OP_MSG), rest]);
}

/** The frame with its length fixed, flag bit 0 set and a CRC-32C of everything before it appended. */
function withChecksum(frame: Buffer, sum?: number): Buffer {
  const out = Buffer.concat([frame, Buffer.alloc(4)]);
  out.writeInt32LE(out.length, 0);
  out.writeUInt32LE((out.readUInt32LE(16) | 1) >>> 0, 16);
  out.writeUInt32LE(sum ?? crc32c(out.subarray(0, out.length - 4)), out.length - 4);
  return out;
}

function refuses(parse: () => unknown, reason: RegExp): void {
  assert.throws(parse, (e: unknown) => {
    assert.ok(e instanceof FrameError, `a FrameError, not ${String(e)}`);
    assert.match(e.message, reason);
    return true;
  });
}

/** A document nesting `levels` levels (itself level 1) through fields named `a`. */
function nested(levels: number): Document {
  let doc: Document = {};
  for (let i = 1; i < levels; i++) doc = { a: doc };
  return doc;
}

describe('wire protocol: the header', () => {
  it('readHeader reads length, requestID, responseTo and opCode in that order', () => {
    assert.deepEqual(readHeader(header(123, -7, 456, OP_QUERY)), {
      messageLength: 123,
      requestID: -7,
      responseTo: 456,
      opCode: OP_QUERY,
    });
  });
});

describe('wire protocol: parsing OP_MSG', () => {
  it('the body comes back as its own bytes, with the flags, and no sequences', () => {
    const body = bson({ ping: 1, $db: 'admin' });
    const msg = parseOpMsg(opMsg({ body, flags: MSG_EXHAUST_ALLOWED }));
    assert.equal(msg.flags, MSG_EXHAUST_ALLOWED);
    assert.deepEqual(msg.body, body);
    assert.deepEqual(msg.sequences, []);
  });

  it('the smallest OP_MSG (an empty body document, 26 bytes) is read', () => {
    const frame = opMsg({ body: bson({}) });
    assert.equal(frame.length, 26);
    assert.deepEqual(parseOpMsg(frame).body, bson({}));
  });

  it('a frame shorter than a header, flags and one section kind is refused as too short', () => {
    refuses(() => parseOpMsg(rawMsg(0)), /^OP_MSG: too short$/);
    // 21 bytes hold the kind but no document: refused for the body, not for the frame's size.
    refuses(() => parseOpMsg(rawMsg(0, Buffer.from([0]))), /^OP_MSG body: truncated before its BSON document$/);
  });

  it('document sequences: each identifier with its documents, in order, around the body', () => {
    const docs = [bson({ _id: 1 }), bson({ _id: 2, s: 'x' })];
    const body = bson({ insert: 'c', $db: 'd' });
    const frame = opMsg({
      body,
      sequences: [
        { identifier: 'documents', documents: docs },
        { identifier: 'updates', documents: [] },
      ],
    });
    const msg = parseOpMsg(frame);
    assert.deepEqual(msg.body, body);
    assert.deepEqual(msg.sequences, [
      { identifier: 'documents', documents: docs },
      { identifier: 'updates', documents: [] },
    ]);
    // A sequence may come before the body.
    const seq = Buffer.concat([Buffer.from('documents\0'), ...docs]);
    const first = rawMsg(0, Buffer.from([1]), int32(4 + seq.length), seq, Buffer.from([0]), body);
    assert.deepEqual(parseOpMsg(first), {
      flags: 0,
      body,
      sequences: [{ identifier: 'documents', documents: docs }],
    });
  });

  it('a sequence of 5 bytes (an empty identifier, no documents) is read; one of 4 is refused', () => {
    const body = bson({ a: 1 });
    const msg = parseOpMsg(rawMsg(0, Buffer.from([0]), body, Buffer.from([1]), int32(5), Buffer.from([0])));
    assert.deepEqual(msg.sequences, [{ identifier: '', documents: [] }]);
    refuses(
      () => parseOpMsg(rawMsg(0, Buffer.from([0]), body, Buffer.from([1]), int32(4))),
      /^OP_MSG: a document sequence of 4 bytes does not fit$/,
    );
  });

  it('a sequence whose size runs past the frame, or whose size is cut off, is refused', () => {
    const body = bson({ a: 1 });
    const seq = Buffer.concat([Buffer.from('d\0'), bson({ x: 1 })]);
    refuses(
      () => parseOpMsg(rawMsg(0, Buffer.from([0]), body, Buffer.from([1]), int32(5 + seq.length), seq)),
      new RegExp(`^OP_MSG: a document sequence of ${5 + seq.length} bytes does not fit$`),
    );
    refuses(
      () => parseOpMsg(rawMsg(0, Buffer.from([0]), body, Buffer.from([1]), Buffer.from([9, 0, 0]))),
      /^OP_MSG: truncated document sequence$/,
    );
  });

  it("a sequence's identifier must end inside the sequence", () => {
    const body = bson({ a: 1 });
    // The size covers "docs" but not its terminating zero, which is the next byte of the frame.
    refuses(
      () => parseOpMsg(rawMsg(0, Buffer.from([1]), int32(8), Buffer.from('docs\0'), Buffer.from([0]), body)),
      /^OP_MSG document sequence: an unterminated name$/,
    );
    // No zero byte at all after the name's start.
    refuses(
      () => parseOpMsg(rawMsg(0, Buffer.from([0]), body, Buffer.from([1]), int32(7), Buffer.from('abc'))),
      /^OP_MSG document sequence: an unterminated name$/,
    );
  });

  it("a sequence's documents must each fit in the sequence", () => {
    const body = bson({ a: 1 });
    const doc = bson({ x: 1 });
    // The sequence's size stops one byte short of its document's end.
    const seq = Buffer.concat([Buffer.from('docs\0'), doc]);
    refuses(
      () => parseOpMsg(rawMsg(0, Buffer.from([1]), int32(4 + seq.length - 1), seq, Buffer.from([0]), body)),
      new RegExp(`^OP_MSG sequence docs: a BSON document of ${doc.length} bytes does not fit$`),
    );
    // Three bytes of a document left in the sequence.
    const short = Buffer.concat([Buffer.from('docs\0'), doc, Buffer.from([5, 0, 0])]);
    refuses(
      () => parseOpMsg(rawMsg(0, Buffer.from([0]), body, Buffer.from([1]), int32(4 + short.length), short)),
      /^OP_MSG sequence docs: truncated before its BSON document$/,
    );
  });

  it('the body: one, a whole BSON document ending in 0; two, none or a bad size is refused', () => {
    const body = bson({ a: 1 });
    refuses(() => parseOpMsg(rawMsg(0, Buffer.from([0]), body, Buffer.from([0]), body)), /^OP_MSG: two body sections$/);
    refuses(() => parseOpMsg(rawMsg(0, Buffer.from([1]), int32(7), Buffer.from('ab\0'))), /^OP_MSG: no body section$/);
    const unterminated = Buffer.from(body);
    unterminated[unterminated.length - 1] = 1;
    refuses(
      () => parseOpMsg(rawMsg(0, Buffer.from([0]), unterminated)),
      /^OP_MSG body: a BSON document does not end with 0$/,
    );
    // A size of 4 is less than the smallest document; one byte more than the frame holds does not fit.
    refuses(() => parseOpMsg(rawMsg(0, Buffer.from([0]), int32(4), Buffer.from([0]))), /of 4 bytes does not fit$/);
    const long = Buffer.from(body);
    long.writeInt32LE(body.length + 1, 0);
    refuses(
      () => parseOpMsg(rawMsg(0, Buffer.from([0]), long)),
      new RegExp(`of ${body.length + 1} bytes does not fit$`),
    );
  });

  it('the body is only the bytes its size gives, and what follows is read as further sections', () => {
    const body = bson({ a: 1 });
    const frame = rawMsg(0, Buffer.from([0]), body, Buffer.from([2]));
    refuses(() => parseOpMsg(frame), /^OP_MSG: unknown section kind 2$/);
  });

  it('flag bits: moreToCome and exhaustAllowed are read; an unknown required bit (0-15) is refused', () => {
    const body = bson({ a: 1 });
    for (const flags of [MSG_MORE_TO_COME, MSG_EXHAUST_ALLOWED, 1 << 17, (1 << 31) >>> 0])
      assert.equal(parseOpMsg(rawMsg(flags, Buffer.from([0]), body)).flags, flags);
    refuses(() => parseOpMsg(rawMsg(1 << 2, Buffer.from([0]), body)), /^OP_MSG: unknown required flag bits 0x4$/);
    // Only the unknown bits are named, not moreToCome beside them.
    refuses(
      () => parseOpMsg(rawMsg(MSG_MORE_TO_COME | (1 << 15), Buffer.from([0]), body)),
      /^OP_MSG: unknown required flag bits 0x8000$/,
    );
  });

  it('a checksum (flag bit 0): a right one is read and is not part of the sections; a wrong one is refused', () => {
    const body = bson({ ping: 1 });
    const frame = withChecksum(rawMsg(0, Buffer.from([0]), body));
    const msg = parseOpMsg(frame);
    assert.equal(msg.flags, 1);
    assert.deepEqual(msg.body, body);
    // The same frame from the test client's builder, a sequence last (next to the checksum).
    const docs = [bson({ _id: 1 })];
    assert.deepEqual(parseOpMsg(opMsg({ body, sequences: [{ identifier: 'd', documents: docs }], checksum: true })), {
      flags: 1,
      body,
      sequences: [{ identifier: 'd', documents: docs }],
    });
    const wrong = withChecksum(
      rawMsg(0, Buffer.from([0]), body),
      (crc32c(frame.subarray(0, frame.length - 4)) ^ 1) >>> 0,
    );
    refuses(() => parseOpMsg(wrong), /^OP_MSG: checksum mismatch$/);
  });

  it('a checksum needs the flags before it: 24 bytes are read (and have no body), 23 are too short', () => {
    const bare = withChecksum(rawMsg(0));
    assert.equal(bare.length, 24);
    refuses(() => parseOpMsg(bare), /^OP_MSG: no body section$/);
    // 23 bytes: the checksum would start inside the flags.
    const short = Buffer.concat([rawMsg(1), Buffer.from([0, 0, 0])]);
    short.writeInt32LE(short.length, 0);
    refuses(() => parseOpMsg(short), /^OP_MSG: too short for its checksum$/);
  });
});

describe('wire protocol: parsing OP_QUERY', () => {
  it('flags, namespace, skip, limit and the query document', () => {
    const query = bson({ hello: 1 });
    const frame = opQuery('admin.$cmd', query, 5, 4);
    frame.writeInt32LE(3, 16 + 4 + 'admin.$cmd\0'.length);
    assert.deepEqual(parseOpQuery(frame), {
      flags: 4,
      fullCollectionName: 'admin.$cmd',
      numberToSkip: 3,
      numberToReturn: -1,
      query,
    });
  });

  it('refused: no flags, an unterminated namespace, no skip and limit, a query cut short', () => {
    const h = (rest: Buffer) => Buffer.concat([header(16 + rest.length, 1, 0, OP_QUERY), rest]);
    refuses(() => parseOpQuery(h(Buffer.alloc(3))), /^OP_QUERY: too short$/);
    // Four bytes of flags and nothing else: the namespace is what is missing.
    refuses(() => parseOpQuery(h(Buffer.alloc(4, 1))), /^OP_QUERY: an unterminated name$/);
    const ns = Buffer.concat([int32(0), Buffer.from('a.$cmd\0')]);
    refuses(() => parseOpQuery(h(Buffer.concat([ns, Buffer.alloc(7)]))), /^OP_QUERY: truncated$/);
    // Skip and limit, and no document after them.
    refuses(
      () => parseOpQuery(h(Buffer.concat([ns, Buffer.alloc(8)]))),
      /^OP_QUERY query: truncated before its BSON document$/,
    );
    const query = bson({ hello: 1 });
    refuses(
      () => parseOpQuery(h(Buffer.concat([ns, Buffer.alloc(8), query.subarray(0, query.length - 1)]))),
      new RegExp(`^OP_QUERY query: a BSON document of ${query.length} bytes does not fit$`),
    );
  });
});

describe('wire protocol: how deep a document nests, read from its bytes', () => {
  const bytes = (doc: Document) => Buffer.from(BSON.serialize(doc));

  it('a document of limit levels is not deeper than limit; one of limit + 1 is', () => {
    for (const limit of [3, 10, 100]) {
      assert.equal(bsonNestsDeeperThan(bytes(nested(limit)), limit), false, `${limit} levels`);
      assert.equal(bsonNestsDeeperThan(bytes(nested(limit + 1)), limit), true, `${limit + 1} levels`);
    }
  });

  it('arrays count as levels, as documents do', () => {
    let doc: unknown = [];
    for (let i = 0; i < 9; i++) doc = i % 2 ? { a: doc } : [doc];
    // Arrays and documents in turn, 10 levels, in a document: 11 levels, padded so that it is walked.
    assert.equal(bsonNestsDeeperThan(bytes({ doc, pad: 'x'.repeat(100) }), 11), false);
    assert.equal(bsonNestsDeeperThan(bytes({ doc, pad: 'x'.repeat(100) }), 10), true);
  });

  it("a code's scope is a level down", () => {
    const scoped = { f: new Code('x', nested(6)) };
    assert.equal(bsonNestsDeeperThan(bytes({ ...scoped, pad: 'x'.repeat(100) }), 7), false);
    assert.equal(bsonNestsDeeperThan(bytes({ ...scoped, pad: 'x'.repeat(100) }), 6), true);
  });

  it('the deep part is found after a value of every BSON type, and after a shallow sibling document', () => {
    const values: Record<string, unknown> = {
      double: new Double(1.5),
      string: 'text',
      document: { x: { y: 1 } },
      array: [1, [2]],
      binary: new Binary(Buffer.from([1, 2, 3]), 4),
      objectId: new ObjectId('65a1b2c3d4e5f60718293a4b'),
      bool: true,
      date: new Date(0),
      null: null,
      regex: new BSONRegExp('a+b', 'i'),
      code: new Code('function () {}'),
      symbol: new BSONSymbol('sym'),
      codeWithScope: new Code('x', { y: 1 }),
      int32: new Int32(5),
      timestamp: new Timestamp({ t: 1, i: 2 }),
      long: Long.fromNumber(7),
      decimal: Decimal128.fromString('1.5'),
      minKey: new MinKey(),
      maxKey: new MaxKey(),
    };
    for (const [type, value] of Object.entries(values)) {
      assert.equal(bsonNestsDeeperThan(bytes({ v: value, deep: nested(5) }), 5), true, type);
      assert.equal(bsonNestsDeeperThan(bytes({ v: value, deep: nested(4), pad: 'x'.repeat(40) }), 5), false, type);
    }
  });

  it('the types js-bson does not write (undefined, DBPointer) are stepped over too', () => {
    const deep = BSON.serialize({ deep: nested(5) });
    const inner = deep.subarray(4, deep.length - 1); // the "deep" element
    const doc = (element: Buffer) => {
      const d = Buffer.concat([int32(0), element, inner, Buffer.from([0])]);
      d.writeInt32LE(d.length, 0);
      return d;
    };
    const undef = Buffer.from([6, 0x75, 0]); // u: undefined
    const pointerNs = Buffer.concat([int32(3), Buffer.from('db\0')]);
    const pointer = Buffer.concat([Buffer.from([12, 0x70, 0]), pointerNs, Buffer.alloc(12, 1)]); // p: DBPointer
    for (const element of [undef, pointer]) {
      assert.equal(bsonNestsDeeperThan(doc(element), 5), true, `type ${element[0]}`);
      assert.equal(bsonNestsDeeperThan(doc(element), 6), false, `type ${element[0]}`);
    }
  });

  it('a document smaller than 7 bytes a level is not walked: it cannot nest that deep', () => {
    // 11 levels through empty field names take 7 bytes a level and 5 for the innermost: 75 bytes.
    let doc = Buffer.from([5, 0, 0, 0, 0]);
    for (let i = 1; i < 11; i++) {
      const d = Buffer.concat([int32(0), Buffer.from([3, 0]), doc, Buffer.from([0])]);
      d.writeInt32LE(d.length, 0);
      doc = d;
    }
    assert.equal(doc.length, 75);
    assert.equal(bsonNestsDeeperThan(doc, 10), true);
    assert.equal(bsonNestsDeeperThan(doc, 11), false);
  });

  it('bytes that are not BSON answer false (the decoder reports them)', () => {
    const deep = bytes({ deep: nested(6) });
    const cases: Array<[string, Buffer]> = [];
    // An unknown type byte before the deep part.
    const unknownType = Buffer.from(bytes({ v: 1, deep: nested(6) }));
    unknownType[4] = 0x20;
    cases.push(['an unknown type', unknownType]);
    // A field name without its terminating zero inside the document.
    const key = Buffer.concat([int32(0), Buffer.from([8]), Buffer.alloc(80, 0x61), Buffer.from([0])]);
    key.writeInt32LE(key.length, 0);
    cases.push(['an unterminated name', key]);
    // A string whose length runs past the document, before the deep part.
    const longString = Buffer.from(bytes({ s: 'abc', deep: nested(6) }));
    longString.writeInt32LE(10_000, 7);
    cases.push(['a string too long', longString]);
    // An inner document whose size runs past its parent.
    const innerSize = Buffer.from(deep);
    innerSize.writeInt32LE(deep.length, 10);
    cases.push(['an inner document too long', innerSize]);
    // An inner document one byte longer than it is: it would end on its parent's terminator.
    const ontoEnd = Buffer.from(deep);
    ontoEnd.writeInt32LE(ontoEnd.readInt32LE(10) + 1, 10);
    cases.push(["an inner document that runs onto its parent's terminator", ontoEnd]);
    // An inner document whose size is less than 5.
    const tiny = Buffer.from(deep);
    tiny.writeInt32LE(4, 10);
    cases.push(['an inner document too small', tiny]);
    for (const [what, doc] of cases) assert.equal(bsonNestsDeeperThan(doc, 5), false, what);
    // No zero byte after the first type at all (the last byte is not the terminator): a limit of 1
    // would be passed by anything read as a document there.
    const noZero = Buffer.concat([int32(20), Buffer.from([3]), Buffer.alloc(15, 0x61)]);
    assert.equal(bsonNestsDeeperThan(noZero, 1), false);
  });

  it('a value cut off by the end of the bytes answers false: nothing is read past them', () => {
    // {c: <type>} with two bytes of the value and the terminator: every size field runs past the end.
    for (const type of [2, 3, 5, 12, 15]) {
      const doc = Buffer.concat([int32(10), Buffer.from([type, 0x63, 0, 1, 1, 0])]);
      assert.equal(bsonNestsDeeperThan(doc, 1), false, `type ${type}`);
    }
  });
});

describe('wire protocol: the frames the server writes', () => {
  it('an OP_MSG reply: its length, ids, flags (moreToCome when asked) and one body section', () => {
    const doc = bson({ ok: 1 });
    // A view into a larger buffer: only the view's bytes are sent.
    const view = Buffer.concat([Buffer.from([7, 7, 7]), doc, Buffer.from([7])]).subarray(3, 3 + doc.length);
    for (const moreToCome of [false, true]) {
      const frame = Buffer.concat(opMsgFrame(view, 41, 40, moreToCome));
      assert.deepEqual(readHeader(frame), {
        messageLength: frame.length,
        requestID: 41,
        responseTo: 40,
        opCode: OP_MSG,
      });
      assert.equal(frame.length, 16 + 4 + 1 + doc.length);
      assert.deepEqual(parseOpMsg(frame), { flags: moreToCome ? MSG_MORE_TO_COME : 0, body: doc, sequences: [] });
    }
    assert.equal(Buffer.concat(opMsgFrame(doc, 1, 0)).readUInt32LE(16), 0);
  });

  it('an OP_REPLY: AwaitCapable, cursor 0, from 0, one document', () => {
    const doc = bson({ ismaster: true, ok: 1 });
    const view = Buffer.concat([Buffer.from([9]), doc]).subarray(1);
    const frame = Buffer.concat(opReplyFrame(view, 12, 11));
    assert.deepEqual(readHeader(frame), {
      messageLength: frame.length,
      requestID: 12,
      responseTo: 11,
      opCode: OP_REPLY,
    });
    assert.equal(frame.length, 16 + 20 + doc.length);
    assert.equal(frame.readInt32LE(16), 8);
    assert.equal(frame.readBigInt64LE(20), 0n);
    assert.equal(frame.readInt32LE(28), 0);
    assert.equal(frame.readInt32LE(32), 1);
    assert.deepEqual(frame.subarray(36), doc);
  });
});

describe('wire protocol: CRC-32C', () => {
  it('the Castagnoli check value, and 0 for no bytes', () => {
    assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283);
    assert.equal(crc32c(new Uint8Array(0)), 0);
    // 32 bytes of zeros and of 0xff (RFC 3720's test vectors).
    assert.equal(crc32c(Buffer.alloc(32)), 0x8a9136aa);
    assert.equal(crc32c(Buffer.alloc(32, 0xff)), 0x62a8ab43);
  });
});
