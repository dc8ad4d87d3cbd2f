/** Field suggestions, sample documents, collection kinds and create commands, error remedies. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createCollectionCommand, databaseNameProblem } from '../../../src/extension/logic/collection-commands';
import { collectionKindOf, describeCollection } from '../../../src/extension/logic/collection-description';
import { suggestTTLFields } from '../../../src/extension/logic/field-sampling';
import { errorMessageText, remediesFor } from '../../../src/extension/logic/remedies';
import { sampleDocuments } from '../../../src/extension/logic/samples';

const NOW = Date.parse('2030-01-01T00:00:00Z');

describe('suggestTTLFields', () => {
  it('puts date fields first and flags fields holding non-dates (TTL ignores those documents)', () => {
    const docs = sampleDocuments({ kind: 'plain', nowMs: NOW, count: 20 });
    const s = suggestTTLFields(docs);
    const byPath = Object.fromEntries(s.map((x) => [x.path, x]));
    assert.ok(s.findIndex((x) => x.path === 'lastModifiedDate') < s.findIndex((x) => x.path === 'status'));
    assert.equal(byPath.lastModifiedDate.flagged, false);
    assert.equal(byPath.createdAt.flagged, true);
    assert.match(byPath.createdAt.detail, /date in 18, but string in 2 of 20 sampled — those never expire/);
    assert.equal(byPath.status.flagged, true);
    assert.match(byPath.status.detail, /no dates/);
  });

  it('looks one level into subdocuments and counts arrays holding dates as dates', () => {
    const s = suggestTTLFields([{ meta: { at: new Date(0) }, times: [new Date(0), new Date(1)] }]);
    assert.ok(s.some((x) => x.path === 'meta.at' && x.dates === 1));
    assert.ok(s.some((x) => x.path === 'times' && x.dates === 1));
  });
});

describe('sampleDocuments', () => {
  it('spreads dates over the past and the future around now', () => {
    const docs = sampleDocuments({ kind: 'plain', nowMs: NOW, count: 100 });
    const times = docs.map((d) => (d.lastModifiedDate as Date).getTime());
    assert.ok(times.filter((t) => t < NOW).length >= 40);
    assert.ok(times.filter((t) => t > NOW).length >= 40);
    assert.ok(Math.min(...times) >= NOW - 2 * 86_400_000);
    assert.ok(Math.max(...times) <= NOW + 2 * 86_400_000 + 7000);
  });

  it('uses dates as _id for clustered collections and the timeField for time series', () => {
    const c = sampleDocuments({ kind: 'clustered', nowMs: NOW, count: 10 });
    assert.ok(c.every((d) => d._id instanceof Date));
    assert.equal(new Set(c.map((d) => (d._id as Date).getTime())).size, 10);
    const ts = sampleDocuments({ kind: 'timeseries', nowMs: NOW, count: 3, timeField: 'ts', metaField: 'm' });
    assert.ok(ts.every((d) => d.ts instanceof Date && typeof d.m === 'object'));
  });
});

describe('collections', () => {
  it('knows the four kinds from listCollections and describes them', () => {
    assert.equal(collectionKindOf('timeseries', {}), 'timeseries');
    assert.equal(collectionKindOf('collection', { clusteredIndex: {} }), 'clustered');
    assert.equal(collectionKindOf('collection', { capped: true }), 'capped');
    assert.equal(collectionKindOf('collection', {}), 'plain');
    assert.equal(
      describeCollection('clustered', { clusteredIndex: {}, expireAfterSeconds: 86400 }, 1234),
      '1,234 docs · TTL 1 d after _id',
    );
    assert.equal(describeCollection('capped', { capped: true, size: 1048576 }, 1), '1 doc · capped 1 MiB');
  });

  it('builds the create command of each kind', () => {
    assert.deepEqual(createCollectionCommand({ name: 'a', kind: 'plain' }), { create: 'a' });
    assert.deepEqual(createCollectionCommand({ name: 'a', kind: 'capped' }), {
      create: 'a',
      capped: true,
      size: 1048576,
    });
    assert.deepEqual(createCollectionCommand({ name: 'a', kind: 'clustered', expireAfterSeconds: 60 }), {
      create: 'a',
      clusteredIndex: { key: { _id: 1 }, unique: true },
      expireAfterSeconds: 60,
    });
    assert.deepEqual(
      createCollectionCommand({
        name: 'a',
        kind: 'timeseries',
        timeField: 't',
        metaField: 'm',
        expireAfterSeconds: 60,
      }),
      { create: 'a', timeseries: { timeField: 't', metaField: 'm' }, expireAfterSeconds: 60 },
    );
  });
});

describe('remedies', () => {
  it('puts the MongoDB code first in the message', () => {
    assert.equal(
      errorMessageText({ code: 67, codeName: 'CannotCreateIndex', message: 'x' }, 'Create TTL Index'),
      'Create TTL Index failed — CannotCreateIndex (67): x',
    );
    assert.equal(errorMessageText({ message: 'x' }), 'Failed: x');
  });

  it('rule 2.3: offers collMod when an equivalent index exists', () => {
    const ctx = { command: 'ttlWorkbench.createTTLIndex', db: 'app', collection: 'e' };
    const ttl = remediesFor({ code: 85, message: '' }, { ...ctx, existingIndex: { name: 't_1', isTTL: true } });
    assert.equal(ttl[0].command, 'ttlWorkbench.changeExpireAfterSeconds');
    const plain = remediesFor({ code: 85, message: '' }, { ...ctx, existingIndex: { name: 't_1', isTTL: false } });
    assert.equal(plain[0].command, 'ttlWorkbench.convertToTTLIndex');
    assert.deepEqual(plain[0].args, [{ db: 'app', collection: 'e', index: 't_1' }]);
  });

  it('offers the 8.0 setting for capped TTL on 7.0, creation for a missing namespace, nothing otherwise', () => {
    assert.equal(
      remediesFor(
        { code: 67, message: 'Cannot create TTL index on a capped collection' },
        { command: 'x', serverVersion: '7.0' },
      )[0].command,
      'workbench.action.openSettings',
    );
    assert.equal(remediesFor({ code: 26, message: '' }, { command: 'x' })[0].command, 'ttlWorkbench.createCollection');
    assert.deepEqual(
      remediesFor({ code: 67, message: 'must be within the range of a 32-bit integer' }, { command: 'x' }),
      [],
    );
  });
});

describe('databaseNameProblem', () => {
  it("accepts a typed database name as Create Collection's picker takes it, and says why mongod's rules refuse one", () => {
    assert.equal(databaseNameProblem('app'), undefined);
    assert.equal(databaseNameProblem('app-2030_ü'), undefined);
    assert.match(databaseNameProblem('') ?? '', /not empty/);
    for (const bad of ['a.b', 'a b', 'a$b', 'a/b', 'a\\b', 'a"b'])
      assert.match(databaseNameProblem(bad) ?? '', /none of the characters/, bad);
    assert.equal(databaseNameProblem('x'.repeat(63)), undefined);
    assert.match(databaseNameProblem('x'.repeat(64)) ?? '', /shorter than 64 bytes/);
  });
});
