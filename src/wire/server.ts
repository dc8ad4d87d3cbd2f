/**
 * The wire endpoint: a TCP server that serves one engine to MongoDB clients (the official driver,
 * mongosh, Mongoose, Compass). It binds to loopback unless told otherwise, and stopping it closes
 * every connection.
 */
import * as net from 'node:net';
import type { Engine } from '../engine';
import type { Document } from '../engine/values/types';
import { WireConnection } from './connection';
import { CursorOwners } from './cursor-owners';

export interface WireServerOptions {
  /**
   * The engine served, or a function that returns the engine as it is now: a host that replaces
   * its engine (the extension's Reset Engine) keeps the server and its connections; the cursors a
   * connection opened die with the engine they belong to.
   */
  engine: Engine | (() => Engine);
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Address to bind; 127.0.0.1 by default. */
  host?: string;
  log?: (line: string) => void;
  /** Answers a command before the engine does (authentication). */
  intercept?: (connection: WireConnection, command: Document) => Document | undefined;
  /** A new connection (for authentication state). */
  onConnection?: (connection: WireConnection) => void;
}

export class WireServer {
  private readonly server: net.Server;
  private readonly connections = new Set<WireConnection>();
  private readonly engineNow: () => Engine;
  /** Who may continue which cursor; idle session cursors are reaped every minute. */
  readonly cursorOwners: CursorOwners;
  private reaper: NodeJS.Timeout | undefined;
  private nextId = 1;
  private listening: { host: string; port: number } | undefined;

  constructor(private readonly options: WireServerOptions) {
    this.server = net.createServer((socket) => this.accept(socket));
    const { engine } = options;
    this.engineNow = typeof engine === 'function' ? engine : () => engine;
    this.cursorOwners = new CursorOwners(this.engineNow);
  }

  /** Starts listening; resolves with the address and the connection string. */
  async start(): Promise<{ host: string; port: number; uri: string }> {
    const host = this.options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port ?? 0, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.reaper = setInterval(() => this.cursorOwners.reapIdle(), 60_000);
    this.reaper.unref();
    const address = this.server.address() as net.AddressInfo;
    this.listening = { host, port: address.port };
    return { ...this.listening, uri: connectionString(host, address.port) };
  }

  get address(): { host: string; port: number; uri: string } | undefined {
    return this.listening && { ...this.listening, uri: connectionString(this.listening.host, this.listening.port) };
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  private accept(socket: net.Socket): void {
    const connection = new WireConnection(socket, {
      engine: this.engineNow,
      owners: this.cursorOwners,
      ...(this.listening ? { server: this.listening } : {}),
      id: this.nextId++,
      log: this.options.log ?? (() => undefined),
      onClose: (c) => this.connections.delete(c),
      ...(this.options.intercept ? { intercept: this.options.intercept } : {}),
    });
    this.connections.add(connection);
    this.options.onConnection?.(connection);
  }

  /** Stops listening and closes every connection. */
  async stop(): Promise<void> {
    if (this.reaper) clearInterval(this.reaper);
    this.reaper = undefined;
    for (const c of [...this.connections]) c.close();
    if (!this.server.listening) return;
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function connectionString(host: string, port: number): string {
  const h = host.includes(':') ? `[${host}]` : host;
  return `mongodb://${h}:${port}/`;
}
