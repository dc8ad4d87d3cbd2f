/**
 * What every command shares: the services it works with, how its argument is read (a tree node
 * from a menu, nothing from the palette, or an argument object from code), pickers for what is
 * missing, and one error path (the MongoDB code in words plus a "what to do" button). Every
 * command resolves with a result object, so code and tests need no UI.
 */
import { EJSON } from 'bson';
import * as vscode from 'vscode';
import type { Document } from '../../engine';
import type { EngineHost } from '../engine-host/client';
import type { LocalEndpoint } from '../local-endpoint';
import type { Backend, EngineSettings, CollectionInfo, IndexInfo } from '../backend/backend';
import { currentConnection, withBackend, type BackendChoice } from '../backend/backend-scope';
import { errorMessageText, remediesFor, type ErrorFacts, type RemedyContext } from '../logic/remedies';
import type { WorkbenchSettings } from '../settings';
import type { DatabasesTreeProvider } from '../tree/provider';
import { isTreeNode, type TreeNode } from '../tree/nodes';
import { revealRow } from '../tree/reveal';
import type { Notifier } from '../ui/notifier';
import type { TTLDiagnostics } from '../diagnostics';
import type { FilterText } from '../logic/filter-text';
import { plural } from '../logic/durations';

/** What registerCommand needs: where a refusal is shown, and the engine once it has started. */
export interface CommandHost {
  notifier: Notifier;
  backend?: Backend;
  /** Told of every command registered, so a start that fails part-way can unregister them all. */
  track?: (registration: vscode.Disposable) => void;
  /**
   * The backend a command runs on: a connection's, for a node of its part of the tree or
   * `connection: "<name>"` in the arguments; undefined for the embedded engine (backend-scope.ts).
   */
  chooseBackend?: (inv: Invocation) => BackendChoice | undefined;
}

export interface Services extends CommandHost {
  backend: Backend;
  /** A new engine of its own (an isolated notebook's), in the same engine host as `backend`. */
  isolatedBackend: (settings: Partial<EngineSettings>, options: { startMs?: number }) => Backend;
  /** The worker thread the engines run in. */
  engineHost: EngineHost;
  /** The shared engine over the wire protocol on 127.0.0.1, while it runs. */
  localEndpoint: LocalEndpoint;
  tree: DatabasesTreeProvider;
  treeView?: vscode.TreeView<TreeNode>;
  notifier: Notifier;
  settings: () => WorkbenchSettings;
  diagnostics: TTLDiagnostics;
  output: vscode.LogOutputChannel;
  /** Reads a filter typed in mongosh syntax or JSON (logic/filter-text.ts). */
  parseFilter: (text: string) => FilterText;
  /** Reads the connections' indexes again for the source analysis (TTL011); the tree's Refresh calls it. */
  refreshConnectionFacts?: () => Promise<void>;
}

/** How a command was called. */
export interface Invocation {
  /** The tree node of a context menu or inline action. */
  node?: TreeNode;
  /** Arguments from code (`executeCommand(id, {db: "app", ...})`). */
  args: Record<string, unknown>;
  /** Ask for what is missing and confirm in dialogs (palette, menus); false from code. */
  interactive: boolean;
  /** What the command worked out so far (for choosing a remedy when it fails). */
  state: Record<string, unknown>;
}

export type CommandResult = ({ ok: true } & Record<string, unknown>) | ({ ok: false } & Record<string, unknown>);

export function invocationOf(arg: unknown): Invocation {
  if (isTreeNode(arg)) return { node: arg, args: {}, interactive: true, state: {} };
  if (arg !== null && typeof arg === 'object' && !Array.isArray(arg)) {
    const args = arg as Record<string, unknown>;
    return { args, interactive: args.interactive === true, state: {} };
  }
  return { args: {}, interactive: true, state: {} };
}

/** The user dismissed a picker or input box. */
export class Cancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

