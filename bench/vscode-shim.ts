/**
 * A stand-in `vscode` module for timing extension code outside VS Code (activation, the tree
 * provider). It is strict: every member the extension reads is written out here and behaves
 * (settings, enums, emitters, Uris, output channels, registrations that return disposables);
 * reading, calling or constructing anything else throws a MissingShimMemberError naming the
 * member (`vscode.window.createWebviewPanel`, `context.secrets`, ...), so a new use of the API
 * fails loudly with a message saying what to add here, instead of an inert stub flowing on as a
 * garbage value. Messages the extension shows or logs at warning/error level are recorded in
 * shimReport() so callers can fail on them. Benchmarks only: tests run in a real VS Code host.
 */
import * as fs from 'node:fs';
import Module from 'node:module';
import * as nodePath from 'node:path';

export class MissingShimMemberError extends Error {
  constructor(
    readonly member: string,
    use: string,
  ) {
    super(`the bench's stand-in vscode (bench/vscode-shim.ts) does not provide \`${member}\` (${use}); add it there`);
    this.name = 'MissingShimMemberError';
  }
}

/** Reads of these on any shim object answer undefined: probes by await, inspection and coercion. */
const PASSIVE = new Set<PropertyKey>([
  'then',
  'toJSON',
  Symbol.iterator,
  Symbol.asyncIterator,
  Symbol.toStringTag,
  Symbol.for('nodejs.util.inspect.custom'),
]);

/**
 * An object whose listed members are real; other members can be assigned (then read back), and
 * reading an unknown one throws, naming it. `callable` makes the object a function whose calls and
 * `new` also throw (the API's namespaces and classes that are not written out here).
 */
function strict<T extends object>(name: string, real: T, callable = false): T {
  const members = real as Record<PropertyKey, unknown>;
  // A function target only so that apply and construct reach the traps; members come from `real`.
  const target = (callable ? function () {} : real) as T;
  return new Proxy(target, {
    get(_t, prop) {
      if (prop in members) return members[prop];
      if (PASSIVE.has(prop)) return undefined;
      if (prop === Symbol.toPrimitive) {
        return () => {
          throw new MissingShimMemberError(name, 'used as a string or number');
        };
      }
      throw new MissingShimMemberError(`${name}.${String(prop)}`, 'read');
    },
    set(_t, prop, value) {
      members[prop] = value;
      return true;
    },
    apply() {
      throw new MissingShimMemberError(name, 'called');
    },
    construct() {
      throw new MissingShimMemberError(name, 'constructed');
    },
  });
}

/** What the extension showed or logged at warning or error level, in this process. */
export interface ShimReport {
  errors: string[];
  warnings: string[];
}
const report: ShimReport = { errors: [], warnings: [] };
export function shimReport(): ShimReport {
  return report;
}

class Disposable {
  static from(...items: Array<{ dispose(): unknown }>): Disposable {
    return new Disposable(() => items.forEach((d) => d.dispose()));
  }
  constructor(private readonly onDispose: () => unknown = () => undefined) {}
  dispose(): void {
    this.onDispose();
  }
}

