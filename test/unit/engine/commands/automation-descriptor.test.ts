/**
 * The automationServiceDescriptor server parameter: a short string hello echoes while it is set.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Engine } from '../../../../src/engine';
import { expectError } from '../../helpers/expect-error';

describe('automationServiceDescriptor', () => {
  it('is empty at first, and hello has no such field then', () => {
    const engine = new Engine();
    assert.equal(
      engine.runCommand('admin', { getParameter: 1, automationServiceDescriptor: 1 }).automationServiceDescriptor,
      '',
    );
    assert.equal('automationServiceDescriptor' in engine.runCommand('admin', { hello: 1 }), false);
  });

  it('once set, hello and isMaster echo it, and setParameter answers the old value as was', () => {
    const engine = new Engine();
    assert.equal(engine.runCommand('admin', { setParameter: 1, automationServiceDescriptor: 'some_service' }).was, '');
    assert.equal(engine.runCommand('admin', { hello: 1 }).automationServiceDescriptor, 'some_service');
    assert.equal(engine.runCommand('admin', { isMaster: 1 }).automationServiceDescriptor, 'some_service');
    assert.equal(engine.runCommand('admin', { setParameter: 1, automationServiceDescriptor: '' }).was, 'some_service');
    assert.equal('automationServiceDescriptor' in engine.runCommand('admin', { hello: 1 }), false);
  });

  it('refuses a value that is not a string (14) and one longer than 64 bytes (15)', () => {
    const engine = new Engine();
    expectError(() => engine.runCommand('admin', { setParameter: 1, automationServiceDescriptor: 0 }), 14);
    expectError(() => engine.runCommand('admin', { setParameter: 1, automationServiceDescriptor: 'x'.repeat(65) }), 15);
    engine.runCommand('admin', { setParameter: 1, automationServiceDescriptor: 'x'.repeat(64) });
  });
});