/** A refusal of the extension itself (not the engine), with an optional button. */
export class WorkbenchError extends Error {
  constructor(
    message: string,
    readonly remedy?: { title: string; command: string; args?: unknown[] },
  ) {
    super(message);
  }
}

export function errorFacts(err: unknown): ErrorFacts {
  if (err && typeof err === 'object' && 'message' in err) {
    const e = err as { code?: unknown; codeName?: unknown; message: unknown };
    return {
      message: String(e.message),
      ...(typeof e.code === 'number' ? { code: e.code } : {}),
      ...(typeof e.codeName === 'string' ? { codeName: e.codeName } : {}),
    };
  }
  return { message: String(err) };
}

export type Handler = (inv: Invocation) => Promise<CommandResult>;

export interface CommandSpec {
  id: string;
  /** Words for the failure message: "Create TTL Index". */
  action: string;
  run: Handler;
  /** Extra facts for choosing a remedy when the engine refuses. */
  remedyContext?: (inv: Invocation, err: ErrorFacts) => Promise<Partial<RemedyContext>> | Partial<RemedyContext>;
}

/** Register a command: its result is returned; a refusal is shown (with a remedy) and returned. */
export function registerCommand(services: CommandHost, spec: CommandSpec): vscode.Disposable {
  const registration = vscode.commands.registerCommand(spec.id, async (arg: unknown): Promise<CommandResult> => {
    const inv = invocationOf(arg);
    let choice: BackendChoice | undefined;
    try {
      choice = services.chooseBackend?.(inv);
      return await withBackend(choice, () => spec.run(inv));
    } catch (err) {
      if (err instanceof Cancelled) return { ok: false, cancelled: true };
      return withBackend(choice, () => reportError(services, spec, inv, err));
    }
  });
  services.track?.(registration);
  return registration;
}

async function reportError(
  services: CommandHost,
  spec: CommandSpec,
  inv: Invocation,
  err: unknown,
): Promise<CommandResult> {
  const facts = errorFacts(err);
  let remedies: Array<{ title: string; command: string; args?: unknown[] }> = [];
  if (err instanceof WorkbenchError) {
    if (err.remedy) remedies = [err.remedy];
  } else {
    try {
      const target = targetArgs(inv);
      const extra = spec.remedyContext ? await spec.remedyContext(inv, facts) : {};
      const info = await services.backend?.info().catch(() => undefined);
      remedies = remediesFor(facts, {
        command: spec.id,
        ...target,
        ...(info ? { serverVersion: info.serverVersion } : {}),
        ...extra,
      });
    } catch {
      remedies = [];
    }
  }
  const text = errorMessageText(facts, spec.action);
  const run = (choice: string) => {
    const r = remedies.find((x) => x.title === choice);
    if (r) return vscode.commands.executeCommand(r.command, ...(r.args ?? []));
    return undefined;
  };
  if (inv.interactive) {
    const choice = await services.notifier.error(text, ...remedies.map((r) => r.title));
    if (choice) await run(choice);
  } else {
    services.notifier.showAndForget(
      'error',
      text,
      remedies.map((r) => r.title),
      run,
    );
  }
  return { ok: false, error: facts, message: text, remedies: remedies.map((r) => r.title) };
}

/** db / collection / index named by the node or the arguments. */
export function targetArgs(inv: Invocation): { db?: string; collection?: string; index?: string } {
  const n = inv.node;
  if (n) {
    switch (n.type) {
      case 'database':
        return { db: n.db };
      case 'collection':
        return { db: n.db, collection: n.info.name };
      case 'index':
        return { db: n.db, collection: n.collection, index: n.info.name };
      case 'collectionTTL':
        return { db: n.db, collection: n.collection };
      case 'problem':
        return { db: n.problem.db, collection: n.problem.collection, index: n.problem.index };
      default:
        return {};
    }
  }
  const a = inv.args;
  const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : undefined);
  return { db: str(a.db), collection: str(a.collection), index: str(a.index) };
}

