/**
 * Issue 19, Restricted Mode: when trust is granted, an in-memory engine moves to the workspace's
 * data folder at once if it is empty, and asks first, naming what would go, if it holds data.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  KEEP_IN_MEMORY,
  OPEN_FOLDER,
  trustedStorageOpened,
  trustedStorageQuestion,
} from '../../../src/extension/logic/trust-storage';

describe('trust granted: the engine moves to the data folder', () => {
  test('issue 19: an empty in-memory engine moves without a question (nothing is lost)', () => {
    assert.equal(trustedStorageQuestion([]), undefined);
  });

  test('issue 19: an engine holding data asks first, naming the databases and documents that would go', () => {
    const q = trustedStorageQuestion([
      { name: 'app', documents: 12 },
      { name: 'logs', documents: 1 },
    ]);
    assert.ok(q);
    assert.match(
      q.text,
      /what was written in Restricted Mode goes: 2 databases \(app: 12 documents, logs: 1 document\)/,
    );
    assert.match(q.text, /Keep it in memory to go on with it \(the folder opens at the next window reload\)/);
    assert.equal(q.open, OPEN_FOLDER);
    assert.equal(q.keep, KEEP_IN_MEMORY);
  });

  test('issue 19: once open, the window says where the engine lives, and a read-only folder says changes stay in memory', () => {
    assert.equal(
      trustedStorageOpened(1234, false),
      "This workspace is trusted now: TTL Workbench keeps its engine in the workspace's data folder (1,234 documents restored).",
    );
    assert.match(
      trustedStorageOpened(1, true),
      /opened its data folder read-only .*1 document restored\), so changes stay in memory/,
    );
  });
});
