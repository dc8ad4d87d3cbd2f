/**
 * Add / Edit / Remove Connection, Connect, Disconnect. Each takes an argument object from code
 * (`{name, connectionString, production, tls}`), a connection row from the tree, or asks in the
 * palette, and resolves with a result that never holds a password.
 */
import * as vscode from 'vscode';
import {
  inputBox,
  quickPick,
  registerCommand,
  WorkbenchError,
  type CommandResult,
  type Invocation,
  type Services,
} from './context';
import type { TlsOptions } from '../connections/connection-store';
import type { ConnectionManager } from '../connections/manager';

function nameOf(inv: Invocation): string | undefined {
  if (inv.node?.connection !== undefined) return inv.node.connection;
  return typeof inv.args.name === 'string' ? inv.args.name : undefined;
}

async function pickConnection(manager: ConnectionManager, inv: Invocation, title: string): Promise<string> {
  const name = nameOf(inv);
  if (name !== undefined) return name;
  if (!inv.interactive) throw new WorkbenchError(`Missing argument 'name': call with e.g. {name: "staging"}.`);
  const entries = manager.store.list();
  if (!entries.length)
    throw new WorkbenchError('No saved connections yet.', {
      title: 'Add Connection',
      command: 'ttlWorkbench.addConnection',
    });
  return quickPick(
    entries.map((e) => ({ label: e.name, description: e.uri, value: e.name })),
    'Connection',
    title,
  );
}

function tlsArg(v: unknown): TlsOptions | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const t = v as Record<string, unknown>;
  return {
    ...(typeof t.caFile === 'string' ? { caFile: t.caFile } : {}),
    ...(typeof t.certificateKeyFile === 'string' ? { certificateKeyFile: t.certificateKeyFile } : {}),
    ...(t.allowInvalidCertificates === true ? { allowInvalidCertificates: true } : {}),
  };
}

async function askConnectionString(manager: ConnectionManager, value?: string): Promise<string> {
  const { parseConnectionString } = manager.store.strings();
  return inputBox({
    title: 'Connection string',
    prompt: 'mongodb://… or mongodb+srv://… (a password in it is kept in VS Code’s secret storage, never in settings)',
    ...(value ? { value } : {}),
    validateInput: (v) => {
      const r = parseConnectionString(v);
      return r.ok ? undefined : r.message;
    },
  });
}

async function save(
  services: Services,
  manager: ConnectionManager,
  inv: Invocation,
  editing?: string,
): Promise<CommandResult> {
  const old = editing === undefined ? undefined : manager.store.get(editing);
  let connectionString = typeof inv.args.connectionString === 'string' ? inv.args.connectionString : undefined;
  if (connectionString === undefined) {
    if (!inv.interactive && !old)
      throw new WorkbenchError(
        `Missing argument 'connectionString': call with e.g. {name: "local", connectionString: "mongodb://127.0.0.1:27017"}.`,
      );
    connectionString = inv.interactive ? await askConnectionString(manager, old?.uri) : old!.uri;
  }
  const parsed = manager.store.strings().parseConnectionString(connectionString);
  if (!parsed.ok) throw new WorkbenchError(parsed.message);
  let password = typeof inv.args.password === 'string' ? inv.args.password : undefined;
  if (inv.interactive && password === undefined && parsed.value.username && parsed.value.password === undefined && !old)
    password =
      (await vscode.window.showInputBox({
        title: `Password of ${parsed.value.username}`,
        prompt: 'Kept in VS Code’s secret storage. Leave empty for none.',
        password: true,
        ignoreFocusOut: true,
      })) || undefined;
  let name =
    typeof inv.args.newName === 'string'
      ? inv.args.newName
      : (editing ?? (typeof inv.args.name === 'string' ? inv.args.name : undefined));
  if (name === undefined || (inv.interactive && editing === undefined && typeof inv.args.name !== 'string'))
    name = await inputBox({ title: 'Connection name', value: name ?? parsed.value.hosts[0] ?? 'server' });
  let production = typeof inv.args.production === 'boolean' ? inv.args.production : old?.production === true;
  if (inv.interactive && typeof inv.args.production !== 'boolean')
    production = await quickPick(
      [
        { label: 'Not production', description: 'writes run without asking', value: false },
        { label: 'Production', description: 'every write asks for confirmation; shown in warning colour', value: true },
      ],
      'Is this a production deployment?',
      name,
    );
  const tls = tlsArg(inv.args.tls) ?? old?.tls;
  const entry = await manager.store.save(
    { name, connectionString, ...(password !== undefined ? { password } : {}), production, ...(tls ? { tls } : {}) },
    editing,
  );
  if (editing !== undefined) manager.disconnect(editing, { quiet: true });
  let connected = false;
  let server: string | undefined;
  if (inv.args.connect !== false) {
    const backend = await manager.connect(entry.name);
    connected = true;
    server = backend.serverRole?.summary;
  }
  services.tree.refresh();
  return {
    ok: true,
    name: entry.name,
    uri: entry.uri,
    production: entry.production === true,
    connected,
    ...(server ? { server } : {}),
  };
}

export function registerConnectionCommands(services: Services, manager: ConnectionManager): vscode.Disposable[] {
  return [
    registerCommand(services, {
      id: 'ttlWorkbench.addConnection',
      action: 'Add Connection',
      run: (inv) => save(services, manager, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.editConnection',
      action: 'Edit Connection',
      run: async (inv) => save(services, manager, inv, await pickConnection(manager, inv, 'Edit Connection')),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.removeConnection',
      action: 'Remove Connection',
      run: async (inv) => {
        const name = await pickConnection(manager, inv, 'Remove Connection');
        if (inv.interactive) {
          const ok = await services.notifier.confirm(
            `Remove the connection ${name}?`,
            'Its saved password goes too. The server is not touched.',
            'Remove',
          );
          if (ok !== 'Remove') return { ok: false, cancelled: true };
        }
        manager.disconnect(name, { quiet: true });
        const removed = await manager.store.remove(name);
        if (!removed) throw new WorkbenchError(`No connection named "${name}".`);
        services.tree.refresh();
        return { ok: true, name };
      },
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.connect',
      action: 'Connect',
      run: async (inv) => {
        const name = await pickConnection(manager, inv, 'Connect');
        const backend = await manager.connect(name);
        const role = backend.serverRole;
        return {
          ok: true,
          name,
          ...(role ? { server: role.summary, flavor: role.flavor, canWrite: role.canWrite } : {}),
        };
      },
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.disconnect',
      action: 'Disconnect',
      run: async (inv) => {
        const name = await pickConnection(manager, inv, 'Disconnect');
        return { ok: manager.disconnect(name), name };
      },
    }),
  ];
}