export function requireArg<T>(inv: Invocation, value: T | undefined, name: string, example: string): T {
  if (value === undefined) throw new WorkbenchError(`Missing argument '${name}': call with e.g. ${example}.`);
  return value;
}

/** After success: a message with "Copy as mongosh" (not waited for when called from code). */
export function reportSuccess(services: Services, inv: Invocation, text: string, mongosh?: string): void {
  const actions = mongosh ? ['Copy as mongosh'] : [];
  const onChoice = (choice: string) =>
    choice === 'Copy as mongosh' && mongosh ? vscode.env.clipboard.writeText(mongosh) : undefined;
  if (inv.args.quiet === true) return;
  services.notifier.showAndForget('info', text, actions, onChoice);
}

// ---- pickers ------------------------------------------------------------------------------------

interface Pick<T> extends vscode.QuickPickItem {
  value: T;
}

export async function quickPick<T>(items: Array<Pick<T>>, placeHolder: string, title?: string): Promise<T> {
  const chosen = await vscode.window.showQuickPick(items, {
    placeHolder,
    title,
    ignoreFocusOut: true,
    matchOnDescription: true,
  });
  if (!chosen) throw new Cancelled();
  return chosen.value;
}

/**
 * A picker that also takes what is typed: the typed text is offered as its own item ("Create
 * database 'app'"), so a name that matches nothing is not filtered away, and Enter with no item
 * active accepts the text. `validate` says why a typed text cannot be used (the item then says so
 * and Enter does nothing).
 */
export async function pickOrType(options: {
  items: Array<Pick<string>>;
  placeHolder: string;
  title?: string;
  typedLabel: (text: string) => string;
  typedDescription?: string;
  validate?: (text: string) => string | undefined;
}): Promise<string> {
  const qp = vscode.window.createQuickPick<Pick<string>>();
  qp.placeholder = options.placeHolder;
  if (options.title) qp.title = options.title;
  qp.ignoreFocusOut = true;
  qp.matchOnDescription = true;
  const typedItem = (text: string): Pick<string> | undefined => {
    const t = text.trim();
    if (!t || options.items.some((i) => i.value === t)) return undefined;
    const problem = options.validate?.(t);
    return {
      label: options.typedLabel(t),
      description: problem ?? options.typedDescription,
      alwaysShow: true,
      value: problem ? '' : t,
    };
  };
  const refresh = () => {
    const typed = typedItem(qp.value);
    qp.items = typed ? [...options.items, typed] : options.items;
  };
  refresh();
  try {
    return await new Promise<string>((resolve, reject) => {
      qp.onDidChangeValue(refresh);
      qp.onDidAccept(() => {
        const chosen = qp.selectedItems[0] ?? qp.activeItems[0] ?? typedItem(qp.value);
        if (!chosen || !chosen.value) return;
        resolve(chosen.value);
        qp.hide();
      });
      qp.onDidHide(() => reject(new Cancelled()));
      qp.show();
    });
  } finally {
    qp.dispose();
  }
}

/**
 * Show a database or collection in the Databases view, under the server the command ran on (a
 * connection's or the embedded engine's): loads the rows down to it (the tree may not have been
 * expanded yet), then selects and expands it. False when the row is not there.
 */
export async function revealInTree(services: Services, db: string, collection?: string): Promise<boolean> {
  const view = services.treeView;
  if (!view) return false;
  await services.tree.whenIdle();
  // The server row of the backend the command ran on: a connection's own, else the embedded engine's.
  const connection = currentConnection();
  const engine = (await services.tree.getChildren()).find((n) => n.type === 'engine' && n.connection === connection);
  if (!engine) return false;
  const dbNode = (await services.tree.getChildren(engine)).find((n) => n.type === 'database' && n.db === db);
  if (!dbNode) return false;
  let target = dbNode;
  if (collection !== undefined) {
    const coll = (await services.tree.getChildren(dbNode)).find(
      (n) => n.type === 'collection' && n.info.name === collection,
    );
    if (!coll) return false;
    target = coll;
  }
  await revealRow(view, target, { select: true, focus: false, expand: true });
  return true;
}

