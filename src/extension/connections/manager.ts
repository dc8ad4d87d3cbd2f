/**
 * The window's saved connections at run time: a DriverBackend per connected one, the rows the
 * Databases view shows, and the production confirmation before each write. Settings and
 * SecretStorage are reached through ConnectionStore; the log gets names and outcomes, never a
 * connection string or password (every text goes through the connection's redaction).
 */
import * as vscode from 'vscode';
import type { Backend } from '../backend/backend';
import { currentChoice, type BackendChoice } from '../backend/backend-scope';
import type { DriverBackend } from '../backend/driver-backend';
import type { Notifier } from '../ui/notifier';
import type { ConnectionRows } from '../tree/provider';
import { type ConnectionStore, type ConnectionEntry, type SecretAccess, type SettingsAccess } from './connection-store';
import type { DriverModule, MongoshModule } from './driver-loader';

export const CONNECTIONS_SETTING = 'connections';

/** `ttlWorkbench.connections` in the user's settings (never the workspace's: a clone must not carry them). */
export function settingsAccess(): SettingsAccess {
  return {
    read: () => vscode.workspace.getConfiguration('ttlWorkbench').get<ConnectionEntry[]>(CONNECTIONS_SETTING) ?? [],
    write: async (entries) => {
      await vscode.workspace
        .getConfiguration('ttlWorkbench')
        .update(CONNECTIONS_SETTING, entries, vscode.ConfigurationTarget.Global);
    },
  };
}

export function secretAccess(secrets: vscode.SecretStorage): SecretAccess {
  return {
    get: async (k) => secrets.get(k),
    store: async (k, v) => secrets.store(k, v),
    delete: async (k) => secrets.delete(k),
  };
}

export class ConnectionManager implements ConnectionRows, vscode.Disposable {
  private readonly live = new Map<string, DriverBackend>();
  private readonly failed = new Map<string, string>();
  private readonly listeners = new Set<() => void>();
  private readonly configWatch: vscode.Disposable;

  constructor(
    readonly store: ConnectionStore,
    private readonly notifier: Notifier,
    private readonly output: vscode.LogOutputChannel,
    private readonly countMaxTimeMS: () => number,
    /** The driver bundle (dist/driver.js), required on the first connect. */
    private readonly driver: () => DriverModule,
    /** mongosh's runtime (dist/mongosh.js), required on the first notebook cell on a connection. */
    private readonly mongosh?: () => MongoshModule,
  ) {
    this.configWatch = vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(`ttlWorkbench.${CONNECTIONS_SETTING}`)) return;
      // A connection removed or renamed in settings by hand: close what no longer has an entry.
      for (const name of [...this.live.keys()]) if (!this.store.get(name)) this.disconnect(name);
      this.changed();
    });
  }

  list(): Array<{ name: string; production: boolean; backend?: Backend; error?: string }> {
    return this.store.list().map((e) => {
      const backend = this.live.get(e.name);
      const error = this.failed.get(e.name);
      return {
        name: e.name,
        production: e.production === true,
        ...(backend ? { backend } : {}),
        ...(error ? { error } : {}),
      };
    });
  }

  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  backendOf(name: string): DriverBackend | undefined {
    return this.live.get(name);
  }

  /** The backend for a command: a node's connection, or `connection: "<name>"` in its arguments. */
  choose(name: string | undefined, options: { confirmed: boolean; interactive: boolean }): BackendChoice | undefined {
    if (name === undefined) return undefined;
    const backend = this.live.get(name);
    if (!backend) {
      const known = this.store.get(name) !== undefined;
      throw Object.assign(
        new Error(
          known
            ? `The connection "${name}" is not connected: connect it first (TTL Workbench: Connect).`
            : `No connection named "${name}": add it first (TTL Workbench: Add Connection).`,
        ),
        { code: 6, codeName: 'HostUnreachable' },
      );
    }
    return { connection: name, backend, confirmed: options.confirmed, interactive: options.interactive };
  }

  async connect(name: string): Promise<DriverBackend> {
    this.disconnect(name, { quiet: true });
    const entry = this.store.get(name);
    const target = await this.store.target(name);
    const { DriverBackend } = this.driver();
    const backend = new DriverBackend({
      uri: target.uri,
      label: name,
      redact: target.redact,
      clientOptions: target.clientOptions,
      countMaxTimeMS: this.countMaxTimeMS(),
      ...(entry?.production ? { confirmWrite: (what, db) => this.confirmProductionWrite(name, what, db) } : {}),
      ...(this.mongosh
        ? {
            openShell: () =>
              this.mongosh!().openMongoshSession({
                uri: target.uri,
                clientOptions: target.clientOptions,
                redact: target.redact,
              }),
          }
        : {}),
    });
    try {
      const role = await backend.connect();
      this.live.set(name, backend);
      this.failed.delete(name);
      this.output.info(
        `Connected ${name}: ${role.summary} (${role.flavor === 'cosmos' ? 'Cosmos DB' : `MongoDB ${role.version}`}).`,
      );
      this.changed();
      return backend;
    } catch (err) {
      backend.dispose();
      const message = target.redact((err as Error).message);
      this.failed.set(name, message);
      this.output.warn(`Connecting ${name} failed: ${message}`);
      this.changed();
      throw err;
    }
  }

  /** The connection's backend, connecting it first if needed (a notebook bound to it runs a cell). */
  async ensureConnected(name: string): Promise<DriverBackend> {
    const live = this.live.get(name);
    if (live) return live;
    if (!this.store.get(name))
      throw Object.assign(
        new Error(`No connection named "${name}": add it first (TTL Workbench: Add Connection), or pick another.`),
        { code: 6, codeName: 'HostUnreachable' },
      );
    return this.connect(name);
  }

  isProduction(name: string): boolean {
    return this.store.get(name)?.production === true;
  }

  disconnect(name: string, options: { quiet?: boolean } = {}): boolean {
    const backend = this.live.get(name);
    this.failed.delete(name);
    if (!backend) return false;
    this.live.delete(name);
    backend.dispose();
    if (!options.quiet) {
      this.output.info(`Disconnected ${name}.`);
      this.changed();
    }
    return true;
  }

  /** Production: a dialog before every write, or `confirmProduction: true` from code. */
  private async confirmProductionWrite(name: string, what: string, db: string): Promise<boolean> {
    const choice = currentChoice();
    if (choice?.confirmed) return true;
    if (!choice?.interactive) return false;
    const answer = await this.notifier.confirm(
      `Run ${what} on ${name} (production)?`,
      `${name} is marked as production: this changes ${db} on the real server.`,
      'Run on Production',
    );
    return answer === 'Run on Production';
  }

  dispose(): void {
    this.configWatch.dispose();
    for (const name of [...this.live.keys()]) this.disconnect(name, { quiet: true });
    this.listeners.clear();
  }
}