class EventEmitter<T> {
  private listeners = new Set<(e: T) => unknown>();
  readonly event = (listener: (e: T) => unknown): Disposable => {
    this.listeners.add(listener);
    return new Disposable(() => this.listeners.delete(listener));
  };
  fire(e: T): void {
    for (const l of this.listeners) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

/** An event nothing fires (VS Code's, in a window where nothing happens). */
const quietEvent = (_listener: unknown): Disposable => new Disposable();
/** A registration: kept by nothing, disposable. */
const register = (..._args: unknown[]): Disposable => new Disposable();

const commandHandlers = new Map<string, (...args: unknown[]) => unknown>();

/** File Uris only (what the extension's storage and paths use). */
class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  static file(fsPath: string): Uri {
    return new Uri('file', nodePath.resolve(fsPath));
  }
  static joinPath(base: Uri, ...segments: string[]): Uri {
    return new Uri(base.scheme, nodePath.posix.join(base.path, ...segments));
  }
  get fsPath(): string {
    return this.path;
  }
  get authority(): string {
    return '';
  }
  get query(): string {
    return '';
  }
  get fragment(): string {
    return '';
  }
  with(change: { scheme?: string; path?: string }): Uri {
    return new Uri(change.scheme ?? this.scheme, change.path ?? this.path);
  }
  toString(): string {
    return `${this.scheme}://${this.path}`;
  }
  toJSON(): unknown {
    return { scheme: this.scheme, path: this.path };
  }
}

/** Plain data classes: keep what they are given. */
class DataClass {
  constructor(...args: unknown[]) {
    Object.assign(this, { args });
  }
}
class TreeItem {
  constructor(
    public label: unknown,
    public collapsibleState?: number,
  ) {}
}
class MarkdownString {
  constructor(
    public value = '',
    public supportThemeIcons = false,
  ) {}
  appendMarkdown(text: string): this {
    this.value += text;
    return this;
  }
}
class CodeActionKind {
  static readonly Empty = new CodeActionKind('');
  static readonly QuickFix = new CodeActionKind('quickfix');
  constructor(readonly value: string) {}
  append(part: string): CodeActionKind {
    return new CodeActionKind(this.value ? `${this.value}.${part}` : part);
  }
}

const text = (x: unknown) => (typeof x === 'string' ? x : x instanceof Error ? x.message : String(x));

function outputChannel(name: string): unknown {
  const noop = () => undefined;
  return strict(`window.createOutputChannel(${JSON.stringify(name)})`, {
    name,
    logLevel: 2,
    onDidChangeLogLevel: quietEvent,
    trace: noop,
    debug: noop,
    info: noop,
    warn: (message: unknown) => void report.warnings.push(`${name}: ${text(message)}`),
    error: (message: unknown) => void report.errors.push(`${name}: ${text(message)}`),
    append: noop,
    appendLine: noop,
    replace: noop,
    clear: noop,
    show: noop,
    hide: noop,
    dispose: noop,
  });
}

/** window.show*Message: recorded; the user never picks an item. */
const message = (into: string[] | undefined) => async (msg: unknown) => {
  into?.push(text(msg));
  return undefined;
};

class DiagnosticCollection {
  private readonly entries = new Map<string, { uri: unknown; diagnostics: readonly unknown[] }>();
  constructor(readonly name: string) {}
  set(uri: { toString(): string }, diagnostics: readonly unknown[] | undefined): void {
    if (diagnostics?.length) this.entries.set(uri.toString(), { uri, diagnostics });
    else this.entries.delete(uri.toString());
  }
  delete(uri: { toString(): string }): void {
    this.entries.delete(uri.toString());
  }
  clear(): void {
    this.entries.clear();
  }
  get(uri: { toString(): string }): readonly unknown[] | undefined {
    return this.entries.get(uri.toString())?.diagnostics;
  }
  has(uri: { toString(): string }): boolean {
    return this.entries.has(uri.toString());
  }
  forEach(fn: (uri: unknown, diagnostics: readonly unknown[], collection: this) => unknown): void {
    for (const e of this.entries.values()) fn(e.uri, e.diagnostics, this);
  }
  dispose(): void {
    this.entries.clear();
  }
}

function makeVscode(): Record<string, unknown> {
  const emptyArray: unknown[] = [];
  const configuration = strict('WorkspaceConfiguration', {
    get: (_key: string, fallback?: unknown) => fallback,
    has: () => false,
    inspect: () => undefined,
    update: async () => undefined,
  });
  const real: Record<string, unknown> = {
    Disposable,
    EventEmitter,
    Uri,
    TreeItem,
    MarkdownString,
    CodeActionKind,
    ThemeIcon: DataClass,
    ThemeColor: DataClass,
    Range: DataClass,
    Position: DataClass,
    Selection: DataClass,
    Location: DataClass,
    Diagnostic: DataClass,
    DiagnosticRelatedInformation: DataClass,
    CodeAction: DataClass,
    CodeLens: DataClass,
    Hover: DataClass,
    CompletionItem: DataClass,
    NotebookData: DataClass,
    NotebookCellData: DataClass,
    NotebookCellOutput: DataClass,
    NotebookCellOutputItem: DataClass,
    WorkspaceEdit: DataClass,
    TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
    StatusBarAlignment: { Left: 1, Right: 2 },
    DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
    InputBoxValidationSeverity: { Info: 1, Warning: 2, Error: 3 },
    NotebookCellKind: { Markup: 1, Code: 2 },
    NotebookControllerAffinity: { Default: 1, Preferred: 2 },
    CompletionItemKind: { Method: 1, Field: 4, Property: 9 },
    FileType: { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    window: strict('vscode.window', {
      activeTextEditor: undefined,
      activeNotebookEditor: undefined,
      visibleTextEditors: emptyArray,
      visibleNotebookEditors: emptyArray,
      onDidChangeVisibleTextEditors: quietEvent,
      onDidChangeActiveNotebookEditor: quietEvent,
      onDidChangeActiveTextEditor: quietEvent,
      createOutputChannel: outputChannel,
      createTreeView: (id: string) =>
        strict(`window.createTreeView(${JSON.stringify(id)})`, {
          visible: false,
          selection: emptyArray,
          onDidChangeVisibility: quietEvent,
          onDidChangeSelection: quietEvent,
          onDidExpandElement: quietEvent,
          onDidCollapseElement: quietEvent,
          reveal: async () => undefined,
          dispose: () => undefined,
        }),
      createStatusBarItem: (id: string) =>
        strict(`window.createStatusBarItem(${JSON.stringify(id)})`, {
          id,
          text: '',
          tooltip: undefined,
          command: undefined,
          show: () => undefined,
          hide: () => undefined,
          dispose: () => undefined,
        }),
      showInformationMessage: message(undefined),
      showWarningMessage: message(report.warnings),
      showErrorMessage: message(report.errors),
    }),
    workspace: strict('vscode.workspace', {
      getConfiguration: () => configuration,
      textDocuments: emptyArray,
      notebookDocuments: emptyArray,
      workspaceFolders: undefined,
      isTrusted: true,
      onDidChangeConfiguration: quietEvent,
      onDidChangeTextDocument: quietEvent,
      onDidCloseTextDocument: quietEvent,
      onDidOpenTextDocument: quietEvent,
      onDidChangeNotebookDocument: quietEvent,
      onDidCloseNotebookDocument: quietEvent,
      onDidOpenNotebookDocument: quietEvent,
      onDidGrantWorkspaceTrust: quietEvent,
      registerNotebookSerializer: register,
      registerTextDocumentContentProvider: register,
    }),
    // Commands as VS Code keeps them: one handler per id (a second registration throws), run by
    // executeCommand; VS Code's own commands (setContext, views) do nothing here.
    commands: strict('vscode.commands', {
      registerCommand: (id: string, handler: (...args: unknown[]) => unknown) => {
        if (commandHandlers.has(id)) throw new Error(`command '${id}' already exists`);
        commandHandlers.set(id, handler);
        return new Disposable(() => commandHandlers.delete(id));
      },
      executeCommand: async (id: string, ...args: unknown[]) => {
        const handler = commandHandlers.get(id);
        if (handler) return handler(...args);
        // VS Code rejects an unknown command; the extension's own must all be registered.
        if (id.startsWith('ttlWorkbench.')) throw new Error(`command '${id}' not found`);
        return undefined;
      },
    }),
    languages: strict('vscode.languages', {
      createDiagnosticCollection: (name = '') => new DiagnosticCollection(name),
      registerCodeActionsProvider: register,
      registerHoverProvider: register,
      registerCompletionItemProvider: register,
      registerCodeLensProvider: register,
    }),
    // The agent tools register at activation (language model tools, VS Code 1.95 on).
    lm: strict('vscode.lm', {
      registerTool: register,
    }),
    notebooks: strict('vscode.notebooks', {
      createNotebookController: (id: string) =>
        strict(`notebooks.createNotebookController(${JSON.stringify(id)})`, {
          id,
          supportedLanguages: undefined,
          supportsExecutionOrder: false,
          description: undefined,
          executeHandler: undefined,
          interruptHandler: undefined,
          onDidChangeSelectedNotebooks: quietEvent,
          updateNotebookAffinity: () => undefined,
          createNotebookCellExecution: () => {
            throw new MissingShimMemberError(
              'NotebookController.createNotebookCellExecution',
              'called: cells do not run in the bench',
            );
          },
          dispose: () => undefined,
        }),
    }),
  };
  // Every other top-level name of the API (namespaces, classes, enums) as an own property, as
  // esbuild's `import * as vscode` interop copies only own properties of the module object; any
  // use of one of them throws, naming it.
  // (The module object itself and the enums stay plain objects, as VS Code's are.)
  const api: Record<string, unknown> = { ...real };
  for (const name of apiNames()) if (!(name in api)) api[name] = strict(`vscode.${name}`, {}, true);
  return api;
}

/** The top-level exports of `declare module 'vscode'` in @types/vscode (tab-indented once there). */
function apiNames(): string[] {
  const dts = fs.readFileSync(require.resolve('@types/vscode/index.d.ts'), 'utf8');
  const names = new Set<string>();
  for (const m of dts.matchAll(/^\t(?:export )?(?:namespace|class|enum|const|function) (\w+)/gm)) names.add(m[1]);
  return [...names];
}

/** Make `require('vscode')` answer the shim in this process (idempotent). */
export function installVscodeShim(): void {
  const mod = Module as unknown as {
    _load: (request: string, parent: unknown, isMain: boolean) => unknown;
    __ttlShim?: unknown;
  };
  if (mod.__ttlShim) return;
  const shim = makeVscode();
  const load = mod._load;
  mod.__ttlShim = shim;
  mod._load = function (request: string, parent: unknown, isMain: boolean) {
    return request === 'vscode' ? shim : load.call(this, request, parent, isMain);
  };
}

export type FakeExtensionContext = { subscriptions: Array<{ dispose(): unknown }> } & Record<string, unknown>;

/**
 * An ExtensionContext good enough for activate(), with real storage folders as VS Code gives
 * them: `storageDir/workspace` (storageUri, this workspace's) and `storageDir/global`
 * (globalStorageUri), neither created in advance (VS Code does not create them either).
 */
export function fakeExtensionContext(extensionPath: string, storageDir: string): FakeExtensionContext {
  const memento = { get: (_k: string, d?: unknown) => d, update: async () => undefined, keys: () => [] };
  const storage = nodePath.join(storageDir, 'workspace');
  const globalStorage = nodePath.join(storageDir, 'global');
  const logs = nodePath.join(storageDir, 'logs');
  return strict('context', {
    subscriptions: [],
    extensionPath,
    extensionUri: Uri.file(extensionPath),
    asAbsolutePath: (relative: string) => nodePath.join(extensionPath, relative),
    storageUri: Uri.file(storage),
    globalStorageUri: Uri.file(globalStorage),
    logUri: Uri.file(logs),
    storagePath: storage,
    globalStoragePath: globalStorage,
    logPath: logs,
    extensionMode: 1, // ExtensionMode.Production
    // The manifest, as VS Code reads it (activation registers a stand-in for each contributed command).
    extension: strict('context.extension', {
      id: 'ttl-workbench.ttl-workbench',
      extensionPath,
      extensionUri: Uri.file(extensionPath),
      packageJSON: JSON.parse(fs.readFileSync(nodePath.join(extensionPath, 'package.json'), 'utf8')) as unknown,
    }),
    workspaceState: strict('context.workspaceState', memento),
    globalState: strict('context.globalState', { ...memento, setKeysForSync: () => undefined }),
    // Saved connections keep their passwords here; the bench saves none.
    secrets: strict('context.secrets', {
      get: () => Promise.resolve(undefined),
      store: () => Promise.resolve(),
      delete: () => Promise.resolve(),
      onDidChange: quietEvent,
    }),
  });
}
