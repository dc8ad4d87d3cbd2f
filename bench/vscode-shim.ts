/**
 * A stand-in `vscode` module for timing extension code outside VS Code (activation, the tree
 * provider). Values the code reads (settings, enums, emitters, documents) behave; everything else
 * is an inert stub that can be called, constructed and read from, so the time measured is the
 * extension's own work, not VS Code's. Benchmarks only: tests run in a real VS Code host.
 */
import * as fs from 'node:fs';
import Module from 'node:module';

type AnyFn = (...args: unknown[]) => unknown;

/** Callable, constructible, every property another stub; never a thenable. */
function stub(name: string): unknown {
  const props = new Map<PropertyKey, unknown>();
  return new Proxy(function () {} as unknown as AnyFn, {
    get(_target, prop) {
      if (prop === 'then') return undefined;
      if (prop === Symbol.toPrimitive) return () => `[stub ${name}]`;
      if (prop === Symbol.iterator) return function* () {};
      if (!props.has(prop)) props.set(prop, stub(`${name}.${String(prop)}`));
      return props.get(prop);
    },
    set(_target, prop, value) {
      props.set(prop, value);
      return true;
    },
    apply: () => stub(`${name}()`),
    construct: () => stub(`new ${name}`) as object,
  });
}

/** An object whose listed members are real and whose other members are stubs. */
function partial(name: string, real: Record<string, unknown>): unknown {
  const fallback = stub(name) as Record<PropertyKey, unknown>;
  return new Proxy(real, {
    get: (target, prop) => (prop in target ? target[prop as string] : fallback[prop]),
  });
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

function makeVscode(): unknown {
  const emptyArray: unknown[] = [];
  const configuration = { get: (_key: string, fallback?: unknown) => fallback, has: () => false, inspect: () => undefined, update: async () => undefined };
  const real = {
    Disposable,
    EventEmitter,
    TreeItem,
    MarkdownString,
    ThemeIcon: DataClass,
    ThemeColor: DataClass,
    Range: DataClass,
    Position: DataClass,
    Selection: DataClass,
    Location: DataClass,
    Diagnostic: DataClass,
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
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    CodeActionKind: { QuickFix: stub('CodeActionKind.QuickFix'), Empty: stub('CodeActionKind.Empty') },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    window: partial('window', {
      activeTextEditor: undefined,
      activeNotebookEditor: undefined,
      visibleTextEditors: emptyArray,
      visibleNotebookEditors: emptyArray,
    }),
    workspace: partial('workspace', {
      getConfiguration: () => configuration,
      textDocuments: emptyArray,
      notebookDocuments: emptyArray,
      workspaceFolders: undefined,
    }),
  };
  // Every other top-level name of the API (namespaces, classes, enums) as an own property, as
  // esbuild's `import * as vscode` interop copies only own properties of the module object.
  const api: Record<string, unknown> = { ...real };
  for (const name of apiNames()) if (!(name in api)) api[name] = stub(name);
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
  const mod = Module as unknown as { _load: (request: string, parent: unknown, isMain: boolean) => unknown; __ttlShim?: unknown };
  if (mod.__ttlShim) return;
  const shim = makeVscode();
  const load = mod._load;
  mod.__ttlShim = shim;
  mod._load = function (request: string, parent: unknown, isMain: boolean) {
    return request === 'vscode' ? shim : load.call(this, request, parent, isMain);
  };
}

/** An ExtensionContext good enough for activate(). */
export function fakeExtensionContext(extensionPath: string): { subscriptions: Array<{ dispose(): unknown }> } & Record<string, unknown> {
  const memento = { get: (_k: string, d?: unknown) => d, update: async () => undefined, keys: () => [] };
  return partial('context', {
    subscriptions: [],
    extensionPath,
    workspaceState: memento,
    globalState: { ...memento, setKeysForSync: () => undefined },
  }) as { subscriptions: Array<{ dispose(): unknown }> } & Record<string, unknown>;
}
