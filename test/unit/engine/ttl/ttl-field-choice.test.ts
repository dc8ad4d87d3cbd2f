/**
 * Rule 1.6: a compound key cannot be a TTL index. The refusal says which single field to index
 * instead, chosen as the field that holds dates in the collection's documents, else the field
 * named like a date, else the first field — saying plainly that it was assumed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine, EngineError, VirtualClock } from '../../../../src/engine';
import { chooseTTLField, hasTimeName } from '../../../../src/engine/ttl/ttl-field-choice';

const T0 = new Date(Date.UTC(2026, 0, 1));

function refusal(engine: Engine, key: Record<string, number>): EngineError {
  try {
    engine.runCommand('app', { createIndexes: 'events', indexes: [{ key, name: 'k', expireAfterSeconds: 3600 }] });
  } catch (err) {
    assert.ok(err instanceof EngineError);
    assert.equal(err.code, 67);
    assert.equal(err.codeName, 'CannotCreateIndex');
    return err;
  }
  assert.fail('the compound TTL index was created');
}

describe('rule 1.6: the TTL field a refused compound key meant', () => {
  it('sampled documents: the field that holds dates wins, whatever the names say', () => {
    const engine = new Engine({ clock: new VirtualClock(T0) });
    engine.runCommand('app', {
      insert: 'events',
      documents: [
        { user: 'a', createdAt: 'yesterday', seen: T0 },
        { user: 'b', createdAt: 'today', seen: [T0, T0] },
        { user: 'c', createdAt: 'now' },
      ],
    });
    const err = refusal(engine, { user: 1, createdAt: 1, seen: 1 });
    assert.match(
      err.message,
      /create \{seen: 1\} with expireAfterSeconds \(seen holds dates in 2 of the 2 documents seen with it\), and the compound index without it/,
    );
  });

  it('name hints: with no documents, {user: 1, createdAt: 1} suggests createdAt, not the first field', () => {
    const engine = new Engine({ clock: new VirtualClock(T0) });
    const err = refusal(engine, { user: 1, createdAt: 1 });
    assert.match(
      err.message,
      /create \{createdAt: 1\} with expireAfterSeconds \(createdAt is named like a date field\)/,
    );
  });

  it('name hints also decide when the documents hold no dates in any key field', () => {
    const engine = new Engine({ clock: new VirtualClock(T0) });
    engine.runCommand('app', { insert: 'events', documents: [{ user: 'a', expiresAt: 'soon' }] });
    const err = refusal(engine, { user: 1, expiresAt: 1 });
    assert.match(
      err.message,
      /create \{expiresAt: 1\} with expireAfterSeconds \(expiresAt is named like a date field\)/,
    );
  });

  it('assumed: no dates, no date-like name: the first field, said plainly', () => {
    const engine = new Engine({ clock: new VirtualClock(T0) });
    const err = refusal(engine, { user: 1, score: 1 });
    assert.match(
      err.message,
      /create \{user: 1\} with expireAfterSeconds \(user assumed: no field of the key is named like a date field; put the field that holds the date documents expire by\)/,
    );
  });

  it('names that read like a time, and names that do not', () => {
    for (const name of [
      'createdAt',
      'created_at',
      'expiryDate',
      'startTime',
      'ts',
      'expires',
      'expireAt',
      'meta.updatedAt',
      'timestamp',
      'date',
    ])
      assert.equal(hasTimeName(name), true, name);
    for (const name of ['user', 'format', 'chat', 'status', 'tenant', 'lastSeen', 'position'])
      assert.equal(hasTimeName(name), false, name);
  });

  it('each time-like ending counts on its own; the short names and expir- in any case; the last path word decides', () => {
    for (const name of [
      'updated_at',
      'birthDate',
      'end_date',
      'start_time',
      'datestamp',
      'postmark.stamp',
      'At',
      'DATE',
      'Time',
      'TS',
      'TimeStamp',
      'EXPIRY',
      'a.b.expiresOn',
      'v2At',
    ])
      assert.equal(hasTimeName(name), true, name);
    for (const name of [
      'update',
      'runtime',
      'stamps',
      'tsx',
      'xts',
      'nonexpiring',
      'createdAt.value',
      'dates',
      'at_home',
      'timer',
    ])
      assert.equal(hasTimeName(name), false, name);
  });

  it('the sampled reason counts the documents (one document, several documents) and names the field', () => {
    const one = chooseTTLField(['user', 'when'], (f) => (f === 'when' ? { seen: 1, dates: 1 } : { seen: 1, dates: 0 }));
    assert.deepEqual(one, {
      field: 'when',
      reason: 'sampled',
      because: 'when holds dates in 1 of the 1 document seen with it',
    });
    const many = chooseTTLField(['when'], () => ({ seen: 4, dates: 2 }));
    assert.equal(many.because, 'when holds dates in 2 of the 4 documents seen with it');
  });

  it('assumed after sampling: the reason says the documents held no dates either', () => {
    const choice = chooseTTLField(['user', 'score'], () => ({ seen: 2, dates: 0 }));
    assert.deepEqual(choice, {
      field: 'user',
      reason: 'assumed',
      because:
        'user assumed: no field of the key holds dates in the documents seen or is named like a date field; put the field that holds the date documents expire by',
    });
    assert.deepEqual(
      chooseTTLField(['score', 'createdAt'], () => ({ seen: 2, dates: 0 })),
      {
        field: 'createdAt',
        reason: 'name',
        because: 'createdAt is named like a date field',
      },
    );
  });

  it('the first field with dates wins over a later one with as many; more dates win over an earlier field', () => {
    const counts: Record<string, { seen: number; dates: number }> = {
      a: { seen: 5, dates: 2 },
      b: { seen: 5, dates: 2 },
      c: { seen: 5, dates: 1 },
    };
    assert.equal(chooseTTLField(['a', 'b', 'c'], (f) => counts[f]).field, 'a');
    assert.equal(chooseTTLField(['c', 'b', 'a'], (f) => counts[f]).field, 'b');
  });

  it('the sample picks the field with the most dates; ties keep key order', () => {
    const counts: Record<string, { seen: number; dates: number }> = {
      a: { seen: 3, dates: 1 },
      b: { seen: 3, dates: 3 },
      c: { seen: 3, dates: 3 },
    };
    assert.equal(chooseTTLField(['a', 'b', 'c'], (f) => counts[f]).field, 'b');
    assert.equal(chooseTTLField(['a', 'b', 'c'], (f) => counts[f]).reason, 'sampled');
    assert.equal(chooseTTLField(['x', 'createdAt'], () => ({ seen: 1, dates: 0 })).reason, 'name');
  });
});
