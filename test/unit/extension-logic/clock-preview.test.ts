/**
 * Advance Clock's preview (issue 18.6): what a jump of the virtual clock makes eligible for deletion,
 * per TTL rule, counted by the engine before the clock moves; and that the clock then deletes
 * exactly what was previewed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EmbeddedBackend } from '../../../src/extension/backend/embedded-backend';
import { jumpPreviewWords, previewClockJump } from '../../../src/extension/logic/clock-preview';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const H = 3_600_000;

async function setup() {
  const backend = new EmbeddedBackend({}, { startMs: NOW });
  // app.events: TTL 1 h on t; expired now: -2 h; due within 1 h: -30 min; within 2 d: +1 d; never: a string.
  await backend.runCommand('app', {
    insert: 'events',
    documents: [
      { _id: 1, t: new Date(NOW - 2 * H) },
      { _id: 2, t: new Date(NOW - H / 2) },
      { _id: 3, t: new Date(NOW + 24 * H) },
      { _id: 4, t: 'yesterday' },
    ],
  });
  await backend.runCommand('app', {
    createIndexes: 'events',
    indexes: [
      { key: { t: 1 }, name: 't_1', expireAfterSeconds: 3600 },
      { key: { other: 1 }, name: 'other_1' },
    ],
  });
  // app.logs: clustered, collection TTL 0: each _id date is its expiry.
  await backend.runCommand('app', {
    create: 'logs',
    clusteredIndex: { key: { _id: 1 }, unique: true },
    expireAfterSeconds: 0,
  });
  await backend.runCommand('app', {
    insert: 'logs',
    documents: [{ _id: new Date(NOW + 30 * 60_000) }, { _id: new Date(NOW + 3 * H) }],
  });
  return backend;
}

describe('Advance Clock preview', () => {
  it('counts per TTL rule what the jump makes eligible: expired now plus due within the jump, index and collection TTL alike', async () => {
    const backend = await setup();
    const hour = await previewClockJump(backend, H);
    assert.deepEqual(hour.targets, [
      { where: 'app.events › t_1', eligible: 2, atLeast: false },
      { where: 'app.logs (collection TTL)', eligible: 1, atLeast: false },
    ]);
    assert.equal(hour.eligible, 3);
    assert.equal(
      jumpPreviewWords(hour),
      '3 documents become eligible for deletion — app.events › t_1: 2, app.logs (collection TTL): 1.',
    );
    const twoDays = await previewClockJump(backend, 48 * H);
    assert.equal(twoDays.eligible, 5, 'the string date never expires');
    assert.equal(
      jumpPreviewWords(await previewClockJump(backend, 0)),
      '1 document becomes eligible for deletion — app.events › t_1: 1.',
    );
    backend.dispose();
  });

  it('the clock then deletes what the preview said', async () => {
    const backend = await setup();
    const preview = await previewClockJump(backend, 90 * 60_000);
    const moved = await backend.advanceClock(90 * 60_000);
    assert.equal(moved.deleted, preview.eligible);
    assert.equal((await previewClockJump(backend, 0)).eligible, 0);
    backend.dispose();
  });

  it('says when nothing becomes eligible, counts at the cap as "at least", and names hidden TTL indexes it could not count', async () => {
    const backend = new EmbeddedBackend({}, { startMs: NOW });
    assert.equal(jumpPreviewWords(await previewClockJump(backend, H)), 'No document becomes eligible for deletion.');
    await backend.runCommand('a', {
      insert: 'c',
      documents: Array.from({ length: 5 }, (_, i) => ({ t: new Date(NOW - i * 1000) })),
    });
    await backend.runCommand('a', {
      createIndexes: 'c',
      indexes: [{ key: { t: 1 }, name: 't_1', expireAfterSeconds: 0 }],
    });
    const capped = await previewClockJump(backend, 0, 3);
    assert.equal(
      jumpPreviewWords(capped),
      'At least 3 documents become eligible for deletion — a.c › t_1: at least 3.',
    );
    await backend.runCommand('a', { collMod: 'c', index: { name: 't_1', hidden: true } });
    const hidden = await previewClockJump(backend, 0);
    assert.deepEqual(hidden.uncounted, ['a.c › t_1']);
    assert.equal(
      jumpPreviewWords(hidden),
      'No document becomes eligible for deletion (1 hidden TTL index not counted).',
    );
    backend.dispose();
  });
});
