/** NaN / invalid TTL indexes: Find NaN TTL Indexes, Fix expireAfterSeconds…, Simulate Legacy Index…, Open Index Spec. */
import * as vscode from 'vscode';
import type { Document } from '../../engine';
import { indexSpecUri } from '../diagnostics';
import { formatSeconds, plural } from '../logic/durations';
import * as mongosh from '../logic/mongosh';
import { problemWords } from '../tree/presentation';
import { secondsArg } from './collections';
import {
  inputBox,
  quickPick,
  registerCommand,
  reportSuccess,
  resolveCollection,
  resolveIndex,
  targetArgs,
  WorkbenchError,
  type CommandResult,
  type Invocation,
  type Services,
} from './context';
import { describe } from './indexes';

async function findNaNTTLIndexes(services: Services, inv: Invocation): Promise<CommandResult> {
  const problems = await services.diagnostics.scan();
  const nan = problems.filter((p) => p.problem === 'NaN');
  const others = problems.length - nan.length;
  const text =
    problems.length === 0
      ? 'No NaN TTL index: every TTL index has a valid expireAfterSeconds.'
      : `${plural(nan.length, 'TTL index', 'TTL indexes')} with NaN expireAfterSeconds${others ? `, ${others} with another invalid value` : ''}: the monitor ignores them. See the Problems panel and the tree.`;
  if (!inv.args.quiet) {
    services.notifier.showAndForget(
      problems.length ? 'warning' : 'info',
      text,
      problems.length ? ['Show Problems'] : [],
      (c) => (c === 'Show Problems' ? vscode.commands.executeCommand('workbench.actions.view.problems') : undefined),
    );
  }
  return {
    ok: true,
    nan: nan.length,
    problems: problems.map((p) => ({
      db: p.db,
      collection: p.collection,
      index: p.index,
      problem: p.problem,
      expireAfterSeconds: String(p.expireAfterSeconds),
      words: problemWords(p),
    })),
    mongosh: mongosh.findNaNIndexes(),
  };
}

async function fixTTLIndex(services: Services, inv: Invocation): Promise<CommandResult> {
  const { collection: c, index: ix } = await resolveIndex(
    services,
    inv,
    (i, coll) => describe(i, coll).kind === 'ttlInvalid',
    'a TTL index with an invalid expireAfterSeconds',
  );
  let seconds = secondsArg(inv.args.expireAfterSeconds ?? inv.args.duration);
  if (seconds === undefined) {
    if (!inv.interactive)
      throw new WorkbenchError("Fix needs 'expireAfterSeconds': the value the index was meant to have, e.g. 3600.");
    const text = await inputBox({
      title: `Fix ${ix.name} of ${c.db}.${c.name}`,
      prompt: `The catalog holds ${String(ix.stored?.expireAfterSeconds ?? ix.spec.expireAfterSeconds)}. Which expireAfterSeconds was meant? (3600, 90s, 1h, 30d)`,
      value: '1h',
      validateInput: (t) => {
        try {
          const s = secondsArg(t);
          return s === undefined || !Number.isInteger(s) || s < 0 || s > 2147483647
            ? 'A whole number of seconds from 0 to 2147483647.'
            : undefined;
        } catch (err) {
          return (err as Error).message;
        }
      },
    });
    seconds = secondsArg(text)!;
  }
  const command = { collMod: c.name, index: { name: ix.name, expireAfterSeconds: seconds } };
  const reply = await services.backend.runCommand(c.db, command);
  const text = mongosh.runCommand(c.db, command);
  if (services.diagnostics.problems) await services.diagnostics.scan();
  reportSuccess(
    services,
    inv,
    `${ix.name}: expireAfterSeconds ${String(ix.stored?.expireAfterSeconds)} → ${seconds} (${formatSeconds(seconds)}). The monitor uses the index again.`,
    text,
  );
  return {
    ok: true,
    db: c.db,
    collection: c.name,
    index: ix.name,
    old: String(ix.stored?.expireAfterSeconds),
    new: seconds,
    reply,
    mongosh: text,
  };
}

const LEGACY_VALUES: Record<string, unknown> = { NaN: NaN, '-1': -1, '1e10': 1e10, '3600.5': 3600.5 };

async function simulateLegacyIndex(services: Services, inv: Invocation): Promise<CommandResult> {
  const c = await resolveCollection(services, inv);
  let field = typeof inv.args.field === 'string' ? inv.args.field : undefined;
  let value: unknown = inv.args.expireAfterSeconds ?? (inv.interactive ? undefined : NaN);
  if (typeof value === 'string') value = value in LEGACY_VALUES ? LEGACY_VALUES[value] : Number(value);
  if (inv.interactive) {
    field ??= await inputBox({
      title: `Legacy TTL index on ${c.db}.${c.name}`,
      prompt: 'Field of the index',
      value: 'lastModifiedDate',
    });
    value ??= await quickPick(
      Object.entries(LEGACY_VALUES).map(([label, v]) => ({
        label: `expireAfterSeconds: ${label}`,
        description:
          label === 'NaN' ? 'what 5.0.0–5.0.13 / 6.0.0–6.0.1 could store' : 'an invalid value an old server stored',
        value: v,
      })),
      'The value an older server left in the catalog',
    );
  }
  if (!field) throw new WorkbenchError("Simulate Legacy Index needs 'field'.");
  const key = { [field]: 1 };
  const spec: Document = {
    key,
    name: typeof inv.args.name === 'string' ? inv.args.name : `${field}_1`,
    expireAfterSeconds: value,
  };
  await services.backend.loadLegacyIndexSpec(c.db, c.name, spec);
  reportSuccess(
    services,
    inv,
    `Loaded ${String(spec.name)} on ${c.db}.${c.name} with expireAfterSeconds ${String(value)}, as an older server could have left it. Run "Find NaN TTL Indexes".`,
  );
  return { ok: true, db: c.db, collection: c.name, index: spec.name, expireAfterSeconds: String(value) };
}

async function openIndexSpec(services: Services, inv: Invocation): Promise<CommandResult> {
  const t = targetArgs(inv);
  if (!t.db || !t.collection || !t.index) {
    const { collection, index } = await resolveIndex(services, inv, () => true, 'an index');
    Object.assign(t, { db: collection.db, collection: collection.name, index: index.name });
  }
  const uri = indexSpecUri(t.db!, t.collection!, t.index!);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: true });
  return { ok: true, uri: uri.toString(), text: doc.getText() };
}

export function registerProblemCommands(services: Services): vscode.Disposable[] {
  return [
    registerCommand(services, {
      id: 'ttlWorkbench.findNaNTTLIndexes',
      action: 'Find NaN TTL Indexes',
      run: (inv) => findNaNTTLIndexes(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.fixTTLIndex',
      action: 'Fix expireAfterSeconds',
      run: (inv) => fixTTLIndex(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.simulateLegacyIndex',
      action: 'Simulate Legacy TTL Index',
      run: (inv) => simulateLegacyIndex(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.openIndexSpec',
      action: 'Open Index Spec',
      run: (inv) => openIndexSpec(services, inv),
    }),
  ];
}
