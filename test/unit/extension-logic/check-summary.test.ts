/** Check Workspace's message counts as the Problems panel does (issue 18.9). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkWorkspaceSummary } from '../../../src/extension/logic/check-summary';

describe('checkWorkspaceSummary', () => {
  it('names hints apart from the problems the Problems panel counts, with plural forms', () => {
    assert.equal(
      checkWorkspaceSummary({ files: 4, problems: 3, errors: 1, hints: 1, cancelled: false }),
      'Checked 4 files: 3 TTL problems (1 error) and 1 hint.',
    );
    assert.equal(
      checkWorkspaceSummary({ files: 1, problems: 1, errors: 0, hints: 0, cancelled: true }),
      'Checked 1 file: 1 TTL problem, stopped early.',
    );
    assert.equal(
      checkWorkspaceSummary({ files: 2, problems: 0, errors: 0, hints: 0, cancelled: false }),
      'Checked 2 files: no TTL problems.',
    );
  });
});
