/**
 * The deploy bench's preview count (bench/deploy-bench.ts) at a small size: the same function the
 * bench times runs both ways, so both stay exercised. With a 1 ms budget on 20,000 matching
 * unindexed documents the server's count cannot finish, and the preview says "more than N" (the
 * bounded count's MaxTimeMSExpired, code 50) instead of waiting; with a budget it cannot exhaust it
 * gives the exact count. No time is asserted: timings belong to the bench's output.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { previewCounts } from '../../../bench/deploy-bench';
import { startServer } from '../../../src/wire';

test('the bench\'s preview count runs out of its maxTimeMS with "more than N", and finishes exactly when given time', async () => {
  const server = await startServer();
  try {
    const [cut, full] = await previewCounts(server, 20_000, [1, 600_000]);
    assert.equal(cut.ranOut, true, cut.said);
    assert.match(cut.said, /more than [\d,]+ \(counting stopped at its 1 ms limit\)/);
    assert.equal(full.ranOut, false, full.said);
    assert.equal(full.said, '20000');
  } finally {
    await server.stop();
  }
});
