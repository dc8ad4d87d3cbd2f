// MongoDB's error code names and numbers, read from the upstream tree being tested (the server's
// src/mongo/base/error_codes.yml, or error_codes.err in older trees), so ErrorCodes matches the
// tests' own server version.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

let cached;

function readErrorCodes(root) {
  if (cached && cached.root === root) return cached.codes;
  const codes = {};
  const yml = path.join(root, 'src/mongo/base/error_codes.yml');
  const err = path.join(root, 'src/mongo/base/error_codes.err');
  if (fs.existsSync(yml)) {
    // Entries look like `- {code: 2, name: BadValue}` (possibly with more keys).
    for (const m of fs.readFileSync(yml, 'utf8').matchAll(/code:\s*(\d+)\s*,\s*name:\s*([A-Za-z0-9_]+)/g)) {
      codes[m[2]] = Number(m[1]);
    }
  } else if (fs.existsSync(err)) {
    for (const m of fs.readFileSync(err, 'utf8').matchAll(/error_code\("([A-Za-z0-9_]+)",\s*(\d+)/g)) {
      codes[m[1]] = Number(m[2]);
    }
  } else {
    throw new Error(
      `no error code table under ${root}: extract src/mongo/base/error_codes.yml (or .err) with the tests`,
    );
  }
  cached = { root, codes };
  return codes;
}

module.exports = { readErrorCodes };