export async function inputBox(options: vscode.InputBoxOptions): Promise<string> {
  const text = await vscode.window.showInputBox({ ignoreFocusOut: true, ...options });
  if (text === undefined) throw new Cancelled();
  return text;
}

export async function allCollections(backend: Backend): Promise<CollectionInfo[]> {
  const out: CollectionInfo[] = [];
  for (const d of await backend.listDatabases()) out.push(...(await backend.listCollections(d.name)));
  return out;
}

/** The collection the command is about: from the node / arguments, else picked. */
export async function resolveCollection(
  services: Services,
  inv: Invocation,
  filter?: (c: CollectionInfo) => boolean,
): Promise<CollectionInfo> {
  const t = targetArgs(inv);
  if (t.db && t.collection) {
    const found = (await services.backend.listCollections(t.db)).find((c) => c.name === t.collection);
    if (!found)
      throw Object.assign(
        new Error(`ns does not exist: ${t.db}.${t.collection}. Create it first (Create Collection…).`),
        { code: 26, codeName: 'NamespaceNotFound' },
      );
    return found;
  }
  if (!inv.interactive) requireArg(inv, undefined, 'db/collection', '{db: "app", collection: "events"}');
  const all = (await allCollections(services.backend)).filter((c) => !filter || filter(c));
  if (all.length === 0)
    throw new WorkbenchError('There is no collection to work on yet.', {
      title: 'Create Collection…',
      command: 'ttlWorkbench.createCollection',
    });
  return quickPick(
    all.map((c) => ({ label: `${c.db}.${c.name}`, description: `${c.kind} · ${plural(c.count, 'doc')}`, value: c })),
    'Pick a collection',
  );
}

/** The index the command is about: from the node / arguments, else picked among `filter`. */
export async function resolveIndex(
  services: Services,
  inv: Invocation,
  filter: (ix: IndexInfo, coll: CollectionInfo) => boolean,
  what: string,
): Promise<{ collection: CollectionInfo; index: IndexInfo }> {
  const collection = await resolveCollection(services, inv);
  const indexes = await services.backend.listIndexes(collection.db, collection.name);
  const t = targetArgs(inv);
  if (t.index) {
    const index = indexes.find((i) => i.name === t.index);
    if (!index)
      throw Object.assign(new Error(`index not found with name [${t.index}] on ${collection.db}.${collection.name}.`), {
        code: 27,
        codeName: 'IndexNotFound',
      });
    return { collection, index };
  }
  if (!inv.interactive) requireArg(inv, undefined, 'index', '{db: "app", collection: "events", index: "createdAt_1"}');
  const candidates = indexes.filter((i) => filter(i, collection));
  if (candidates.length === 0) throw new WorkbenchError(`${collection.db}.${collection.name} has no ${what}.`);
  const index = await quickPick(
    candidates.map((i) => ({ label: i.name, description: JSON.stringify(i.spec.key), value: i })),
    `Pick ${what}`,
  );
  return { collection, index };
}

/** Parse a JSON / extended JSON document typed by the user (empty: undefined). */
export function parseDocumentText(text: string): Document | undefined | { error: string } {
  const t = text.trim();
  if (!t) return undefined;
  try {
    const v = EJSON.parse(t, { relaxed: true }) as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v))
      return { error: 'Type a document: {"status": "done"}.' };
    return v as Document;
  } catch (err) {
    return {
      error: `Not JSON: ${(err as Error).message}. Use extended JSON, e.g. {"status": "done"} or {"kind": {"$in": ["a", "b"]}}.`,
    };
  }
}
