/**
 * A data folder keeps the clock mode it last ran on, and an open refuses only the switch that
 * would move time backwards: virtual → system while the stored virtual time is ahead of the wall
 * clock. Every other switch is allowed and noted.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SystemClock, VirtualClock } from '../../../src/engine';
import {
  ClockWouldRunBackwardsError,
  closeStoredEngine,
  openStoredEngine,
  storedClockKind,
} from '../../../src/storage/engine-store';
import { openProcessEngine } from '../../../src/storage/process-engine';
import { SwitchableClock } from '../../../src/extension/backend/switchable-clock';

const DAY = 86_400_000;
const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'ttl-clock-mode-'));
  dirs.push(d);
  return d;
}
const meta = (dir: string) =>
  JSON.parse(fs.readFileSync(path.join(dir, 'ttl-workbench.json'), 'utf8')) as { clock?: string };

function writeOn(dir: string, clock: VirtualClock | SystemClock | SwitchableClock, advanceMs = 0): void {
  const opened = openStoredEngine(dir, { engine: { clock } });
  opened.engine.runCommand('app', { insert: 'events', documents: [{ at: new Date(clock.now()) }] });
  if (advanceMs && clock instanceof VirtualClock) clock.advance(advanceMs);
  closeStoredEngine(opened);
}

describe('clock mode stored with the data', () => {
  it('a new folder records the mode it was created on (system and virtual)', () => {
    const sys = tmpDir();
    writeOn(sys, new SystemClock());
    assert.equal(meta(sys).clock, 'system');
    assert.equal(storedClockKind(sys), 'system');
    const virt = tmpDir();
    writeOn(virt, new VirtualClock(Date.now()));
    assert.equal(meta(virt).clock, 'virtual');
    assert.equal(storedClockKind(virt), 'virtual');
  });

  it('virtual → system is refused when the stored virtual time is ahead of the wall clock, and the folder stays as it was', () => {
    const dir = tmpDir();
    writeOn(dir, new VirtualClock(Date.now()), 3 * DAY);
    const before = fs.readFileSync(path.join(dir, 'ttl-workbench.json'), 'utf8');
    assert.throws(
      () => openStoredEngine(dir, { engine: { clock: new SystemClock() } }),
      (err: unknown) => {
        assert.ok(err instanceof ClockWouldRunBackwardsError);
        assert.match(err.message, /2 days ahead of the system clock/);
        assert.match(err.message, /would move time backwards/);
        assert.match(err.message, /Keep the virtual clock/);
        return true;
      },
    );
    assert.equal(fs.readFileSync(path.join(dir, 'ttl-workbench.json'), 'utf8'), before);
    // The lock was released: the folder opens again on its virtual clock, at its stored time.
    const clock = new VirtualClock(0);
    const opened = openStoredEngine(dir, { engine: { clock } });
    assert.ok(clock.now() > Date.now() + 2 * DAY);
    closeStoredEngine(opened);
  });

  it("a system clock that has a set (the extension's switchable clock) is never set back to the stored time: virtual → system is refused the same", () => {
    const dir = tmpDir();
    writeOn(dir, new VirtualClock(Date.now()), 3 * DAY);
    const clock = new SwitchableClock('system');
    assert.throws(
      () => openStoredEngine(dir, { engine: { clock } }),
      (err: unknown) =>
        err instanceof ClockWouldRunBackwardsError && /2 days ahead of the system clock/.test(err.message),
    );
    clock.dispose();
  });

  it('virtual → system is allowed when the stored virtual time is behind the wall clock; the folder then records system', () => {
    const dir = tmpDir();
    writeOn(dir, new VirtualClock(Date.now() - 5 * DAY), DAY);
    const opened = openStoredEngine(dir, { engine: { clock: new SystemClock() } });
    assert.ok(opened.notes.some((n) => /ran on the virtual clock; it runs on the system clock now/.test(n)));
    assert.equal(opened.documents, 1);
    closeStoredEngine(opened);
    assert.equal(meta(dir).clock, 'system');
  });

  it('system → virtual continues from the stored time (never backwards) and records virtual', () => {
    const dir = tmpDir();
    writeOn(dir, new SystemClock());
    const stored = Date.now();
    const clock = new VirtualClock(0);
    const opened = openStoredEngine(dir, { engine: { clock } });
    assert.ok(clock.now() >= stored - 1000 && clock.now() <= Date.now());
    assert.ok(
      opened.notes.includes(`${dir} ran on the system clock; it runs on the virtual clock now, from the stored time.`),
    );
    closeStoredEngine(opened);
    assert.equal(meta(dir).clock, 'virtual');
  });

  it('a folder from before the mode was stored counts as virtual: its switch to system is checked the same way', () => {
    const dir = tmpDir();
    writeOn(dir, new VirtualClock(Date.now()), DAY);
    const m = meta(dir);
    delete m.clock;
    fs.writeFileSync(path.join(dir, 'ttl-workbench.json'), JSON.stringify(m));
    assert.equal(storedClockKind(dir), 'virtual');
    assert.throws(() => openStoredEngine(dir, { engine: { clock: new SystemClock() } }), ClockWouldRunBackwardsError);
  });

  it('a process engine without a clock option runs on the mode the folder last ran on', () => {
    const dir = tmpDir();
    const first = openProcessEngine({ clock: 'system', data: dir, flavor: 'mongodb', holder: 'test' });
    assert.equal(first.engine.clock.kind, 'system');
    first.close();
    const again = openProcessEngine({ data: dir, flavor: 'mongodb', holder: 'test' });
    assert.equal(again.engine.clock.kind, 'system');
    again.close();
    const virtual = openProcessEngine({ clock: 'virtual', data: dir, flavor: 'mongodb', holder: 'test' });
    assert.equal(virtual.engine.clock.kind, 'virtual');
    virtual.close();
    const third = openProcessEngine({ data: dir, flavor: 'mongodb', holder: 'test' });
    assert.equal(third.engine.clock.kind, 'virtual');
    third.close();
  });

  it('the switch note says where time goes on: from the stored time (to virtual), or that the stored time is not ahead (to system)', () => {
    const toVirtual = tmpDir();
    writeOn(toVirtual, new SystemClock());
    const v = openStoredEngine(toVirtual, { engine: { clock: new VirtualClock(0) } });
    assert.ok(
      v.notes.includes(`${toVirtual} ran on the system clock; it runs on the virtual clock now, from the stored time.`),
      v.notes.join(' | '),
    );
    closeStoredEngine(v);
    const toSystem = tmpDir();
    writeOn(toSystem, new VirtualClock(Date.now() - 5 * DAY));
    const s = openStoredEngine(toSystem, { engine: { clock: new SystemClock() } });
    assert.ok(
      s.notes.includes(
        `${toSystem} ran on the virtual clock; it runs on the system clock now (the stored time is not ahead of it).`,
      ),
      s.notes.join(' | '),
    );
    closeStoredEngine(s);
  });

  it("the extension's clock in system mode behind a system folder's stored time is noted as set back, never moved (it cannot be)", () => {
    const dir = tmpDir();
    // A day ahead of the wall clock, as system time is after virtual time went ahead and was switched.
    writeOn(dir, new SwitchableClock('system', Date.now() + DAY));
    assert.equal(meta(dir).clock, 'system');
    const clock = new SwitchableClock('system');
    const opened = openStoredEngine(dir, { engine: { clock } });
    try {
      assert.equal(opened.documents, 1);
      assert.ok(
        opened.notes.some((n) => /^the system clock is 23 hours behind the last time stored here/.test(n)),
        opened.notes.join(' | '),
      );
      assert.ok(Math.abs(clock.now() - Date.now()) < 1000);
      assert.equal(meta(dir).clock, 'system');
    } finally {
      closeStoredEngine(opened);
    }
  });

  it('only a switch to the system clock is refused: a virtual clock that cannot be moved up to the stored time is noted and opens', () => {
    const dir = tmpDir();
    writeOn(dir, new VirtualClock(Date.now()), 3 * DAY);
    const fixed = Date.now();
    // A Clock of its own (the engine accepts any): virtual, but without `set`.
    const clock = {
      kind: 'virtual' as const,
      now: () => fixed,
      setTimer: () => () => undefined,
      dispose: () => undefined,
    };
    const opened = openStoredEngine(dir, { engine: { clock } });
    try {
      assert.equal(opened.documents, 1);
      assert.ok(
        opened.notes.some((n) => /^the system clock is 2 days behind the last time stored here/.test(n)),
        opened.notes.join(' | '),
      );
      assert.equal(meta(dir).clock, 'virtual');
    } finally {
      closeStoredEngine(opened);
    }
  });
});
