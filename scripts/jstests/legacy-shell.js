// The legacy mongo shell's test helpers, written for this harness and evaluated inside the
// playground shell's world before each upstream test file. The upstream tests were written for the
// legacy `mongo` shell, whose API differs from mongosh's: writes return WriteResult objects instead
// of throwing, db.runCommand() returns { ok: 0, ... } instead of throwing, update() takes positional
// upsert/multi flags, cursors allow cursor[i]. This file maps those onto the shell's own `db`
// (every call still goes through ShellSession and the engine's runCommand path).
//
// `__harness` is given by the worker (hostGlobals): readFile, bsonWoCompare, bsonBinaryEqual,
// bsonsize, errorCodes, testName, undefinedValue.
(function (global) {
  'use strict';
  const H = global.__harness;
  const nativeRoot = global.db;
  const nativeDbs = new Map();
  const nativeDb = (name) => {
    if (!nativeDbs.has(name)) nativeDbs.set(name, nativeRoot.getSiblingDB(name));
    return nativeDbs.get(name);
  };
  const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  const isDate = (v) => Object.prototype.toString.call(v) === '[object Date]';
  const isRegExp = (v) => Object.prototype.toString.call(v) === '[object RegExp]';

  // ---- BSON values the legacy shell spells differently -------------------------------------

  const minKeyValue = global.MinKey();
  const maxKeyValue = global.MaxKey();
  // Legacy tests write both `MinKey` and `MinKey()`: a callable that is also recognised as the value.
  const keyFn = (value, name) => {
    const f = function () {
      return value;
    };
    Object.defineProperty(f, '__bsonValue', { value });
    Object.defineProperty(f, 'tojson', { value: () => `{ "$${name}" : 1 }` });
    f.prototype = Object.getPrototypeOf(value);
    // `x instanceof MinKey` holds for the stored value and for the shell's MinKey itself (what a
    // stored one reads back as), as in the legacy shell.
    const bsonType = value._bsontype;
    Object.defineProperty(f, Symbol.hasInstance, {
      value: (x) => x === f || (x !== null && typeof x === 'object' && x._bsontype === bsonType),
    });
    return f;
  };
  global.MinKey = keyFn(minKeyValue, 'minKey');
  global.MaxKey = keyFn(maxKeyValue, 'maxKey');

  /**
   * Replaces the MinKey/MaxKey functions by their values and a present `undefined` by the engine's
   * BSON undefined (the legacy shell sends it as type 6), copying only what holds one. A command's
   * own top-level fields (`undefinedFrom` 1) stay as they are: an undefined option there is unset.
   */
  function fixValues(v, depth = 0, undefinedFrom = 1) {
    if (typeof v === 'function' && v.__bsonValue !== undefined) return v.__bsonValue;
    // The legacy shell stores a function as BSON code (type 13); mongosh's driver drops it.
    if (typeof v === 'function' && depth > 0) return new global.Code(v.toString());
    if (v === null || typeof v !== 'object' || depth > 150 || v._bsontype !== undefined) return v;
    if (v === global.DBPointer.prototype) throw new Error('cannot save DBPointer.prototype: it has no namespace or id');
    // The legacy shell's BinData accessors fail on the bare prototype, which holds no bytes.
    if (v === global.BinData.prototype) throw new Error('cannot save BinData.prototype: it has no subtype or data');
    if (isDate(v) || isRegExp(v)) return v;
    const fix = (item) =>
      item === undefined && depth >= undefinedFrom ? H.undefinedValue : fixValues(item, depth + 1, undefinedFrom);
    let out;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const n = fix(v[i]);
        if (n !== v[i]) (out ??= v.slice())[i] = n;
      }
      return out ?? v;
    }
    for (const k of Object.keys(v)) {
      const n = fix(v[k]);
      if (n !== v[k]) {
        if (!out) {
          out = {};
          for (const k2 of Object.keys(v))
            Object.defineProperty(out, k2, { value: v[k2], enumerable: true, writable: true, configurable: true });
        }
        out[k] = n;
      }
    }
    return out ?? v;
  }
  /** fixValues for a document or filter handed whole to a CRUD method: its own fields count too. */
  const fixDocument = (v) => fixValues(v, 0, 0);

  // The legacy shell parses ISODate itself, more leniently than mongosh: a time field past its
  // range carries into the next one (second 64 is a minute and 4 seconds), a fraction of a second is
  // rounded to the millisecond rather than cut, and years below 100 are taken as written.
  const ISO_DATE =
    /^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(\.\d+)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;
  global.ISODate = function ISODate(text) {
    if (text === undefined) return new Date();
    const m = ISO_DATE.exec(String(text));
    if (!m) throw new Error(`invalid ISO date: ${text}`);
    const [, year, month, day, hour, minute, second, fraction, zone] = m;
    const at = new Date(0);
    at.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
    at.setUTCHours(
      Number(hour ?? 0),
      Number(minute ?? 0),
      Number(second ?? 0),
      Math.round(Number(fraction ?? 0) * 1000),
    );
    let millis = at.getTime();
    if (zone !== undefined && zone !== 'Z') {
      const digits = zone.slice(1).replace(':', '');
      const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0);
      // A zone east of UTC is ahead of it: the UTC instant is earlier.
      millis += (zone[0] === '+' ? -1 : 1) * offsetMinutes * 60000;
    }
    // Years 0 to 9999 only, as the legacy shell's tojson could print them.
    if (millis < -62167219200000 || millis > 253402300799999)
      throw new Error(`invalid ISO date: ${text} is out of range`);
    return new Date(millis);
  };
  const oidProto = Object.getPrototypeOf(global.ObjectId());
  Object.defineProperty(oidProto, 'str', {
    get() {
      return this.toHexString();
    },
    configurable: true,
  });
  Object.defineProperty(oidProto, 'isObjectId', { value: true, configurable: true });
  oidProto.valueOf = function () {
    return this.toHexString();
  };
  const longProto = Object.getPrototypeOf(global.NumberLong(0));
  Object.defineProperty(longProto, 'floatApprox', {
    get() {
      return this.toNumber();
    },
    configurable: true,
  });
  Object.defineProperty(longProto, 'top', {
    get() {
      return this.high;
    },
    configurable: true,
  });
  Object.defineProperty(longProto, 'bottom', {
    get() {
      return this.low >>> 0;
    },
    configurable: true,
  });
  // `x instanceof NumberLong` holds for a Long read back, as in the legacy shell.
  global.NumberLong.prototype = longProto;
  // And `x.constructor === NumberLong` (inc-SERVER-7446 checks an $inc's overflow type that way).
  Object.defineProperty(longProto, 'constructor', { value: global.NumberLong, writable: true, configurable: true });
  const int32Proto = Object.getPrototypeOf(global.NumberInt(0));
  global.NumberInt.prototype = int32Proto;
  Object.defineProperty(int32Proto, 'constructor', { value: global.NumberInt, writable: true, configurable: true });
  int32Proto.toNumber = function () {
    return this.value;
  };
  const binProto = Object.getPrototypeOf(global.BinData(0, ''));
  binProto.base64 = function () {
    return this.toString('base64');
  };
  Object.defineProperty(binProto, 'type', {
    get() {
      return this.sub_type;
    },
    configurable: true,
  });
  binProto.hex = function () {
    return this.toString('hex');
  };
  binProto.subtype = function () {
    return this.sub_type;
  };
  const refProto = Object.getPrototypeOf(global.DBRef('c', 1));
  // The legacy shell's DBRef is a plain {$ref, $id, $db} object: tests read and assign those fields.
  for (const [field, own] of [
    ['$ref', 'collection'],
    ['$id', 'oid'],
    ['$db', 'db'],
  ]) {
    Object.defineProperty(refProto, field, {
      get() {
        return this[own];
      },
      set(value) {
        this[own] = value;
      },
      configurable: true,
    });
  }
  // As the legacy shell's: a DBRef is its tojson as a string (`ref == 'DBRef("a", 1)'` holds).
  Object.defineProperty(refProto, 'toString', {
    value() {
      return tojson(this);
    },
    configurable: true,
  });
  // `ref.constructor == DBRef` holds for a stored DBRef read back, as in the legacy shell, whose
  // DBRef is this global (the shell's wrapper around BSON's class).
  Object.defineProperty(refProto, 'constructor', { value: global.DBRef, configurable: true, writable: true });
  refProto.getRef = function () {
    return this.oid;
  };
  refProto.getId = function () {
    return this.oid;
  };
  refProto.getDb = function () {
    return this.db;
  };
  refProto.getCollection = function () {
    return this.collection;
  };
  refProto.fetch = function () {
    return global.db
      .getSiblingDB(this.db ?? global.db.getName())
      .getCollection(this.collection)
      .findOne({ _id: this.oid });
  };
  /**
   * The legacy shell's DBPointer(ns, id), BSON's deprecated type 12. js-bson has no such type (it
   * reads a stored one as a DBRef), so a DBPointer is made as the DBRef a stored one reads back as:
   * the same fetch(), getCollection() and getId(). Its bare prototype holds neither, and the legacy
   * shell refused to save it (see fixValues).
   */
  function DBPointer(ns, id) {
    if (typeof ns !== 'string') throw new Error('DBPointer needs a namespace string as its first argument');
    if (!(id && id._bsontype === 'ObjectId')) throw new Error('DBPointer needs an ObjectId as its second argument');
    return global.DBRef(ns, id);
  }
  global.DBPointer = DBPointer;
  Object.defineProperty(Number.prototype, 'zeroPad', {
    value(width) {
      return String(this).padStart(width, '0');
    },
    configurable: true,
    writable: true,
  });
  Object.defineProperty(Date.prototype, 'tojson', {
    value() {
      return tojson(this);
    },
    configurable: true,
    writable: true,
  });
  RegExp.escape ??= (text) => String(text).replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  const tsProto = Object.getPrototypeOf(global.Timestamp(0, 0));
  tsProto.getTime = function () {
    return this.t;
  };
  tsProto.getInc = function () {
    return this.i;
  };

  // ---- tojson --------------------------------------------------------------------------------

  function tojson(x, indent, nolint, depth = 0) {
    if (x === null) return 'null';
    if (x === undefined) return 'undefined';
    switch (typeof x) {
      case 'string':
        return JSON.stringify(x);
      case 'number':
        return Object.is(x, -0) ? '-0' : String(x);
      case 'boolean':
        return String(x);
      case 'bigint':
        return `NumberLong("${x}")`;
      case 'function':
        return typeof x.tojson === 'function' ? x.tojson() : String(x);
      default:
        break;
    }
    if (depth > 100) return '[nested too deep]';
    if (isDate(x))
      return isNaN(x.getTime()) ? 'ISODate("Invalid Date")' : `ISODate("${x.toISOString().replace('.000Z', 'Z')}")`;
    if (isRegExp(x)) return `/${x.source}/${x.flags}`;
    switch (x._bsontype) {
      case 'ObjectId':
      case 'ObjectID':
        return `ObjectId("${x.toHexString()}")`;
      case 'Long':
        return x.high === 0 || x.high === -1 ? `NumberLong(${x.toString()})` : `NumberLong("${x.toString()}")`;
      case 'Int32':
        return `NumberInt(${x.value})`;
      case 'Double':
        return String(x.value);
      case 'Decimal128':
        return `NumberDecimal("${x.toString()}")`;
      case 'Timestamp':
        return `Timestamp(${x.t}, ${x.i})`;
      case 'Binary':
        return x.sub_type === 4
          ? `UUID("${x.toUUID ? x.toUUID().toHexString() : x.toString('hex')}")`
          : `BinData(${x.sub_type},"${x.toString('base64')}")`;
      case 'MinKey':
        return '{ "$minKey" : 1 }';
      case 'MaxKey':
        return '{ "$maxKey" : 1 }';
      case 'Code':
        return x.scope
          ? `{ "$code" : ${JSON.stringify(String(x.code))}, "$scope" : ${tojson(x.scope, '', true, depth + 1)} }`
          : `{ "$code" : ${JSON.stringify(String(x.code))} }`;
      case 'DBRef':
        return `DBRef(${JSON.stringify(x.collection)}, ${tojson(x.oid, '', true, depth + 1)}${x.db ? `, ${JSON.stringify(x.db)}` : ''})`;
      case 'BSONSymbol':
        return JSON.stringify(String(x.value));
      case 'BSONRegExp':
        return `/${x.pattern}/${x.options}`;
      case undefined:
        break;
      default:
        return String(x);
    }
    if (typeof x.tojson === 'function' && !isPlainProxyCollection(x)) return x.tojson(indent, nolint);
    if (Array.isArray(x)) {
      if (x.length === 0) return '[ ]';
      return `[ ${x.map((e) => tojson(e, indent, true, depth + 1)).join(', ')} ]`;
    }
    const keys = Object.keys(x);
    if (keys.length === 0) return '{ }';
    return `{ ${keys.map((k) => `${JSON.stringify(k)} : ${tojson(x[k], indent, true, depth + 1)}`).join(', ')} }`;
  }
  const isPlainProxyCollection = (x) => x instanceof DBCollection || x instanceof DB;

  const friendlyEqual = (a, b) => tojson(a) === tojson(b);

  function sortDoc(doc) {
    if (doc === null || typeof doc !== 'object' || doc._bsontype !== undefined || isDate(doc) || isRegExp(doc))
      return doc;
    if (Array.isArray(doc)) return doc.map(sortDoc);
    const out = {};
    for (const k of Object.keys(doc).sort()) out[k] = sortDoc(doc[k]);
    return out;
  }

  // ---- assert --------------------------------------------------------------------------------

  function msgOf(msg) {
    if (typeof msg === 'function') return msg();
    return msg === undefined ? '' : typeof msg === 'string' ? msg : tojson(msg);
  }
  function doassert(msg, extra) {
    const text = typeof msg === 'function' ? msg() : msg;
    const err = new Error(`assert: ${text}${extra ? ` : ${extra}` : ''}`);
    throw err;
  }
  const withMsg = (base, msg) => (msgOf(msg) ? `${base} : ${msgOf(msg)}` : base);

  function assert(ok, msg) {
    if (arguments.length > 2) doassert('Too many parameters to assert().');
    if (ok) return;
    doassert(withMsg('assert failed', msg));
  }
  assert.eq = function (a, b, msg) {
    if (a == b) return;
    if (a != null && b != null && friendlyEqual(a, b)) return;
    doassert(withMsg(`[${tojson(a)}] != [${tojson(b)}] are not equal`, msg));
  };
  assert.neq = function (a, b, msg) {
    if (a != b && !(a != null && b != null && friendlyEqual(a, b))) return;
    doassert(withMsg(`[${tojson(a)}] == [${tojson(b)}] are equal`, msg));
  };
  assert.docEq = function (a, b, msg) {
    if (a == b) return;
    const sa = sortDoc(a);
    const sb = sortDoc(b);
    if (sa != null && sb != null && friendlyEqual(sa, sb)) return;
    doassert(withMsg(`[${tojson(a)}] != [${tojson(b)}] are not equal`, msg));
  };
  const isDocEq = (a, b) => a === b || friendlyEqual(sortDoc(a), sortDoc(b));
  assert.sameMembers = function (a, b, msg, compareFn = isDocEq) {
    if (!Array.isArray(a) || !Array.isArray(b)) doassert(withMsg('both arguments of sameMembers must be arrays', msg));
    const fail = () => doassert(withMsg(`${tojson(a)} != ${tojson(b)}`, msg));
    if (a.length !== b.length) fail();
    const left = b.slice();
    for (const x of a) {
      const i = left.findIndex((y) => compareFn(x, y));
      if (i < 0) fail();
      left.splice(i, 1);
    }
  };
  assert.setEq = function (a, b, msg) {
    const ja = new Set([...a].map((x) => tojson(x)));
    const jb = new Set([...b].map((x) => tojson(x)));
    if (ja.size !== jb.size || [...ja].some((x) => !jb.has(x))) doassert(withMsg(`${tojson(a)} != ${tojson(b)}`, msg));
  };
  assert.contains = function (o, arr, msg) {
    if (!arr || typeof arr.some !== 'function') doassert(withMsg(`${tojson(arr)} is not an array`, msg));
    if (!arr.some((x) => x == o || (x != null && o != null && friendlyEqual(x, o))))
      doassert(withMsg(`${tojson(o)} is not in ${tojson(arr)}`, msg));
  };
  assert.containsPrefix = function (prefix, arr, msg) {
    if (!arr.some((x) => typeof x === 'string' && x.startsWith(prefix)))
      doassert(withMsg(`${tojson(prefix)} is not a prefix of any of ${tojson(arr)}`, msg));
  };
  const compare = (name, test) =>
    function (a, b, msg) {
      if (!test(a, b)) doassert(withMsg(`${tojson(a)} is not ${name} ${tojson(b)}`, msg));
    };
  assert.lt = compare('less than', (a, b) => a < b);
  assert.gt = compare('greater than', (a, b) => a > b);
  assert.lte = compare('less than or eq', (a, b) => a <= b);
  assert.gte = compare('greater than or eq', (a, b) => a >= b);
  assert.between = function (a, b, c, msg, inclusive = true) {
    if (inclusive ? a <= b && b <= c : a < b && b < c) return;
    doassert(withMsg(`${tojson(b)} is not between ${tojson(a)} and ${tojson(c)}`, msg));
  };
  assert.betweenIn = (a, b, c, msg) => assert.between(a, b, c, msg, true);
  assert.betweenEx = (a, b, c, msg) => assert.between(a, b, c, msg, false);
  assert.close = function (a, b, msg, places = 4) {
    const relative = Math.abs((a - b) / (b === 0 ? 1 : b));
    if (Math.round((a - b) * Math.pow(10, places)) === 0 || relative < Math.pow(10, -places)) return;
    doassert(withMsg(`${a} is not equal to ${b} within ${places} places`, msg));
  };
  assert.closeWithinMS = function (a, b, msg, deltaMS = 10) {
    if (Math.abs(a - b) <= deltaMS) return;
    doassert(withMsg(`${a} is not equal to ${b} within ${deltaMS} ms`, msg));
  };
  assert.isnull = function (what, msg) {
    if (what === null || what === undefined) return;
    doassert(withMsg(`supposed to be null (${tojson(what)})`, msg));
  };
  assert.automsg = function (expr) {
    assert((0, eval)(expr), expr);
  };
  assert.hasFields = function (result, arr, msg) {
    const missing = arr.filter((f) => !hasOwn(result, f));
    if (missing.length) doassert(withMsg(`not all fields present: ${tojson(missing)} in ${tojson(result)}`, msg));
  };
  assert.throws = function (func, params, msg) {
    if (typeof func !== 'function') doassert('assert.throws needs a function');
    try {
      func.apply(null, params ?? []);
    } catch (e) {
      return e;
    }
    doassert(withMsg('did not throw exception', msg));
  };
  assert.throwsWithCode = function (func, code, params, msg) {
    const e = assert.throws(func, params, msg);
    const codes = Array.isArray(code) ? code : [code];
    if (!codes.includes(e.code)) doassert(withMsg(`expected code ${tojson(code)}, got ${e.code}: ${e.message}`, msg));
    return e;
  };
  assert.doesNotThrow = function (func, params, msg) {
    try {
      return func.apply(null, params ?? []);
    } catch (e) {
      doassert(withMsg(`threw unexpected exception: ${e && e.message}`, msg));
    }
  };
  // The legacy automsg forms take source text, evaluate it in the global scope and use it as the message.
  for (const name of ['eq', 'neq', 'lt', 'gt', 'lte', 'gte', 'docEq', 'close']) {
    const check = assert[name];
    check.automsg = (a, b) => check((0, eval)(a), (0, eval)(b), `${name}(${a}, ${b})`);
  }
  assert.isnull.automsg = (a) => assert.isnull((0, eval)(a), a);
  assert.doesNotThrow.automsg = (func, params) => assert.doesNotThrow(func, params, String(func));
  assert.throws.automsg = (func, params) => assert.throws(func, params, String(func));
  assert.soon = function (func, msg, timeout = 10 * 60 * 1000, interval = 200) {
    const f = typeof func === 'string' ? () => (0, eval)(func) : func;
    const start = Date.now();
    for (let i = 0; ; i++) {
      if (f()) return;
      // The clock is the engine's (virtual): sleep moves it, so waiting costs no real time.
      if (Date.now() - start > timeout || i > 100000) doassert(withMsg('assert.soon failed', msg));
      global.sleep(interval);
    }
  };
  assert.soonNoExcept = function (func, msg, timeout, interval) {
    assert.soon(
      () => {
        try {
          return func();
        } catch (e) {
          return false;
        }
      },
      msg,
      timeout,
      interval,
    );
  };
  assert.retry = function (func, msg, numAttempts = 10, intervalMS = 10) {
    for (let i = 0; i < numAttempts; i++) {
      if (func()) return;
      global.sleep(intervalMS);
    }
    doassert(withMsg('assert.retry failed', msg));
  };
  assert.time = function (f) {
    return f();
  };

  // What a command-like result says about itself.
  function resultCodes(res) {
    const codes = [];
    if (res === null || typeof res !== 'object') return codes;
    if (res instanceof WriteResult || res instanceof BulkWriteResult) {
      for (const e of res.getWriteErrors()) codes.push(e.code);
      const wce = res.getWriteConcernError();
      if (wce) codes.push(wce.code);
      return codes;
    }
    if (typeof res.code === 'number') codes.push(res.code);
    if (Array.isArray(res.writeErrors)) for (const e of res.writeErrors) codes.push(e.code);
    if (res.writeConcernError) codes.push(res.writeConcernError.code);
    return codes;
  }
  function failed(res, ignoreWriteErrors) {
    if (res instanceof Error) return true;
    if (res instanceof WriteCommandError) return true;
    if (res instanceof WriteResult || res instanceof BulkWriteResult)
      return (!ignoreWriteErrors && res.hasWriteErrors()) || !!res.getWriteConcernError();
    if (res === null || typeof res !== 'object') return true;
    if (res.ok !== undefined && res.ok != 1) return true;
    if (!ignoreWriteErrors && Array.isArray(res.writeErrors) && res.writeErrors.length) return true;
    if (res.writeConcernError) return true;
    return false;
  }
  function checkResultType(res, what) {
    if (res === null || res === undefined || typeof res !== 'object')
      doassert(`unknown type of result, cannot check ${what}: ${tojson(res)}`);
  }
  assert.commandWorked = function (res, msg) {
    checkResultType(res, 'ok field');
    if (failed(res, false)) doassert(withMsg(`command failed: ${tojson(res)}`, msg));
    return res;
  };
  assert.commandWorkedIgnoringWriteErrors = function (res, msg) {
    checkResultType(res, 'ok field');
    if (failed(res, true)) doassert(withMsg(`command failed: ${tojson(res)}`, msg));
    return res;
  };
  assert.commandWorkedIgnoringWriteConcernErrors = function (res, msg) {
    checkResultType(res, 'ok field');
    if (res.ok !== undefined && res.ok != 1) doassert(withMsg(`command failed: ${tojson(res)}`, msg));
    return res;
  };
  assert.commandFailed = function (res, msg) {
    checkResultType(res, 'ok field');
    if (!failed(res, false)) doassert(withMsg(`command worked when it should have failed: ${tojson(res)}`, msg));
    return res;
  };
  assert.commandFailedWithCode = function (res, code, msg) {
    assert.commandFailed(res, msg);
    const expected = Array.isArray(code) ? code : [code];
    const got = resultCodes(res);
    if (!got.some((c) => expected.includes(c)))
      doassert(withMsg(`command did not fail with any of ${tojson(expected)}: ${tojson(res)}`, msg));
    return res;
  };
  assert.commandWorkedOrFailedWithCode = function (res, code, msg) {
    return failed(res, false) ? assert.commandFailedWithCode(res, code, msg) : res;
  };
  assert.writeOK = function (res, msg) {
    checkResultType(res, 'write result');
    if (failed(res, false)) doassert(withMsg(`write failed with error: ${tojson(res)}`, msg));
    return res;
  };
  assert.writeError = function (res, msg) {
    checkResultType(res, 'write result');
    if (!failed(res, false)) doassert(withMsg(`no write error: ${tojson(res)}`, msg));
    return res;
  };
  assert.writeErrorWithCode = function (res, code, msg) {
    assert.writeError(res, msg);
    const expected = Array.isArray(code) ? code : [code];
    const got = resultCodes(res);
    if (!got.some((c) => expected.includes(c)))
      doassert(withMsg(`write did not fail with any of ${tojson(expected)}: ${tojson(res)}`, msg));
    return res;
  };
  assert.gleOK = assert.gleSuccess = function (dbOrResult, msg) {
    const res = typeof dbOrResult?.getLastErrorObj === 'function' ? dbOrResult.getLastErrorObj() : dbOrResult;
    if (res && res.err) doassert(withMsg(`getLastError failed: ${tojson(res)}`, msg));
  };

  // ---- write results ---------------------------------------------------------------------------

  class WriteResult {
    constructor(fields) {
      this.nInserted = fields.nInserted ?? 0;
      this.nUpserted = fields.nUpserted ?? 0;
      this.nMatched = fields.nMatched ?? 0;
      this.nModified = fields.nModified ?? 0;
      this.nRemoved = fields.nRemoved ?? 0;
      if (fields._id !== undefined) this._id = fields._id;
      Object.defineProperty(this, '_errors', { value: fields.writeErrors ?? [] });
      // The legacy shell's WriteError prints as WriteError({...}): tests match its text with regexes.
      for (const e of this._errors)
        if (e && typeof e === 'object')
          Object.defineProperty(e, 'toString', { value: () => `WriteError(${tojson(e)})`, configurable: true });
      Object.defineProperty(this, '_wce', { value: fields.writeConcernError });
      if (this._errors.length) this.writeError = this._errors[0];
    }
    getWriteErrors() {
      return this._errors;
    }
    hasWriteError() {
      return this._errors.length > 0;
    }
    hasWriteErrors() {
      return this._errors.length > 0;
    }
    getWriteError() {
      return this._errors[0] ?? null;
    }
    getWriteConcernError() {
      return this._wce ?? null;
    }
    hasWriteConcernError() {
      return !!this._wce;
    }
    getUpsertedId() {
      return this._id === undefined ? null : { _id: this._id };
    }
    tojson() {
      return `WriteResult(${tojson({ ...this, ...(this._errors.length ? { writeError: this._errors[0] } : {}) })})`;
    }
    toString() {
      return this.tojson();
    }
  }
  /** One statement's error in a bulk result, with the legacy shell's accessors. */
  class WriteError {
    constructor(e) {
      Object.assign(this, e);
    }
    getOperation() {
      return this.op;
    }
    getIndex() {
      return this.index;
    }
    getErrmsg() {
      return this.errmsg;
    }
    toString() {
      return `WriteError(${tojson({ ...this })})`;
    }
  }
  class BulkWriteResult {
    constructor(r) {
      Object.assign(this, {
        nInserted: r.nInserted,
        nUpserted: r.nUpserted,
        nMatched: r.nMatched,
        nModified: r.nModified,
        nRemoved: r.nRemoved,
        upserted: r.upserted,
        writeErrors: r.writeErrors,
        writeConcernErrors: r.writeConcernErrors,
      });
      Object.defineProperty(this, 'ok', { value: 1, enumerable: false });
    }
    getWriteErrors() {
      return this.writeErrors;
    }
    getWriteErrorCount() {
      return this.writeErrors.length;
    }
    getWriteErrorAt(i) {
      return this.writeErrors[i] ?? null;
    }
    hasWriteErrors() {
      return this.writeErrors.length > 0;
    }
    hasWriteError() {
      return this.hasWriteErrors();
    }
    getWriteConcernError() {
      return this.writeConcernErrors[0] ?? null;
    }
    getUpsertedIds() {
      return this.upserted;
    }
    hasWriteConcernError() {
      return this.writeConcernErrors.length > 0;
    }
    getUpsertedIdAt(i) {
      return this.upserted[i];
    }
    getInsertedIds() {
      return this.insertedIds ?? [];
    }
    getRawResponse() {
      return this;
    }
    toSingleResult() {
      // As the legacy shell's: a result of several batches has no single write to stand for.
      if (this._batches !== undefined && this._batches !== 1)
        throw new Error('Cannot output SingleWriteResult from multiple batch result');
      return new WriteResult({ ...this, _id: this.upserted[0]?._id });
    }
    tojson() {
      return `BulkWriteResult(${tojson({ ...this })})`;
    }
  }
  class WriteCommandError extends Error {
    constructor(reply) {
      super(reply.errmsg ?? 'write command failed');
      Object.assign(this, reply);
      this.name = 'WriteCommandError';
    }
    getWriteErrors() {
      return [];
    }
    hasWriteErrors() {
      return false;
    }
    getWriteConcernError() {
      return null;
    }
    tojson() {
      return `WriteCommandError(${tojson({ ok: 0, errmsg: this.errmsg, code: this.code, codeName: this.codeName })})`;
    }
  }
  class BulkWriteError extends Error {
    constructor(result) {
      const first = result.writeErrors[0] ?? result.writeConcernErrors[0] ?? {};
      super(`write error at item ${first.index}: ${first.errmsg}`);
      this.name = 'BulkWriteError';
      this.code = first.code;
      this.result = result;
      this.writeErrors = result.writeErrors;
      for (const k of ['nInserted', 'nUpserted', 'nMatched', 'nModified', 'nRemoved']) this[k] = result[k];
    }
    getUpsertedIds() {
      return this.result.getUpsertedIds();
    }
    getWriteErrors() {
      return this.result.getWriteErrors();
    }
    getWriteErrorCount() {
      return this.result.getWriteErrorCount();
    }
    getWriteErrorAt(i) {
      return this.result.getWriteErrorAt(i);
    }
    hasWriteErrors() {
      return true;
    }
    getWriteConcernError() {
      return this.result.getWriteConcernError();
    }
    toResult() {
      return this.result;
    }
  }

  // ---- the command path --------------------------------------------------------------------------

  /**
   * Replies copied into this realm: the shell hands out host-realm objects, and upstream helpers
   * test `x instanceof Object` / `instanceof Array` (the legacy shell had one realm).
   */
  function toRealm(v, depth = 0) {
    if (v === null || typeof v !== 'object' || depth > 200) return v;
    // The legacy shell has one MinKey and one MaxKey, of the test's own world: a stored one reads
    // back as that same value (resultsEq's `instanceof Object` holds, `x == MinKey` too).
    if (v._bsontype === 'MinKey') return global.MinKey;
    if (v._bsontype === 'MaxKey') return global.MaxKey;
    if (Array.isArray(v)) {
      const out = new Array(v.length);
      for (let i = 0; i < v.length; i++) out[i] = toRealm(v[i], depth + 1);
      return out;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) !== null) return v;
    const keys = Object.keys(v);
    // The legacy shell read a document whose first field is a string $ref and whose second is $id
    // as a DBRef (whatever follows), as the drivers' BSON readers still do.
    if (keys[0] === '$ref' && keys[1] === '$id' && typeof v.$ref === 'string') {
      const extra = {};
      for (const k of keys.slice(2)) if (k !== '$db') extra[k] = toRealm(v[k], depth + 1);
      return new global.DBRef(v.$ref, toRealm(v.$id, depth + 1), typeof v.$db === 'string' ? v.$db : undefined, extra);
    }
    const out = {};
    for (const k of Object.keys(v)) {
      if (k === '__proto__')
        Object.defineProperty(out, k, {
          value: toRealm(v[k], depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else out[k] = toRealm(v[k], depth + 1);
    }
    return out;
  }

  /** A command through the shell; an error reply comes back as the reply (legacy runCommand). */
  /**
   * The shell database a command goes to: a name (no session), or a legacy DB, whose session (from
   * session.getDatabase()) the command then runs in.
   */
  const nativeOf = (target) => (typeof target === 'string' ? nativeDb(target) : target._nativeDb());
  function replyOf(dbName, cmd) {
    try {
      return toRealm(nativeOf(dbName).runCommand(fixValues(cmd)));
    } catch (e) {
      if (e && e.errorResponse) {
        const out = {};
        for (const k of Object.keys(e.errorResponse)) out[k] = e.errorResponse[k];
        out.ok = 0;
        if (out.errmsg === undefined) out.errmsg = e.message;
        return out;
      }
      throw e;
    }
  }
  /** A command that throws its error (with code and codeName), as the legacy helpers do. */
  function mustRun(dbName, cmd) {
    return toRealm(nativeOf(dbName).runCommand(fixValues(cmd)));
  }
  const toCommand = (cmd, extra) => (typeof cmd === 'string' ? { [cmd]: 1, ...(extra ?? {}) } : cmd);

  let lastError = null;

  // ---- cursors -----------------------------------------------------------------------------------

  function arrayAccess(obj) {
    return new Proxy(obj, {
      get(target, prop, receiver) {
        if (typeof prop === 'string' && /^\d+$/.test(prop) && !(prop in target)) return target.toArray()[Number(prop)];
        return Reflect.get(target, prop, receiver);
      },
    });
  }

  class DBCommandCursor {
    constructor(db, reply, batchSize) {
      if (reply.ok !== undefined && reply.ok != 1) {
        const e = new Error(`command failed: ${tojson(reply)}`);
        e.code = reply.code;
        throw e;
      }
      const c = reply.cursor;
      this._db = db;
      this._ns = c.ns;
      this._coll = c.ns.slice(c.ns.indexOf('.') + 1);
      this._dbName = c.ns.slice(0, c.ns.indexOf('.'));
      this._id = c.id;
      this._batch = (c.firstBatch ?? []).slice();
      this._batchSize = batchSize;
      this._postBatchResumeToken = c.postBatchResumeToken;
    }
    /** Where getMore and killCursors go: the cursor's database, in the session that opened it. */
    _cursorDb() {
      return this._db && typeof this._db.getSiblingDB === 'function'
        ? this._db.getSiblingDB(this._dbName)
        : this._dbName;
    }
    _idZero() {
      const id = this._id;
      return id === undefined || id === null || Number(id) === 0 || (typeof id.isZero === 'function' && id.isZero());
    }
    _more() {
      const cmd = { getMore: this._id, collection: this._coll };
      if (this._batchSize) cmd.batchSize = this._batchSize;
      const reply = mustRun(this._cursorDb(), cmd);
      this._id = reply.cursor.id;
      this._batch = reply.cursor.nextBatch.slice();
    }
    hasNext() {
      // A tailable cursor asks once: an empty batch means nothing new yet, not the end.
      if (this._tailable) {
        if (this._batch.length === 0 && !this._idZero()) this._more();
      } else while (this._batch.length === 0 && !this._idZero()) this._more();
      return this._batch.length > 0;
    }
    next() {
      if (!this.hasNext()) throw new Error('error hasNext: false');
      return this._batch.shift();
    }
    objsLeftInBatch() {
      return this._batch.length;
    }
    getId() {
      return this._id;
    }
    getResumeToken() {
      return this._postBatchResumeToken;
    }
    isExhausted() {
      return this._batch.length === 0 && this._idZero();
    }
    close() {
      if (!this._idZero()) replyOf(this._cursorDb(), { killCursors: this._coll, cursors: [this._id] });
      this._id = 0;
      this._batch = [];
    }
    toArray() {
      if (this._arr) return this._arr;
      const out = [];
      while (this.hasNext()) out.push(this.next());
      this._arr = out;
      return out;
    }
    itcount() {
      let n = 0;
      while (this.hasNext()) {
        this.next();
        n++;
      }
      return n;
    }
    forEach(f) {
      while (this.hasNext()) f(this.next());
    }
    map(f) {
      const out = [];
      while (this.hasNext()) out.push(f(this.next()));
      return out;
    }
    length() {
      return this.toArray().length;
    }
    pretty() {
      return this;
    }
    shellPrint() {
      print(tojson(this.toArray()));
    }
    tojson() {
      return 'DBCommandCursor';
    }
  }

  const FIND_OPTIONS = [
    'sort',
    'hint',
    'min',
    'max',
    'returnKey',
    'showRecordId',
    'collation',
    'comment',
    'maxTimeMS',
    'readConcern',
    'allowDiskUse',
    'tailable',
    'awaitData',
    'noCursorTimeout',
    'allowPartialResults',
    'let',
  ];

  /** The legacy query modifiers and the find command's option each stands for. */
  const MODIFIERS = {
    $hint: 'hint',
    $min: 'min',
    $max: 'max',
    $maxTimeMS: 'maxTimeMS',
    $comment: 'comment',
    $returnKey: 'returnKey',
    $showDiskLoc: 'showRecordId',
    $orderby: 'sort',
  };

  class DBQuery {
    constructor(coll, query, fields, limit, skip, batchSize) {
      this._coll = coll;
      this._query = query ?? {};
      this._fields = fields;
      this._limit = limit ?? 0;
      this._skip = skip ?? 0;
      this._batchSize = batchSize ?? 0;
      this._opts = {};
      this._cursor = null;
      this._explain = undefined;
      return arrayAccess(this);
    }
    _notStarted(name) {
      if (this._cursor) throw new Error(`query already executed, cannot call ${name}`);
    }
    _set(name, value) {
      this._notStarted(name);
      this._opts[name] = value;
      return this;
    }
    sort(s) {
      return this._set('sort', s);
    }
    hint(h) {
      return this._set('hint', h);
    }
    min(m) {
      return this._set('min', m);
    }
    max(m) {
      return this._set('max', m);
    }
    returnKey(v = true) {
      return this._set('returnKey', v);
    }
    showRecordId(v = true) {
      return this._set('showRecordId', v);
    }
    showDiskLoc() {
      return this.showRecordId(true);
    }
    collation(c) {
      return this._set('collation', c);
    }
    comment(c) {
      return this._set('comment', c);
    }
    maxTimeMS(ms) {
      return this._set('maxTimeMS', ms);
    }
    readConcern(level) {
      return this._set('readConcern', { level });
    }
    allowDiskUse(v = true) {
      return this._set('allowDiskUse', v);
    }
    tailable(awaitData) {
      this._set('tailable', true);
      // The legacy shell's tailable() awaits data unless told not to.
      if (awaitData === undefined || awaitData) this._opts.awaitData = true;
      else delete this._opts.awaitData;
      return this;
    }
    /** The legacy wire protocol's query flags of this query. */
    get _options() {
      const O = DBQuery.Option;
      const flags = [
        ['tailable', O.tailable],
        ['awaitData', O.awaitData],
        ['noCursorTimeout', O.noTimeout],
        ['allowPartialResults', O.partial],
        ['oplogReplay', O.oplogReplay],
      ];
      return flags.reduce((bits, [name, bit]) => (this._opts[name] ? bits | bit : bits), 0);
    }
    oplogReplay() {
      // Ignored by servers since 4.4 (SERVER-36186); kept only as the query flag.
      this._opts.oplogReplay = true;
      return this;
    }
    /**
     * The legacy "$-modifiers" of a query: the legacy shell wraps the query as {query: …, $hint: …}
     * (what `_query` then shows); each modifier is sent as the find command's option.
     */
    modifiers(m) {
      this._notStarted('modifiers');
      if (!this._special) this._query = { query: this._query };
      this._special = true;
      for (const k of Object.keys(m)) {
        this._query[k] = m[k];
        const option = MODIFIERS[k];
        if (option) this._opts[option] = k === '$showDiskLoc' ? true : m[k];
      }
      return this;
    }
    /** The filter the find command sends (the query itself, or what the modifiers wrap). */
    _filter() {
      return this._special ? this._query.query : this._query;
    }
    noCursorTimeout() {
      return this._set('noCursorTimeout', true);
    }
    allowPartialResults() {
      return this._set('allowPartialResults', true);
    }
    limit(n) {
      this._notStarted('limit');
      this._limit = n;
      return this;
    }
    skip(n) {
      this._notStarted('skip');
      this._skip = n;
      return this;
    }
    batchSize(n) {
      this._batchSize = n;
      return this;
    }
    projection(p) {
      this._notStarted('projection');
      this._fields = p;
      return this;
    }
    readPref() {
      return this;
    }
    addOption(option) {
      const O = DBQuery.Option;
      if (option & O.tailable) this._opts.tailable = true;
      if (option & O.awaitData) this._opts.awaitData = true;
      if (option & O.noTimeout) this._opts.noCursorTimeout = true;
      if (option & O.partial) this._opts.allowPartialResults = true;
      return this;
    }
    pretty() {
      return this;
    }
    _findCommand() {
      const cmd = { find: this._coll.getName(), filter: this._filter() };
      // The legacy shell sends a projection only when it is truthy (find(q, false) has none).
      if (this._fields) cmd.projection = this._fields;
      if (this._skip) cmd.skip = this._skip;
      if (this._limit) {
        cmd.limit = Math.abs(this._limit);
        if (this._limit < 0) cmd.singleBatch = true;
      }
      if (this._batchSize) cmd.batchSize = Math.abs(this._batchSize);
      // A negative batch size asks for one batch only, as a negative limit does.
      if (this._batchSize < 0) cmd.singleBatch = true;
      for (const k of FIND_OPTIONS) if (this._opts[k] !== undefined) cmd[k] = this._opts[k];
      return cmd;
    }
    _exec() {
      if (!this._cursor) {
        const reply = mustRun(this._coll.getDB(), this._findCommand());
        this._cursor = new DBCommandCursor(this._coll.getDB(), reply, Math.abs(this._batchSize) || undefined);
        this._cursor._tailable = this._opts.tailable === true;
      }
      return this._cursor;
    }
    hasNext() {
      return this._exec().hasNext();
    }
    next() {
      return this._exec().next();
    }
    objsLeftInBatch() {
      return this._exec().objsLeftInBatch();
    }
    toArray() {
      if (this._arr) return this._arr;
      this._arr = this._exec().toArray();
      return this._arr;
    }
    itcount() {
      return this._exec().itcount();
    }
    forEach(f) {
      this._exec().forEach(f);
    }
    map(f) {
      return this._exec().map(f);
    }
    length() {
      return this.toArray().length;
    }
    arrayAccess(i) {
      return this.toArray()[i];
    }
    getId() {
      return this._exec().getId();
    }
    isExhausted() {
      return this._exec().isExhausted();
    }
    close() {
      if (this._cursor) this._cursor.close();
    }
    count(applySkipLimit) {
      const reply = mustRun(this._coll.getDB(), this._countCommand(applySkipLimit));
      return reply.n;
    }
    _countCommand(applySkipLimit) {
      const cmd = { count: this._coll.getName(), query: this._filter() };
      if (applySkipLimit) {
        if (this._limit) cmd.limit = this._limit;
        if (this._skip) cmd.skip = this._skip;
      }
      for (const k of ['hint', 'collation', 'maxTimeMS', 'readConcern', 'comment'])
        if (this._opts[k] !== undefined) cmd[k] = this._opts[k];
      return cmd;
    }
    size() {
      return this.count(true);
    }
    countReturn() {
      const c = this.count(true);
      return this._limit > 0 && this._limit < c ? this._limit : c;
    }
    explain(verbosity = 'queryPlanner') {
      const v = verbosity === true ? 'allPlansExecution' : verbosity === false ? 'queryPlanner' : verbosity;
      return mustRun(this._coll.getDB(), { explain: this._findCommand(), verbosity: v });
    }
    finish() {
      return this.explain(this._explain);
    }
    clone() {
      const q = new DBQuery(this._coll, this._query, this._fields, this._limit, this._skip, this._batchSize);
      q._opts = { ...this._opts };
      q._special = this._special;
      return q;
    }
    shellPrint() {
      print(tojson(this.toArray()));
    }
    toString() {
      return 'DBQuery';
    }
    tojson() {
      return 'DBQuery';
    }
  }

  // The legacy wire protocol's query flags, which addOption() takes.
  DBQuery.Option = { tailable: 2, slaveOk: 4, oplogReplay: 8, noTimeout: 16, awaitData: 32, exhaust: 64, partial: 128 };

  // ---- bulk ------------------------------------------------------------------------------------

  const MAX_WRITE_BATCH_SIZE = 100000;

  class Bulk {
    constructor(coll, ordered) {
      this._coll = coll;
      this._ordered = ordered;
      this._ops = [];
      this._executed = false;
    }
    insert(doc) {
      this._ops.push({ type: 'insert', doc });
      return this;
    }
    find(q) {
      if (q === undefined) throw new Error('Bulk find() needs a query');
      const ops = this._ops;
      const spec = { q };
      const builder = {
        upsert() {
          spec.upsert = true;
          return builder;
        },
        collation(c) {
          spec.collation = c;
          return builder;
        },
        arrayFilters(a) {
          spec.arrayFilters = a;
          return builder;
        },
        hint(h) {
          spec.hint = h;
          return builder;
        },
        update(u) {
          ops.push({ type: 'update', stmt: { ...spec, u, multi: true } });
        },
        updateOne(u) {
          ops.push({ type: 'update', stmt: { ...spec, u, multi: false } });
        },
        replaceOne(u) {
          ops.push({ type: 'update', stmt: { ...spec, u, multi: false } });
        },
        remove() {
          ops.push({
            type: 'delete',
            stmt: { q: spec.q, limit: 0, ...(spec.collation ? { collation: spec.collation } : {}) },
          });
        },
        removeOne() {
          ops.push({
            type: 'delete',
            stmt: { q: spec.q, limit: 1, ...(spec.collation ? { collation: spec.collation } : {}) },
          });
        },
      };
      builder.delete = builder.remove;
      builder.deleteOne = builder.removeOne;
      return builder;
    }
    getOperations() {
      return this._ops;
    }
    tojson() {
      return `Bulk(${this._ops.length} operations)`;
    }
    execute(writeConcern) {
      if (this._executed) throw new Error('A bulk operation cannot be re-executed');
      if (this._ops.length === 0) throw new Error('Invalid Operation, no operations specified');
      this._executed = true;
      const result = {
        nInserted: 0,
        nUpserted: 0,
        nMatched: 0,
        nModified: 0,
        nRemoved: 0,
        upserted: [],
        writeErrors: [],
        writeConcernErrors: [],
      };
      // Batches of one kind: consecutive ones when ordered, one per kind otherwise; the legacy
      // shell starts another at the server's maxWriteBatchSize, past which mongod refuses a batch.
      const batches = [];
      const open = (b, op) => b !== undefined && b.type === op.type && b.ops.length < MAX_WRITE_BATCH_SIZE;
      this._ops.forEach((op, index) => {
        let batch = this._ordered ? batches[batches.length - 1] : batches.find((b) => open(b, op));
        if (!open(batch, op)) batches.push((batch = { type: op.type, ops: [], indexes: [] }));
        batch.ops.push(op);
        batch.indexes.push(index);
      });
      const name = this._coll.getName();
      for (const batch of batches) {
        const cmd =
          batch.type === 'insert'
            ? { insert: name, documents: batch.ops.map((o) => o.doc) }
            : batch.type === 'update'
              ? { update: name, updates: batch.ops.map((o) => o.stmt) }
              : { delete: name, deletes: batch.ops.map((o) => o.stmt) };
        cmd.ordered = this._ordered;
        if (writeConcern) cmd.writeConcern = writeConcern;
        const reply = replyOf(this._coll.getDB(), cmd);
        if (reply.ok != 1) throw new WriteCommandError(reply);
        const n = reply.n ?? 0;
        if (batch.type === 'insert') result.nInserted += n;
        else if (batch.type === 'delete') result.nRemoved += n;
        else {
          const ups = reply.upserted ?? [];
          result.nUpserted += ups.length;
          result.nMatched += n - ups.length;
          result.nModified += reply.nModified ?? 0;
          for (const u of ups) result.upserted.push({ index: batch.indexes[u.index], _id: u._id });
        }
        for (const e of reply.writeErrors ?? []) {
          const op = batch.ops[e.index];
          result.writeErrors.push(new WriteError({ ...e, index: batch.indexes[e.index], op: op.doc ?? op.stmt }));
        }
        if (reply.writeConcernError) result.writeConcernErrors.push(reply.writeConcernError);
        if (this._ordered && reply.writeErrors?.length) break;
      }
      // Batches of one kind run together when unordered: the errors are listed by statement.
      result.writeErrors.sort((a, b) => a.index - b.index);
      const out = new BulkWriteResult(result);
      Object.defineProperty(out, '_batches', { value: batches.length, enumerable: false });
      if (out.hasWriteErrors()) throw new BulkWriteError(out);
      return out;
    }
  }

  // ---- collections -------------------------------------------------------------------------------

  function indexName(keys) {
    return Object.keys(keys)
      .map((k) => `${k}_${typeof keys[k] === 'object' ? tojson(keys[k]) : keys[k]}`)
      .join('_');
  }

  /**
   * The legacy shell's index options: a name (string), unique (true), an array of up to three of
   * name / unique / dropDups (the booleans in that order), or an options object.
   */
  function normalizeIndexOptions(options) {
    if (options === undefined || options === null || options === false) return {};
    if (typeof options === 'string') return { name: options };
    if (typeof options === 'boolean') return { unique: true };
    if (Array.isArray(options)) {
      if (options.length > 3)
        throw new Error(
          'Index options that are supplied in array form may only specify three values: name, unique, dropDups',
        );
      const out = {};
      let booleans = 0;
      for (const option of options) {
        if (typeof option === 'string') out.name = option;
        else if (typeof option === 'boolean') {
          if (option && booleans === 0) out.unique = true;
          if (option && booleans === 1) out.dropDups = true;
          booleans++;
        }
      }
      return out;
    }
    if (typeof options !== 'object') throw new Error(`can't handle: ${typeof options}`);
    return { ...options };
  }

  /** The legacy shell's shorthands for a query: nothing, an _id value. */
  function massageQuery(q) {
    if (q === undefined || q === null) return {};
    if (typeof q === 'object' && q._bsontype === 'ObjectId') return { _id: q };
    if (typeof q === 'object') return q;
    if (typeof q === 'string' && q.length === 24) return { _id: q };
    throw new Error(`don't know how to massage: ${tojson(q)}`);
  }

  /** The legacy CRUD methods take the write concern's fields among their options; mongosh nests them. */
  function crudOptions(o) {
    if (o === null || typeof o !== 'object' || !['w', 'wtimeout', 'j'].some((k) => hasOwn(o, k))) return o;
    const { w, wtimeout, j, ...rest } = o;
    const writeConcern = { ...(rest.writeConcern ?? {}) };
    if (w !== undefined) writeConcern.w = w;
    if (wtimeout !== undefined) writeConcern.wtimeout = wtimeout;
    if (j !== undefined) writeConcern.j = j;
    return { ...rest, writeConcern };
  }
  /**
   * An unacknowledged write's result in the legacy shell says only that. The shell's CRUD methods
   * answer every write, so a write concern of w: 0 (legacy `{w: 0}` or `{writeConcern: {w: 0}}`)
   * is what says so here.
   */
  const unacknowledged = (r, o) =>
    r && (r.acknowledged === false || crudOptions(o)?.writeConcern?.w === 0) ? { acknowledged: false } : r;

  class DBCollection {
    constructor(db, name) {
      this._db = db;
      this._name = name;
      return new Proxy(this, {
        get(target, prop, receiver) {
          if (typeof prop === 'symbol' || prop in target || prop.startsWith('_') || NOT_NAMES.has(prop))
            return Reflect.get(target, prop, receiver);
          return db.getCollection(`${name}.${prop}`);
        },
      });
    }
    getName() {
      return this._name;
    }
    getFullName() {
      return `${this._db.getName()}.${this._name}`;
    }
    get _fullName() {
      return this.getFullName();
    }
    getDB() {
      return this._db;
    }
    getMongo() {
      return this._db.getMongo();
    }
    get _mongo() {
      return this._db.getMongo();
    }
    get _shortName() {
      return this._name;
    }
    setWriteConcern() {}
    unsetWriteConcern() {}
    toString() {
      return this.getFullName();
    }
    tojson() {
      return this.getFullName();
    }
    shellPrint() {
      print(this.getFullName());
    }
    _native() {
      return this._db._nativeDb().getCollection(this._name);
    }
    _reply(cmd) {
      return replyOf(this._db, cmd);
    }
    _run(cmd) {
      return mustRun(this._db, cmd);
    }
    runCommand(cmd, params) {
      if (typeof cmd === 'object') return this._db.runCommand(cmd);
      return this._reply({ [cmd]: this._name, ...(params ?? {}) });
    }

    // legacy writes: WriteResult / BulkWriteResult, never thrown
    _write(cmd, make) {
      const reply = this._reply(cmd);
      if (reply.ok != 1) {
        lastError = reply.errmsg;
        return new WriteCommandError(reply);
      }
      lastError = reply.writeErrors?.length ? reply.writeErrors[0].errmsg : null;
      return make(reply);
    }
    insert(docs, options) {
      const arr = Array.isArray(docs);
      const list = arr ? docs : [docs];
      if (list.length === 0) throw new Error('no documents to insert');
      const opts = typeof options === 'object' && options !== null ? options : {};
      const ordered = typeof options === 'number' ? (options & 1) === 0 : opts.ordered !== false;
      const cmd = { insert: this._name, documents: list, ordered };
      if (opts.writeConcern) cmd.writeConcern = opts.writeConcern;
      if (opts.bypassDocumentValidation) cmd.bypassDocumentValidation = true;
      return this._write(cmd, (reply) => {
        const writeErrors = (reply.writeErrors ?? []).map((e) => ({ ...e }));
        if (!arr)
          return new WriteResult({ nInserted: reply.n, writeErrors, writeConcernError: reply.writeConcernError });
        return new BulkWriteResult({
          nInserted: reply.n,
          nUpserted: 0,
          nMatched: 0,
          nModified: 0,
          nRemoved: 0,
          upserted: [],
          writeErrors,
          writeConcernErrors: reply.writeConcernError ? [reply.writeConcernError] : [],
        });
      });
    }
    update(query, update, upsert, multi) {
      let opts = {};
      if (typeof upsert === 'object' && upsert !== null) opts = upsert;
      else opts = { upsert: !!upsert, multi: !!multi };
      const stmt = { q: query, u: update, upsert: !!opts.upsert, multi: !!opts.multi };
      for (const k of ['collation', 'arrayFilters', 'hint']) if (opts[k] !== undefined) stmt[k] = opts[k];
      const cmd = { update: this._name, updates: [stmt] };
      if (opts.writeConcern) cmd.writeConcern = opts.writeConcern;
      if (opts.bypassDocumentValidation) cmd.bypassDocumentValidation = true;
      return this._write(cmd, (reply) => {
        const ups = reply.upserted ?? [];
        return new WriteResult({
          nMatched: (reply.n ?? 0) - ups.length,
          nUpserted: ups.length,
          nModified: reply.nModified ?? 0,
          _id: ups.length ? ups[0]._id : undefined,
          writeErrors: reply.writeErrors,
          writeConcernError: reply.writeConcernError,
        });
      });
    }
    remove(query, justOne) {
      if (query === undefined) throw new Error('remove needs a query');
      let opts = {};
      if (typeof justOne === 'object' && justOne !== null) opts = justOne;
      else opts = { justOne: !!justOne };
      const stmt = { q: massageQuery(query), limit: opts.justOne ? 1 : 0 };
      if (opts.collation) stmt.collation = opts.collation;
      const cmd = { delete: this._name, deletes: [stmt] };
      if (opts.writeConcern) cmd.writeConcern = opts.writeConcern;
      return this._write(
        cmd,
        (reply) =>
          new WriteResult({
            nRemoved: reply.n,
            writeErrors: reply.writeErrors,
            writeConcernError: reply.writeConcernError,
          }),
      );
    }
    save(doc, opts) {
      if (doc === null || typeof doc !== 'object') throw new Error("can't save a null or non-object");
      if (doc._id === undefined) {
        doc._id = global.ObjectId();
        return this.insert(doc, opts);
      }
      return this.update({ _id: doc._id }, doc, { upsert: true, ...(opts ?? {}) });
    }

    // reads
    find(query, fields, limit, skip, batchSize) {
      return new DBQuery(this, massageQuery(query), fields, limit, skip, batchSize);
    }
    findOne(query, fields, options, readConcern, collation) {
      const q = new DBQuery(this, massageQuery(query), fields, -1);
      if (collation) q.collation(collation);
      const c = q._exec();
      if (!c.hasNext()) return null;
      return c.next();
    }
    count(query, options) {
      const q = this.find(query);
      const o = options ?? {};
      if (o.limit) q.limit(o.limit);
      if (o.skip) q.skip(o.skip);
      if (o.hint) q.hint(o.hint);
      if (o.collation) q.collation(o.collation);
      if (o.maxTimeMS) q.maxTimeMS(o.maxTimeMS);
      return q.count(true);
    }
    distinct(key, query, options) {
      const cmd = { distinct: this._name, key, query: query ?? {} };
      if (options && options.collation) cmd.collation = options.collation;
      if (options && options.maxTimeMS) cmd.maxTimeMS = options.maxTimeMS;
      return this._run(cmd).values;
    }
    // The legacy shell's helper: $collStats latencyStats of this namespace, as a cursor.
    latencyStats(options) {
      return this.aggregate([{ $collStats: { latencyStats: options || {} } }]);
    }
    aggregate(pipeline, options) {
      let stages = pipeline;
      let opts = options ?? {};
      if (!Array.isArray(pipeline)) {
        stages = Array.prototype.slice.call(arguments);
        opts = {};
      }
      const cmd = { aggregate: this._name, pipeline: stages, ...opts };
      if (opts.explain) return this._run(cmd);
      cmd.cursor = opts.cursor ?? (opts.batchSize !== undefined ? { batchSize: opts.batchSize } : {});
      delete cmd.batchSize;
      const reply = this._run(cmd);
      return new DBCommandCursor(this._db, reply, cmd.cursor.batchSize);
    }
    findAndModify(args) {
      const reply = this._run({ findAndModify: this._name, ...args });
      return reply.value ?? null;
    }
    explain(verbosity = 'queryPlanner') {
      return new Explainable(this, verbosity);
    }

    // indexes
    createIndex(keys, options, commitQuorum) {
      return this.createIndexes([keys], options, commitQuorum);
    }
    ensureIndex(keys, options) {
      const res = this.createIndex(keys, options);
      return res;
    }
    createIndexes(keysList, options) {
      const indexes = keysList.map((key) => {
        const spec = this._indexSpec(key, options);
        delete spec.ns;
        return spec;
      });
      return this._reply({ createIndexes: this._name, indexes });
    }
    /** The spec the legacy shell builds for an index: the namespace, the key, a name, the options. */
    _indexSpec(keys, options) {
      return { ns: this.getFullName(), key: keys, name: indexName(keys), ...normalizeIndexOptions(options) };
    }
    getIndexes() {
      const reply = this._reply({ listIndexes: this._name, cursor: {} });
      if (reply.ok != 1) {
        if (reply.code === 26) return [];
        throw new Error(`listIndexes failed: ${tojson(reply)}`);
      }
      return new DBCommandCursor(this._db, reply).toArray();
    }
    getIndexSpecs() {
      return this.getIndexes();
    }
    getIndices() {
      return this.getIndexes();
    }
    getIndexKeys() {
      return this.getIndexes().map((i) => i.key);
    }
    dropIndex(index) {
      return this._reply({ dropIndexes: this._name, index });
    }
    /** As the legacy shell's: a failure other than a missing index or collection is thrown. */
    dropIndexes(indexes = '*') {
      const reply = this._reply({ dropIndexes: this._name, index: indexes });
      // The legacy shell matched mongod's "ns not found" / "index not found" messages: their codes here.
      if (reply.ok || reply.code === 26 || reply.code === 27 || /not found/.test(reply.errmsg ?? '')) return reply;
      const error = new Error(`error dropping indexes : ${tojson(reply)}`);
      Object.assign(error, { code: reply.code, codeName: reply.codeName, errmsg: reply.errmsg, ok: 0 });
      throw error;
    }
    reIndex() {
      return this._reply({ reIndex: this._name });
    }
    hideIndex(index) {
      return this._reply({
        collMod: this._name,
        index: { [typeof index === 'string' ? 'name' : 'keyPattern']: index, hidden: true },
      });
    }
    unhideIndex(index) {
      return this._reply({
        collMod: this._name,
        index: { [typeof index === 'string' ? 'name' : 'keyPattern']: index, hidden: false },
      });
    }
    getPlanCache() {
      return new PlanCache(this);
    }

    // the collection itself
    drop(options) {
      const reply = this._reply({ drop: this._name, ...(options ?? {}) });
      if (reply.ok != 1) {
        if (reply.code === 26) return false;
        throw new Error(`drop failed: ${tojson(reply)}`);
      }
      return true;
    }
    exists() {
      const infos = this._db.getCollectionInfos({ name: this._name });
      return infos.length ? infos[0] : null;
    }
    /**
     * As the legacy shell's: indexDetailsKey / indexDetailsName are the shell's own options, which
     * keep one index of the server's indexDetails.
     */
    stats(options) {
      const { indexDetailsKey, indexDetailsName, ...o } =
        typeof options === 'number' ? { scale: options } : (options ?? {});
      if (indexDetailsKey !== undefined && indexDetailsName !== undefined)
        throw new Error('Cannot filter indexDetails on both indexDetailsKey and indexDetailsName');
      const reply = this._reply({ collStats: this._name, ...o });
      if (reply.ok && reply.indexDetails && (indexDetailsKey !== undefined || indexDetailsName !== undefined)) {
        const name =
          indexDetailsName ?? this.getIndexes().find((spec) => friendlyEqual(spec.key, indexDetailsKey))?.name;
        reply.indexDetails = name !== undefined && reply.indexDetails[name] ? { [name]: reply.indexDetails[name] } : {};
      }
      return reply;
    }
    dataSize() {
      return this.stats().size;
    }
    storageSize() {
      return this.stats().storageSize;
    }
    totalIndexSize() {
      return this.stats().totalIndexSize;
    }
    totalSize() {
      const s = this.stats();
      return s.storageSize + s.totalIndexSize;
    }
    isCapped() {
      const s = this.stats();
      return !!(s && s.capped);
    }
    validate(full) {
      const o = typeof full === 'object' ? full : { full: !!full };
      return this._reply({ validate: this._name, ...o });
    }
    convertToCapped(bytes) {
      return this._reply({ convertToCapped: this._name, size: bytes });
    }
    renameCollection(newName, dropTarget) {
      let to = newName;
      let drop = dropTarget;
      if (arguments.length === 1 && typeof newName === 'object' && newName !== null) {
        to = newName.to;
        drop = newName.dropTarget;
      }
      drop ??= false;
      if (typeof to !== 'string' || typeof drop !== 'boolean')
        throw new Error('renameCollection needs a new name (string) and an optional dropTarget (boolean)');
      return replyOf(this._db.getSiblingDB('admin'), {
        renameCollection: this.getFullName(),
        to: `${this._db.getName()}.${to}`,
        dropTarget: drop,
      });
    }
    getCollection(sub) {
      return this._db.getCollection(`${this._name}.${sub}`);
    }
    _genIndexName(keys) {
      return indexName(keys);
    }
    initializeOrderedBulkOp() {
      return new Bulk(this, true);
    }
    initializeUnorderedBulkOp() {
      return new Bulk(this, false);
    }

    // the CRUD API is mongosh's (the shell's own collection), with the legacy result names
    insertOne(doc, options) {
      return unacknowledged(toRealm(this._native().insertOne(fixDocument(doc), crudOptions(options))), options);
    }
    insertMany(docs, options) {
      const r = this._native().insertMany(fixDocument(docs), crudOptions(options));
      if (unacknowledged(r, options).acknowledged === false) return { acknowledged: false };
      return { acknowledged: r.acknowledged, insertedIds: Object.keys(r.insertedIds).map((k) => r.insertedIds[k]) };
    }
    _updateResult(r) {
      const out = { acknowledged: r.acknowledged, matchedCount: r.matchedCount, modifiedCount: r.modifiedCount };
      if (r.upsertedCount) out.upsertedId = r.insertedId;
      return out;
    }
    updateOne(f, u, o) {
      return unacknowledged(
        this._updateResult(this._native().updateOne(fixDocument(f), fixDocument(u), crudOptions(o))),
        o,
      );
    }
    updateMany(f, u, o) {
      return unacknowledged(
        this._updateResult(this._native().updateMany(fixDocument(f), fixDocument(u), crudOptions(o))),
        o,
      );
    }
    replaceOne(f, u, o) {
      return unacknowledged(
        this._updateResult(this._native().replaceOne(fixDocument(f), fixDocument(u), crudOptions(o))),
        o,
      );
    }
    deleteOne(f, o) {
      return unacknowledged(toRealm(this._native().deleteOne(fixDocument(f), crudOptions(o))), o);
    }
    deleteMany(f, o) {
      return unacknowledged(toRealm(this._native().deleteMany(fixDocument(f), crudOptions(o))), o);
    }
    findOneAndUpdate(f, u, o) {
      return toRealm(this._native().findOneAndUpdate(fixDocument(f), fixDocument(u), o));
    }
    findOneAndReplace(f, u, o) {
      return toRealm(this._native().findOneAndReplace(fixDocument(f), fixDocument(u), o));
    }
    findOneAndDelete(f, o) {
      return toRealm(this._native().findOneAndDelete(fixDocument(f), o));
    }
    bulkWrite(ops, o) {
      const result = unacknowledged(toRealm(this._native().bulkWrite(fixDocument(ops), crudOptions(o))), o);
      // The legacy shell's bulkWrite (crud_api.js) reported no modifiedCount; mongosh's does.
      if (result && typeof result === 'object') delete result.modifiedCount;
      return result;
    }
    countDocuments(f, o) {
      return this._native().countDocuments(fixDocument(f), o);
    }
    estimatedDocumentCount(o) {
      return this._native().estimatedDocumentCount(o);
    }
  }
  const NOT_NAMES = new Set(['then', 'toJSON', 'toBSON', 'inspect', 'constructor', 'asymmetricMatch', 'length']);

  class PlanCache {
    constructor(coll) {
      this._coll = coll;
    }
    clear() {
      return this._coll._run({ planCacheClear: this._coll.getName() });
    }
    clearPlansByQuery(query, projection, sort) {
      return this._coll._run({ planCacheClear: this._coll.getName(), query, projection, sort });
    }
    listQueryShapes() {
      return this._coll._run({ planCacheListQueryShapes: this._coll.getName() }).shapes;
    }
    getPlansByQuery(query, projection, sort) {
      return this._coll._run({ planCacheListPlans: this._coll.getName(), query, projection, sort });
    }
    list(pipeline = []) {
      return this._coll.aggregate([{ $planCacheStats: {} }, ...pipeline]).toArray();
    }
  }

  class Explainable {
    constructor(coll, verbosity) {
      this._coll = coll;
      this._verbosity = verbosity === true ? 'allPlansExecution' : verbosity === false ? 'queryPlanner' : verbosity;
    }
    _explain(cmd) {
      return this._coll._run({ explain: cmd, verbosity: this._verbosity });
    }
    getCollection() {
      return this._coll;
    }
    getVerbosity() {
      return this._verbosity;
    }
    find(query, fields) {
      const q = new DBQuery(this._coll, query, fields);
      q._explain = this._verbosity;
      const explainCount = (cmd) => this._explain(cmd);
      // The legacy explain query is a cursor of one document, the explain output: once read, it
      // is exhausted.
      let read = false;
      q.next = function () {
        if (read) throw new Error('error: no more results: the explain query was already read');
        read = true;
        return this.finish();
      };
      q.hasNext = () => !read;
      q.toArray = function () {
        read = true;
        return [this.finish()];
      };
      q.forEach = function (f) {
        while (this.hasNext()) f(this.next());
      };
      q.itcount = function () {
        let n = 0;
        while (this.hasNext()) {
          this.next();
          n++;
        }
        return n;
      };
      q.count = function (applySkipLimit) {
        return explainCount(this._countCommand(applySkipLimit));
      };
      return q;
    }
    aggregate(pipeline, options) {
      const stages = Array.isArray(pipeline) ? pipeline : Array.prototype.slice.call(arguments);
      const opts = Array.isArray(pipeline) ? (options ?? {}) : {};
      return this._explain({ aggregate: this._coll.getName(), pipeline: stages, cursor: {}, ...opts });
    }
    count(query, options) {
      return this._explain({ count: this._coll.getName(), query: query ?? {}, ...(options ?? {}) });
    }
    distinct(key, query, options) {
      return this._explain({ distinct: this._coll.getName(), key, query: query ?? {}, ...(options ?? {}) });
    }
    remove(query, justOne) {
      const one = typeof justOne === 'object' && justOne ? !!justOne.justOne : !!justOne;
      return this._explain({ delete: this._coll.getName(), deletes: [{ q: query, limit: one ? 1 : 0 }] });
    }
    update(query, update, upsert, multi) {
      // The legacy shell's own argument checks (DBCollection's _parseUpdate).
      if (query === undefined) throw new Error('need a query');
      if (update === undefined) throw new Error('need an update object or pipeline');
      if (typeof upsert === 'object' && upsert && multi !== undefined)
        throw new Error('Fourth argument must be empty when specifying upsert and multi with an object.');
      const o = typeof upsert === 'object' && upsert ? upsert : { upsert: !!upsert, multi: !!multi };
      return this._explain({
        update: this._coll.getName(),
        updates: [{ q: query, u: update, upsert: !!o.upsert, multi: !!o.multi }],
      });
    }
    findAndModify(args) {
      return this._explain({ findAndModify: this._coll.getName(), ...args });
    }
  }

  // ---- databases and the connection --------------------------------------------------------------

  class Session {
    constructor(mongo) {
      this._mongo = mongo;
    }
    getDatabase(name) {
      return this._mongo.getDB(name);
    }
    getClient() {
      return this._mongo;
    }
    getOptions() {
      return { causalConsistency: false, shouldRetryWrites: () => false, getReadPreference: () => undefined };
    }
    getSessionId() {
      return null;
    }
    endSession() {}
    advanceClusterTime() {}
    advanceOperationTime() {}
    getOperationTime() {
      return undefined;
    }
    getClusterTime() {
      return undefined;
    }
  }

  /**
   * startSession(): the legacy DriverSession over the shell's own session (mongosh's API), whose
   * databases carry its lsid and transaction fields. The *_forTesting methods answer the server's
   * reply, as in the legacy shell; the shell session keeps the transaction's client-side state.
   */
  class DriverSession {
    constructor(mongo, options) {
      this._mongo = mongo;
      this._rawOptions = options ?? {};
      this._native = nativeRoot.getMongo().startSession(fixValues(this._rawOptions));
      this._dbs = new Map();
      this._nativeDbs = new Map();
      this._txnNumber = 0;
    }
    _nativeDb(name) {
      if (!this._nativeDbs.has(name)) this._nativeDbs.set(name, this._native.getDatabase(name));
      return this._nativeDbs.get(name);
    }
    getDatabase(name) {
      nativeDb(name);
      if (!this._dbs.has(name)) this._dbs.set(name, new DB(this._mongo, name, this));
      return this._dbs.get(name);
    }
    getClient() {
      return this._mongo;
    }
    getOptions() {
      const o = this._rawOptions;
      return {
        causalConsistency: o.causalConsistency !== false,
        isCausalConsistency: () => o.causalConsistency !== false,
        shouldRetryWrites: () => o.retryWrites === true,
        getReadPreference: () => o.readPreference,
        getReadConcern: () => o.readConcern,
        getWriteConcern: () => o.writeConcern,
      };
    }
    getSessionId() {
      return toRealm(this._native.getSessionId());
    }
    get id() {
      return this.getSessionId();
    }
    endSession() {
      this._native.endSession();
    }
    hasEnded() {
      return this._native.hasEnded();
    }
    advanceClusterTime(ct) {
      this._native.advanceClusterTime(fixValues(ct));
    }
    advanceOperationTime(ts) {
      this._native.advanceOperationTime(ts);
    }
    getOperationTime() {
      return this._native.getOperationTime();
    }
    getClusterTime() {
      return toRealm(this._native.getClusterTime());
    }
    getTxnNumber_forTesting() {
      return this._txnNumber;
    }
    startTransaction(options) {
      try {
        this._native.startTransaction(fixValues(options ?? {}));
      } catch (e) {
        // The legacy shell's words for the same refusal.
        if (e && e.message === 'Transaction already in progress')
          throw new Error('Transaction already in progress on this session.');
        throw e;
      }
      this._txnNumber++;
    }
    startTransaction_forTesting(options) {
      this.startTransaction(options);
    }
    commitTransaction() {
      assert.commandWorked(this.commitTransaction_forTesting());
    }
    abortTransaction() {
      assert.commandWorked(this.abortTransaction_forTesting());
    }
    /**
     * The commit as the server answers it: sent with the transaction's number, then the shell
     * session's state follows (committed, or aborted when the server refused).
     */
    commitTransaction_forTesting() {
      return this._endTransaction('commitTransaction');
    }
    abortTransaction_forTesting() {
      return this._endTransaction('abortTransaction');
    }
    _endTransaction(name) {
      const state = this._native._transactionState;
      if (state === 'none')
        throw new Error(
          `There is no active transaction to ${name === 'commitTransaction' ? 'commit' : 'abort'} on this session.`,
        );
      // The legacy shell's own refusals, in its words.
      if (name === 'abortTransaction' && (state === 'committed' || state === 'committedEmpty'))
        throw new Error('Cannot call abortTransaction after calling commitTransaction.');
      if (name === 'commitTransaction' && state === 'aborted')
        throw new Error('Cannot call commitTransaction after calling abortTransaction.');
      // Ended as the transaction's first statement: the legacy shell answers it without the server.
      if (this._native._transactionState === 'starting') {
        if (name === 'commitTransaction') this._native.commitTransaction();
        else this._native.abortTransaction();
        return { ok: 1 };
      }
      const raw = { [name]: 1, txnNumber: global.NumberLong(this._txnNumber), autocommit: false };
      const reply = replyOf(this.getDatabase('admin'), raw);
      try {
        if (reply.ok == 1 && name === 'commitTransaction') this._native.commitTransaction();
        else this._native.abortTransaction();
      } catch (e) {
        // The shell session had no transaction to end (none started, or ended already).
      }
      return reply;
    }
  }

  class Mongo {
    constructor() {
      this.host = '127.0.0.1:27017';
      this._dbs = new Map();
      this._session = new Session(this);
    }
    getDB(name) {
      nativeDb(name); // the shell refuses an invalid name here, as the legacy shell did
      if (!this._dbs.has(name)) this._dbs.set(name, new DB(this, name));
      return this._dbs.get(name);
    }
    getCollection(ns) {
      const dot = ns.indexOf('.');
      return this.getDB(ns.slice(0, dot)).getCollection(ns.slice(dot + 1));
    }
    getDBNames() {
      return this.getDBs().databases.map((d) => d.name);
    }
    getDBs() {
      return mustRun('admin', { listDatabases: 1 });
    }
    adminCommand(cmd) {
      return replyOf('admin', toCommand(cmd));
    }
    runCommand(dbName, cmd) {
      return replyOf(dbName, toCommand(cmd));
    }
    getSession() {
      return this._session;
    }
    startSession(options) {
      return new DriverSession(this, options);
    }
    isCausalConsistency() {
      return false;
    }
    isMongos() {
      return false;
    }
    setSlaveOk() {}
    setSecondaryOk() {}
    getSlaveOk() {
      return false;
    }
    getReadPrefMode() {
      return 'primary';
    }
    getReadPref() {
      return undefined;
    }
    getReadConcern() {
      return undefined;
    }
    getWriteConcern() {
      return undefined;
    }
    setReadPref() {}
    useReadCommands() {
      return true;
    }
    writeMode() {
      return 'commands';
    }
    readMode() {
      return 'commands';
    }
    useWriteCommands() {
      return true;
    }
    forceWriteMode() {}
    forceReadMode() {}
    hasWriteCommands() {
      return true;
    }
    toString() {
      return `connection to ${this.host}`;
    }
    tojson() {
      return this.toString();
    }
  }

  /** The legacy shell refused a database name mongod would refuse, when the DB object was made. */
  function checkDatabaseName(name) {
    if (typeof name !== 'string' || name.length === 0 || name.length >= 64 || /[/\\. "$\0*<>:|?]/.test(name))
      throw new Error(`[${name}] is not a valid database name`);
  }

  class DB {
    constructor(mongo, name, session) {
      checkDatabaseName(name);
      this._mongo = mongo;
      this._name = name;
      this._session = session;
      this._collections = new Map();
      return new Proxy(this, {
        get(target, prop, receiver) {
          if (typeof prop === 'symbol' || prop in target || prop.startsWith('_') || NOT_NAMES.has(prop))
            return Reflect.get(target, prop, receiver);
          return receiver.getCollection(prop);
        },
      });
    }
    getName() {
      return this._name;
    }
    toString() {
      return this._name;
    }
    tojson() {
      return this._name;
    }
    getMongo() {
      return this._mongo;
    }
    getSession() {
      return this._session ?? this._mongo.getSession();
    }
    getSiblingDB(name) {
      return this._session ? this._session.getDatabase(name) : this._mongo.getDB(name);
    }
    /** The shell's database this one sends its commands to (the session's, from session.getDatabase()). */
    _nativeDb() {
      return this._session ? this._session._nativeDb(this._name) : nativeDb(this._name);
    }
    getSisterDB(name) {
      return this.getSiblingDB(name);
    }
    getCollection(name) {
      if (typeof name !== 'string' || !name) throw new Error(`getCollection needs a name, got ${tojson(name)}`);
      if (!this._collections.has(name)) this._collections.set(name, new DBCollection(this, name));
      return this._collections.get(name);
    }
    runCommand(cmd, extra) {
      return replyOf(this, toCommand(cmd, extra));
    }
    _dbCommand(cmd) {
      return this.runCommand(cmd);
    }
    runReadCommand(cmd) {
      return this.runCommand(cmd);
    }
    adminCommand(cmd, extra) {
      return replyOf(this.getSiblingDB('admin'), toCommand(cmd, extra));
    }
    _adminCommand(cmd) {
      return this.adminCommand(cmd);
    }
    getCollectionInfos(filter, nameOnly) {
      const reply = mustRun(this, { listCollections: 1, filter: filter ?? {}, nameOnly: !!nameOnly, cursor: {} });
      return new DBCommandCursor(this, reply)
        .toArray()
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    }
    getCollectionNames() {
      return this.getCollectionInfos({}, true).map((c) => c.name);
    }
    createCollection(name, options) {
      return this.runCommand({ create: name, ...(options ?? {}) });
    }
    createView(name, viewOn, pipeline, options) {
      return this.runCommand({ create: name, viewOn, pipeline: pipeline ?? [], ...(options ?? {}) });
    }
    dropDatabase() {
      return this.runCommand({ dropDatabase: 1 });
    }
    stats(scale) {
      return this.runCommand({ dbStats: 1, ...(typeof scale === 'object' ? scale : scale ? { scale } : {}) });
    }
    serverStatus(options) {
      return this.adminCommand({ serverStatus: 1, ...(options ?? {}) });
    }
    serverBuildInfo() {
      return this.adminCommand({ buildInfo: 1 });
    }
    version() {
      return this.serverBuildInfo().version;
    }
    isMaster() {
      return this.runCommand({ isMaster: 1 });
    }
    hello() {
      return this.runCommand({ hello: 1 });
    }
    currentOp(filter) {
      return this.adminCommand({ currentOp: 1, ...(typeof filter === 'object' ? filter : {}) });
    }
    killOp(opid) {
      return this.adminCommand({ killOp: 1, op: opid });
    }
    getLastError() {
      return lastError;
    }
    getLastErrorObj() {
      return { ok: 1, err: lastError, n: 0 };
    }
    getPrevError() {
      return { ok: 1, err: lastError };
    }
    resetError() {
      lastError = null;
      return { ok: 1 };
    }
    getProfilingLevel() {
      return 0;
    }
    getWriteConcern() {
      return undefined;
    }
    setSlaveOk() {}
    listCommands() {
      return this.runCommand({ listCommands: 1 });
    }
    aggregate(pipeline, options) {
      const reply = mustRun(this, { aggregate: 1, pipeline, cursor: {}, ...(options ?? {}) });
      return new DBCommandCursor(this, reply);
    }
    setLogLevel(level, component) {
      const value = component ? { [component]: { verbosity: level } } : { verbosity: level };
      return this.adminCommand({ setParameter: 1, logComponentVerbosity: value });
    }
    getLogComponents() {
      return this.adminCommand({ getParameter: 1, logComponentVerbosity: 1 }).logComponentVerbosity;
    }
    hostInfo() {
      return this.adminCommand({ hostInfo: 1 });
    }
    setWriteConcern() {}
    unsetWriteConcern() {}
    getCollectionNamesFiltered(filter) {
      return this.getCollectionInfos(filter, true).map((c) => c.name);
    }
  }

  // ---- the rest of the legacy globals -------------------------------------------------------------

  const mongo = new Mongo();
  const testDb = mongo.getDB('test');
  Object.defineProperty(global, 'db', { value: testDb, writable: true, configurable: true, enumerable: false });

  function seeded(seed) {
    let s = seed >>> 0;
    return () => {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = s;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  let rand = null;
  const Random = {
    setRandomSeed(seed) {
      const s = seed ?? Math.floor(Math.random() * 2 ** 31);
      rand = seeded(s);
      return s;
    },
    srand(seed) {
      rand = seeded(seed);
    },
    genRandomSeed() {
      return Math.floor(Math.random() * 2 ** 31);
    },
    isInitialized() {
      return rand !== null;
    },
    rand() {
      if (!rand) throw new Error('Random.setRandomSeed() must be called first');
      return rand();
    },
    randInt(n) {
      return Math.floor(Random.rand() * n);
    },
    genNormal(mean, sd) {
      const u = 1 - Random.rand();
      const v = Random.rand();
      return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    genExp(mean) {
      return -Math.log(1 - Random.rand()) * mean;
    },
  };

  // The legacy shell's suites set it when a test runs against a replica set; the engine is a standalone here.
  global.testingReplication = false;
  /**
   * The legacy shell's prompt: the connection's promptPrefix when set, else "[automated] " while
   * the server's hello carries an automationServiceDescriptor, then "> ".
   */
  global.defaultPrompt = () => {
    const prefix = global.db.getMongo().promptPrefix;
    if (typeof prefix === 'string') return `${prefix}> `;
    const hello = global.db.runCommand({ isMaster: 1 });
    return `${hello.automationServiceDescriptor ? '[automated] ' : ''}> `;
  };
  const TestData = { testName: H.testName, storageEngine: 'wiredTiger', noJournal: false, auth: false };
  const jsTest = {
    name: () => H.testName,
    options: () => TestData,
    log: (msg) => print(`----\n${typeof msg === 'string' ? msg : tojson(msg)}\n----`),
    isMongos: () => false,
    readOnlyUserRoles: ['read'],
    basicUserRoles: ['dbOwner'],
    adminUserRoles: ['root'],
    authenticate: () => true,
  };

  const ErrorCodes = { ...H.errorCodes };
  const ErrorCodeStrings = {};
  for (const [k, v] of Object.entries(ErrorCodes)) ErrorCodeStrings[v] = k;

  Object.extend = function (dst, src, deep) {
    // The legacy shell walks `src` with for-in, so an undefined or null source adds nothing.
    for (const k of src === undefined || src === null ? [] : Object.keys(src)) {
      const v = src[k];
      dst[k] =
        deep && v !== null && typeof v === 'object' && v._bsontype === undefined
          ? Object.extend(Array.isArray(v) ? [] : {}, v, true)
          : v;
    }
    return dst;
  };
  Object.merge = (a, b, deep) => Object.extend(Object.extend({}, a, deep), b, deep);
  Object.keySet = (o) => Object.keys(o);
  // The legacy shell answers 0 for null or undefined (no document) rather than throwing.
  Object.bsonsize = (o) => (o === null || o === undefined ? 0 : H.bsonsize(fixValues(o)));
  Array.contains = (arr, x) => arr.some((y) => y == x || (y != null && x != null && friendlyEqual(x, y)));
  Array.unique = (arr) => {
    const seen = new Set();
    return arr.filter((x) => {
      const k = tojson(x);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  };
  Array.shuffle = (arr) => {
    for (let i = arr.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [arr[i], arr[j]] = [arr[j], arr[i]];
    }
    return arr;
  };
  Array.tojson = (arr) => tojson(arr);
  /** The documents the DBRefs of `arr` point at, only those into `collection` when it is given. */
  Array.fetchRefs = (arr, collection) =>
    arr.filter((ref) => !collection || ref.getCollection() === collection).map((ref) => ref.fetch());
  Array.sum = (arr) => arr.reduce((a, b) => a + b, 0);
  Array.avg = (arr) => (arr.length ? Array.sum(arr) / arr.length : NaN);
  Array.stdDev = (arr) => {
    const m = Array.avg(arr);
    return Math.sqrt(Array.avg(arr.map((x) => (x - m) * (x - m))));
  };

  const exported = {
    assert,
    doassert,
    tojson,
    tojsononeline: (x) => tojson(x, '', true),
    tojsonObject: (x) => tojson(x),
    printjsononeline: (x) => print(tojson(x, '', true)),
    friendlyEqual,
    bsonWoCompare: (a, b) => H.bsonWoCompare(fixValues(a), fixValues(b)),
    bsonBinaryEqual: (a, b) => H.bsonBinaryEqual(fixValues(a), fixValues(b)),
    bsonUnorderedFieldsCompare: (a, b) => H.bsonWoCompare(fixValues(sortDoc(a)), fixValues(sortDoc(b))),
    // The legacy shell's SHA-256 of a string, as BinData (what a no-auth session's uid is).
    computeSHA256Block: (text) => global.BinData(0, H.sha256Base64(String(text))),
    ErrorCodes,
    ErrorCodeStrings,
    TestData,
    jsTest,
    jsTestLog: (msg) => jsTest.log(msg),
    jsTestName: () => H.testName,
    jsTestOptions: () => TestData,
    Random,
    isNumber: (x) => typeof x === 'number',
    isString: (x) => typeof x === 'string',
    isObject: (x) => typeof x === 'object' && x !== null,
    isMongos: () => false,
    hostname: () => 'localhost',
    getHostName: () => 'localhost',
    _isWindows: () => false,
    _rand: () => Math.random(),
    _srand: () => undefined,
    getBuildInfo: () => testDb.adminCommand('buildInfo'),
    load(path) {
      // Evaluated as a sloppy-mode script so its top-level vars become globals, as load() makes them
      // (a 'use strict' directive would keep them inside the eval).
      const text = H.readFile(path).replace(/^((?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*)(['"])use strict\2;?/, '$1');
      (0, eval)(text);
      return true;
    },
    Mongo: function MongoConnection() {
      return mongo;
    },
    DB,
    DBCollection,
    DBQuery,
    DBCommandCursor,
    WriteResult,
    BulkWriteResult,
    WriteCommandError,
    BulkWriteError,
    Explainable,
    PlanCache,
  };
  for (const [name, value] of Object.entries(exported)) {
    Object.defineProperty(global, name, { value, writable: true, configurable: true, enumerable: false });
  }
  global.Mongo.prototype = Mongo.prototype;
  delete global.__harness;
})(globalThis);
