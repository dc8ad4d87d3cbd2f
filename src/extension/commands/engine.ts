/** Engine commands: Run TTL Pass Now, Advance Clock…, Switch Clock, Set Monitor Parameters…, Reset Engine, Refresh. */
import * as vscode from 'vscode';
import type { ClockMode, EngineSettings } from '../backend/backend';
import { formatClockTime, formatCount, formatMillis, parseClockAdvance, plural } from '../logic/durations';
import * as mongosh from '../logic/mongosh';
import { contentsOf, describeLoss } from '../logic/fresh-engine';
import { jumpPreviewWords, previewClockJump } from '../logic/clock-preview';
import {
  allCollections,
  inputBox,
  quickPick,
  registerCommand,
  reportSuccess,
  WorkbenchError,
  type CommandResult,
  type Invocation,
  type Services,
} from './context';

async function runTTLPass(services: Services, inv: Invocation): Promise<CommandResult> {
  const r = await services.backend.runTTLPass();
  const text =
    r.skipped && r.subPasses === 0
      ? `TTL pass skipped: ${r.skipped}.`
      : `TTL pass: deleted ${plural(r.deleted, 'document')} in ${plural(r.subPasses, 'sub-pass', 'sub-passes')}${r.skipped ? ` (${r.skipped})` : ''}.`;
  for (const v of r.visits)
    services.output.info(
      `  ${v.ns} ${v.target}: ${v.outcome}, deleted ${v.deleted}${v.reason ? ` (${v.reason})` : ''}`,
    );
  reportSuccess(services, inv, text, mongosh.runTTLPass());
  return { ok: true, ...r, mongosh: mongosh.runTTLPass() };
}

const ADVANCE_PRESETS = ['90s', '1h', '2d'];

/** What a jump of `ms` makes eligible, in words; undefined when the engine could not say. */
async function previewWords(services: Services, ms: number): Promise<string | undefined> {
  try {
    return jumpPreviewWords(await previewClockJump(services.backend, ms));
  } catch (err) {
    services.output.warn(`Advance Clock: no eligibility preview: ${(err as Error).message}`);
    return undefined;
  }
}

async function advanceClock(services: Services, inv: Invocation): Promise<CommandResult> {
  const clock = await services.backend.clock();
  if (!clock.canAdvance) {
    throw new WorkbenchError(
      'The engine runs on the system clock, where time passes by itself: switch to the virtual clock to move it.',
      {
        title: 'Switch to Virtual Clock',
        command: 'ttlWorkbench.switchClock',
        args: [{ mode: 'virtual' }],
      },
    );
  }
  let text: string | undefined = typeof inv.args.duration === 'string' ? inv.args.duration : undefined;
  let ms = typeof inv.args.ms === 'number' ? inv.args.ms : undefined;
  if (ms === undefined && text === undefined) {
    if (!inv.interactive)
      throw new WorkbenchError(
        "Advance Clock needs 'duration' (e.g. '90s', '1h', '2d', or a date '2026-02-01T09:30Z') or 'ms'.",
      );
    const CUSTOM = '\u0000custom';
    const now = clock.now.getTime();
    // Each preset says what it would make eligible, counted before the picker opens.
    const presets = await Promise.all(
      ADVANCE_PRESETS.map(async (p) => {
        const jump = parseClockAdvance(p, now);
        const detail = 'error' in jump ? undefined : await previewWords(services, jump.ms);
        return {
          label: `+${p}`,
          description: p === '90s' ? 'past one TTL monitor sleep (60 s)' : undefined,
          ...(detail ? { detail } : {}),
          value: p,
        };
      }),
    );
    text = await quickPick(
      [...presets, { label: '$(edit) Other…', description: 'a duration or a date', value: CUSTOM }],
      `Advance the virtual clock from ${formatClockTime(clock.now)} (due TTL passes run on the way)`,
    );
    if (text === CUSTOM) {
      text = await inputBox({
        title: 'Advance the virtual clock',
        prompt: 'By how long: 90 (seconds), 90s, 15m, 1h, 2d, 1h30m; or to a date: 2026-02-01T09:30Z',
        validateInput: async (t) => {
          if (!t.trim()) return undefined;
          const p = parseClockAdvance(t, now);
          if ('error' in p) return p.error;
          const words = await previewWords(services, p.ms);
          return words ? { message: words, severity: vscode.InputBoxValidationSeverity.Info } : undefined;
        },
      });
    }
  }
  if (ms === undefined) {
    const p = parseClockAdvance(text!, clock.now.getTime());
    if ('error' in p) throw new WorkbenchError(p.error);
    ms = p.ms;
  }
  if (!Number.isFinite(ms) || ms < 0)
    throw new WorkbenchError(`Cannot move the clock by ${ms} ms: time never runs backwards.`);
  const r = await services.backend.advanceClock(ms);
  const shell = mongosh.advanceClock(text ?? `${ms}ms`);
  reportSuccess(
    services,
    inv,
    `Clock +${formatMillis(ms)} → ${formatClockTime(r.now)}: ${plural(r.passes, 'TTL pass', 'TTL passes')}, ${formatCount(r.deleted)} deleted.`,
    shell,
  );
  return { ok: true, ms, now: r.now, passes: r.passes, deleted: r.deleted, mongosh: shell };
}

