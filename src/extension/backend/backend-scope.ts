/**
 * Which backend a command works on: the embedded engine by default, or a connection's when the
 * command was started from that connection's part of the tree (or with `connection: "<name>"`).
 * Commands keep reading `services.backend`; that object routes each call to the backend of the
 * command in progress, carried through every await by AsyncLocalStorage, so two commands running
 * at once on different backends never see each other's. No `vscode` import.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Backend } from './backend';

export interface BackendChoice {
  /** The connection's name; undefined for the embedded engine. */
  connection?: string;
  backend: Backend;
  /** A command from code said yes in advance to a production connection's confirmation. */
  confirmed?: boolean;
  /** The command may ask in a dialog (palette, menus). */
  interactive?: boolean;
}

const current = new AsyncLocalStorage<BackendChoice>();

/** Runs `work` with `choice` as the backend of every routed call inside it. */
export function withBackend<T>(choice: BackendChoice | undefined, work: () => T): T {
  return choice ? current.run(choice, work) : work();
}

/** The choice of the command in progress, if any. */
export function currentChoice(): BackendChoice | undefined {
  return current.getStore();
}

/** The connection of the command in progress (undefined: the embedded engine). */
export function currentConnection(): string | undefined {
  return current.getStore()?.connection;
}

/**
 * A Backend that is `fallback` outside any choice and the chosen backend inside one. Methods are
 * looked up at call time, so the routing holds for every method the interface gains.
 */
export function routedBackend(fallback: Backend): Backend {
  return new Proxy(fallback, {
    get(target, prop) {
      const chosen = current.getStore()?.backend ?? target;
      const value = Reflect.get(chosen, prop, chosen) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(chosen) : value;
    },
  });
}
