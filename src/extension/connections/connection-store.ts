/**
 * The saved connections: settings (`ttlWorkbench.connections`) hold each one's name, connection
 * string without its password, TLS options and production flag; the password lives in
 * SecretStorage only, under a key per connection. The VS Code pieces come in through two small
 * interfaces, so the rule "no password in settings" is tested in plain Node. No `vscode` import.
 */
import type { MongoClientOptions } from 'mongodb';
import type { ConnectionStrings } from './driver-loader';

export interface TlsOptions {
  /** A CA bundle for a private certificate authority (tlsCAFile). */
  caFile?: string;
  /** A client certificate with its key (tlsCertificateKeyFile). */
  certificateKeyFile?: string;
  /** Accept any certificate (tlsAllowInvalidCertificates): for a test server only. */
  allowInvalidCertificates?: boolean;
}

/** One saved connection as settings keep it: never a password. */
export interface ConnectionEntry {
  name: string;
  /** The connection string without its password. */
  uri: string;
  /** Every write asks for confirmation first; the tree shows the connection in warning colour. */
  production?: boolean;
  tls?: TlsOptions;
}

export interface SettingsAccess {
  read(): ConnectionEntry[];
  write(entries: ConnectionEntry[]): Promise<void>;
}

export interface SecretAccess {
  get(key: string): Promise<string | undefined>;
  store(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface ConnectionInput {
  name: string;
  /** As typed: may hold a password, which is moved to SecretStorage. */
  connectionString: string;
  /** A password typed apart from the string (wins over one in the string). */
  password?: string;
  production?: boolean;
  tls?: TlsOptions;
}

export class ConnectionError extends Error {
  readonly code = 2;
  readonly codeName = 'BadValue';
}

export function secretKey(name: string): string {
  return `ttlWorkbench.connection.password:${name}`;
}

/** What the driver needs for a connection: the full string and its TLS options. */
export interface DriverTarget {
  uri: string;
  password?: string;
  clientOptions: MongoClientOptions;
  /** Removes the password from a text (errors, logs). */
  redact: (text: string) => string;
}

export class ConnectionStore {
  constructor(
    private readonly settings: SettingsAccess,
    private readonly secrets: SecretAccess,
    /** The connection-string parser, from the driver bundle: loaded on the first save or connect. */
    readonly strings: () => ConnectionStrings,
  ) {}

  list(): ConnectionEntry[] {
    return this.settings.read().filter((e) => typeof e?.name === 'string' && typeof e.uri === 'string');
  }

  get(name: string): ConnectionEntry | undefined {
    return this.list().find((e) => e.name === name);
  }

  /** Adds a connection, or replaces the one named `replacing` (Edit); the password goes to SecretStorage. */
  async save(input: ConnectionInput, replacing?: string): Promise<ConnectionEntry> {
    const name = input.name.trim();
    if (!name) throw new ConnectionError('Name the connection (it is how the tree and notebooks refer to it).');
    const parsed = this.strings().parseConnectionString(input.connectionString);
    if (!parsed.ok) throw new ConnectionError(parsed.message);
    const entries = this.list();
    if (name !== replacing && entries.some((e) => e.name === name))
      throw new ConnectionError(`A connection named "${name}" exists already: choose another name or edit it.`);
    const entry: ConnectionEntry = {
      name,
      uri: parsed.value.withoutPassword,
      ...(input.production ? { production: true } : {}),
      ...(input.tls && Object.keys(input.tls).length ? { tls: input.tls } : {}),
    };
    const password = input.password ?? parsed.value.password;
    if (password !== undefined && !parsed.value.username)
      throw new ConnectionError('A password needs a user name in the string: mongodb://USER@HOST.');
    // The secret first: a failure there leaves settings as they were.
    if (password !== undefined) await this.secrets.store(secretKey(name), password);
    else if (replacing === undefined || parsed.value.username === undefined) await this.secrets.delete(secretKey(name));
    if (replacing !== undefined && replacing !== name) {
      const old = await this.secrets.get(secretKey(replacing));
      if (old !== undefined && password === undefined && parsed.value.username)
        await this.secrets.store(secretKey(name), old);
      await this.secrets.delete(secretKey(replacing));
    }
    const next = entries.filter((e) => e.name !== name && e.name !== replacing);
    const at = replacing === undefined ? -1 : entries.findIndex((e) => e.name === replacing);
    next.splice(at < 0 ? next.length : at, 0, entry);
    await this.settings.write(next);
    return entry;
  }

  async remove(name: string): Promise<boolean> {
    const entries = this.list();
    if (!entries.some((e) => e.name === name)) return false;
    await this.settings.write(entries.filter((e) => e.name !== name));
    await this.secrets.delete(secretKey(name));
    return true;
  }

  /** The string with its password and the driver options, for connecting only. */
  async target(name: string): Promise<DriverTarget> {
    const entry = this.get(name);
    if (!entry) throw new ConnectionError(`No connection named "${name}": add it first (Add Connection).`);
    const password = await this.secrets.get(secretKey(name));
    const { withPassword, redactText } = this.strings();
    const uri = withPassword(entry.uri, password);
    const tls = entry.tls ?? {};
    const clientOptions: MongoClientOptions = {
      ...(tls.caFile ? { tls: true, tlsCAFile: tls.caFile } : {}),
      ...(tls.certificateKeyFile ? { tls: true, tlsCertificateKeyFile: tls.certificateKeyFile } : {}),
      ...(tls.allowInvalidCertificates ? { tls: true, tlsAllowInvalidCertificates: true } : {}),
    };
    return {
      uri,
      ...(password !== undefined ? { password } : {}),
      clientOptions,
      redact: (text) => redactText(text, uri, password),
    };
  }
}