async function switchClock(services: Services, inv: Invocation): Promise<CommandResult> {
  const current = await services.backend.clock();
  let mode = inv.args.mode as ClockMode | undefined;
  if (mode !== undefined && mode !== 'virtual' && mode !== 'system')
    throw new WorkbenchError(`Unknown clock mode '${String(mode)}': use 'virtual' or 'system'.`);
  if (!mode) {
    mode = inv.interactive
      ? await quickPick(
          [
            {
              label: '$(history) Virtual clock',
              description: current.mode === 'virtual' ? 'current' : 'moves only when you advance it',
              value: 'virtual',
            },
            {
              label: '$(server-environment) System clock',
              description: current.mode === 'system' ? 'current' : 'wall time; TTL passes run by themselves',
              value: 'system',
            },
          ],
          'Clock of the engine (data stay; time never runs backwards)',
        )
      : current.mode === 'virtual'
        ? 'system'
        : 'virtual';
  }
  const info = await services.backend.setClockMode(mode);
  reportSuccess(
    services,
    inv,
    `The engine runs on the ${mode} clock: ${formatClockTime(info.now)}${info.aheadMs ? ` (${formatMillis(info.aheadMs)} ahead of the wall clock, kept so time never runs backwards)` : ''}.`,
  );
  return { ok: true, mode: info.mode, now: info.now, aheadMs: info.aheadMs };
}

const PARAMETER_HELP: Record<string, string> = {
  ttlMonitorEnabled: 'run TTL passes (true / false)',
  ttlMonitorSleepSecs: 'seconds between passes (default 60)',
  ttlIndexDeleteTargetDocs: 'documents deleted per index visit, 0 = unlimited (default 50000)',
  ttlIndexDeleteTargetTimeMS: 'milliseconds per index visit, 0 = unlimited (default 1000)',
  ttlMonitorSubPassTargetSecs: 'time budget of a sub-pass (default 60)',
  ttlMonitorBatchDeletes: 'delete in batches (default true)',
};

async function setMonitorParameters(services: Services, inv: Invocation): Promise<CommandResult> {
  let params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(inv.args)) if (k in PARAMETER_HELP) params[k] = v;
  if (inv.args.parameters && typeof inv.args.parameters === 'object')
    params = { ...params, ...(inv.args.parameters as Record<string, unknown>) };
  if (Object.keys(params).length === 0) {
    if (!inv.interactive)
      throw new WorkbenchError(
        'Set Monitor Parameters needs parameters, e.g. {ttlMonitorSleepSecs: 5} or {ttlMonitorEnabled: false}.',
      );
    const m = await services.backend.monitorStatus();
    const name = await quickPick(
      Object.entries(PARAMETER_HELP).map(([k, help]) => ({
        label: k,
        description: `now ${String(m.parameters[k])}`,
        detail: help,
        value: k,
      })),
      'Server parameter of the TTL monitor',
    );
    const isBool = typeof m.parameters[name] === 'boolean';
    if (isBool) {
      params[name] = await quickPick(
        [
          { label: 'true', value: true },
          { label: 'false', value: false },
        ],
        `${name} (now ${String(m.parameters[name])})`,
      );
    } else {
      const text = await inputBox({
        title: name,
        prompt: PARAMETER_HELP[name],
        value: String(m.parameters[name]),
        validateInput: (t) => (/^\d+$/.test(t.trim()) ? undefined : 'A whole number.'),
      });
      params[name] = Number(text);
    }
  }
  const command = { setParameter: 1, ...params };
  const reply = await services.backend.runCommand('admin', command);
  const text = mongosh.setParameter(params);
  reportSuccess(
    services,
    inv,
    `TTL monitor: ${Object.entries(params)
      .map(([k, v]) => `${k} = ${String(v)}`)
      .join(', ')}.`,
    text,
  );
  return { ok: true, parameters: params, was: reply.was, mongosh: text };
}

async function resetEngine(services: Services, inv: Invocation): Promise<CommandResult> {
  const s = services.settings();
  const settings: Partial<EngineSettings> = {
    clock: (inv.args.clock as ClockMode) ?? s.clock,
    flavor: (inv.args.flavor as EngineSettings['flavor']) ?? s.flavor,
    serverVersion: (inv.args.serverVersion as EngineSettings['serverVersion']) ?? s.serverVersion,
  };
  if (inv.interactive) {
    const lost = describeLoss(contentsOf(await allCollections(services.backend)));
    const yes = await services.notifier.confirm(
      'Reset the engine?',
      `This deletes ${lost}, and a new engine starts (${settings.flavor}, ${settings.serverVersion}, ${settings.clock} clock). A playground notebook can run on an isolated engine instead (Run All Cells Against a Fresh Engine…).`,
      'Reset',
    );
    if (yes !== 'Reset') return { ok: false, cancelled: true };
  }
  const applied = await services.backend.reset(settings);
  services.diagnostics.clear();
  reportSuccess(
    services,
    inv,
    `New engine: ${applied.flavor === 'cosmos' ? 'Cosmos DB flavor' : 'MongoDB'} ${applied.serverVersion}, ${applied.clock} clock.`,
  );
  return { ok: true, settings: applied };
}

export function registerEngineCommands(services: Services): vscode.Disposable[] {
  return [
    registerCommand(services, {
      id: 'ttlWorkbench.runTTLPass',
      action: 'Run TTL Pass',
      run: (inv) => runTTLPass(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.advanceClock',
      action: 'Advance Clock',
      run: (inv) => advanceClock(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.switchClock',
      action: 'Switch Clock',
      run: (inv) => switchClock(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.setMonitorParameters',
      action: 'Set Monitor Parameters',
      run: (inv) => setMonitorParameters(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.resetEngine',
      action: 'Reset Engine',
      run: (inv) => resetEngine(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.refresh',
      action: 'Refresh',
      run: async () => {
        services.tree.refresh();
        // The source analysis compares bound files with a connection's indexes from a cache read
        // here and at connect, never per keystroke.
        await services.refreshConnectionFacts?.();
        return { ok: true };
      },
    }),
  ];
}
