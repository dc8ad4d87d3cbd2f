// A child process of run.js: runs the upstream test files it is sent, one at a time, each against a
// fresh in-memory engine (a one-member replica set for the tests that use transactions) through a ShellSession (the path `ttl-workbench run` takes), after the
// legacy shell helpers of legacy-shell.js. It answers each file with what happened; run.js kills
// it when a file outlives its time limit.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const bson = require('bson');

const repo = path.resolve(__dirname, '../..');
const { Engine, VirtualClock, compareValues, BSON_UNDEFINED } = require(path.join(repo, 'out/src/engine'));
const { ShellSession } = require(path.join(repo, 'out/src/shell/session'));
const { readErrorCodes } = require('./error-codes');

const prelude = fs.readFileSync(path.join(__dirname, 'legacy-shell.js'), 'utf8');

/** Script-realm values as the engine knows them (its checks are host-realm instanceof). */
function toHost(value, depth = 0) {
  // The legacy shell sends a function as BSON JavaScript (type 13): its source text.
  if (typeof value === 'function' && value.__bsonValue === undefined) return new bson.Code(String(value));
  if (value === null || typeof value !== 'object' || depth > 200) return value;
  const tag = Object.prototype.toString.call(value);
  if (tag === '[object Date]') return new Date(value.getTime());
  if (tag === '[object RegExp]') return new RegExp(value.source, value.flags);
  if (value._bsontype !== undefined) return value;
  if (Array.isArray(value)) return value.map((v) => toHost(v, depth + 1));
  const out = {};
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, { value: toHost(value[key], depth + 1), enumerable: true, writable: true });
  }
  return out;
}

/**
 * The legacy shell's numbers are all doubles (8 bytes in BSON); the driver's serializer would write an
 * integral number as an int32 (4 bytes), so sizes would come out short by 4 bytes a number.
 */
function numbersAsDoubles(value, depth = 0) {
  if (typeof value === 'number') return new bson.Double(value);
  if (value === null || typeof value !== 'object' || depth > 200 || value._bsontype !== undefined) return value;
  if (value instanceof Date || value instanceof RegExp) return value;
  if (Array.isArray(value)) return value.map((v) => numbersAsDoubles(v, depth + 1));
  const out = {};
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, {
      value: numbersAsDoubles(value[key], depth + 1),
      enumerable: true,
      writable: true,
    });
  }
  return out;
}

/**
 * A value as the legacy shell turned it into BSON: any value (wrapped, so numbers compare too), and
 * a document's _id moved to the front, as the shell does for every document it sends.
 */
function asShellBson(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value._bsontype !== undefined)
    return value;
  if (!Object.prototype.hasOwnProperty.call(value, '_id')) return value;
  const { _id, ...rest } = value;
  return { _id, ...rest };
}

function harnessFor(root, file, errorCodes) {
  return {
    testName: path.basename(file, '.js'),
    errorCodes,
    // What the legacy shell's `undefined` becomes on its way to the engine (BSON type 6).
    undefinedValue: BSON_UNDEFINED,
    readFile(p) {
      const full = path.isAbsolute(p) ? p : path.join(root, p);
      return fs.readFileSync(full, 'utf8');
    },
    bsonWoCompare: (a, b) => Math.sign(compareValues(toHost(a), toHost(b))),
    bsonBinaryEqual: (a, b) =>
      Buffer.compare(bson.serialize({ v: asShellBson(toHost(a)) }), bson.serialize({ v: asShellBson(toHost(b)) })) ===
      0,
    // Serialized, not only measured: like the legacy shell's, it fails on what BSON cannot hold
    // (a null byte in a field name).
    bsonsize: (o) => bson.serialize(numbersAsDoubles(toHost(o))).length,
    sha256Base64: (text) => crypto.createHash('sha256').update(text).digest('base64'),
  };
}

/** `replSet`: the test needs sessions and transactions, so its engine is a one-member replica set. */
function runOne(root, file, timeoutMs, errorCodes, replSet = false) {
  const started = Date.now();
  const engine = new Engine({ clock: new VirtualClock(new Date()), ...(replSet ? { replSetName: 'rs0' } : {}) });
  const printed = [];
  const session = new ShellSession({
    engine,
    timeoutMs,
    onPrint: (line) => {
      printed.push(line);
      if (printed.length > 40) printed.shift();
    },
    hostGlobals: { __harness: harnessFor(root, file, errorCodes) },
  });
  try {
    const setup = session.evaluate(prelude, { filename: 'legacy-shell.js' });
    if (!setup.ok)
      return { ok: false, phase: 'prelude', error: setup.statements.at(-1).error, ms: Date.now() - started };
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const result = session.evaluate(text, { filename: file });
    if (result.ok) return { ok: true, ms: Date.now() - started };
    const failed = result.statements.at(-1);
    const line = failed.error?.line;
    // The test's own line that failed: for a bare assert() it is the only description there is.
    const source = line ? text.split('\n')[line - 1]?.trim().slice(0, 200) : undefined;
    return {
      ok: false,
      phase: 'test',
      error: failed.error,
      source,
      printed: printed.slice(-8),
      ms: Date.now() - started,
    };
  } catch (e) {
    return { ok: false, phase: 'harness', error: { name: e.name, message: e.message }, ms: Date.now() - started };
  } finally {
    try {
      engine.close();
    } catch {
      // A test that closed or broke the engine has nothing left to release.
    }
  }
}

module.exports = { runOne };

// Forked by run.js: answer its messages; required by the harness tests: only export.
if (require.main === module) {
  process.on('message', (msg) => {
    if (msg.type !== 'run') return;
    const codes = readErrorCodes(msg.root);
    const result = runOne(msg.root, msg.file, msg.timeoutMs, codes, msg.replSet === true);
    process.send({ type: 'result', file: msg.file, ...result });
  });
  process.send({ type: 'ready' });
}
