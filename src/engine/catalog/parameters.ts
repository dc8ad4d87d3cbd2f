/**
 * Server parameters (getParameter / setParameter). The TTL monitor's knobs are mongod's, with its
 * defaults and constraints (docs/ttl-rules.md rule 7.1); listeners hear about changes so the monitor
 * can reschedule when the sleep interval changes.
 */
import { fail } from '../errors';
import { toDouble } from '../values/numbers';
import { bsonTypeOf, isNumeric } from '../values/types';

type Kind = 'bool' | 'int' | 'string';

interface ParameterDef {
  kind: Kind;
  default: boolean | number | string;
  min?: number;
  /** The longest string value, in UTF-8 bytes: a longer one is Overflow (15), as mongod refuses it. */
  maxBytes?: number;
  /** Settable only at startup (engine options), like mongod's startup-only parameters. */
  startupOnly?: boolean;
  help: string;
}

export const PARAMETERS: Record<string, ParameterDef> = {
  ttlMonitorEnabled: { kind: 'bool', default: true, help: 'run TTL passes' },
  ttlMonitorSleepSecs: { kind: 'int', default: 60, min: 1, help: 'seconds between TTL passes' },
  ttlMonitorBatchDeletes: { kind: 'bool', default: true, help: 'delete expired documents in batches' },
  ttlIndexDeleteTargetDocs: {
    kind: 'int',
    default: 50000,
    min: 0,
    help: 'max documents deleted per index visit (0 = unlimited)',
  },
  ttlIndexDeleteTargetTimeMS: {
    kind: 'int',
    default: 1000,
    min: 0,
    help: 'max milliseconds per index visit (0 = unlimited)',
  },
  ttlMonitorSubPassTargetSecs: { kind: 'int', default: 60, min: 0, help: 'time budget of a TTL sub-pass' },
  ttlMonitorMaxMetadataRecoveryThreads: {
    kind: 'int',
    default: 5,
    min: 1,
    startupOnly: true,
    help: 'sharding only; kept for compatibility',
  },
  transactionLifetimeLimitSeconds: {
    kind: 'int',
    default: 60,
    min: 1,
    help: 'seconds a multi-document transaction may stay open before the server aborts it (replica-set mode)',
  },
  automationServiceDescriptor: {
    kind: 'string',
    default: '',
    maxBytes: 64,
    help: 'a name hello echoes while it is not empty: the service that manages this server',
  },
  notablescan: {
    kind: 'bool',
    default: false,
    help: 'refuse queries that would scan a whole collection of a user database (an empty filter still may)',
  },
  // Replication's oplog fetcher gives up after this many restarts in a row: no fetcher runs
  // in-process, but the values are kept and checked as mongod checks them.
  oplogFetcherSteadyStateMaxFetcherRestarts: {
    kind: 'int',
    default: 1,
    min: 0,
    help: 'restarts of the oplog fetcher in steady state before a new sync source is chosen (replication; no effect in-process)',
  },
  oplogFetcherInitialSyncMaxFetcherRestarts: {
    kind: 'int',
    default: 10,
    min: 0,
    help: 'restarts of the oplog fetcher during initial sync before it fails (replication; no effect in-process)',
  },
  ttlMonitorBackgroundOperation: {
    kind: 'bool',
    default: false,
    help: 'admission priority of TTL deletes (no effect in-process)',
  },
};

export type ParameterValue = boolean | number | string;
export type ParameterListener = (name: string, value: ParameterValue) => void;

export class ParameterStore {
  private readonly values = new Map<string, ParameterValue>();
  private readonly listeners = new Set<ParameterListener>();

  constructor(initial: Record<string, unknown> = {}) {
    for (const [name, def] of Object.entries(PARAMETERS)) this.values.set(name, def.default);
    for (const [name, value] of Object.entries(initial)) this.values.set(name, this.coerce(name, value));
  }

  get(name: string): ParameterValue {
    const v = this.values.get(name);
    if (v === undefined) fail('InvalidOptions', `no option found to get: '${name}' is not a server parameter.`);
    return v;
  }

  getBool(name: string): boolean {
    return this.get(name) === true;
  }

  getNumber(name: string): number {
    return Number(this.get(name));
  }

  names(): string[] {
    return [...this.values.keys()];
  }

  /** Sets a parameter at runtime; returns the previous value (mongod's `was`). */
  set(name: string, value: unknown): ParameterValue {
    this.validate(name, value);
    const was = this.values.get(name)!;
    const next = this.coerce(name, value);
    this.values.set(name, next);
    for (const listener of this.listeners) listener(name, next);
    return was;
  }

  /** Throws what set() would throw, without changing anything. */
  validate(name: string, value: unknown): void {
    const def = PARAMETERS[name];
    if (!def)
      fail(
        'InvalidOptions',
        `attempted to set unrecognized parameter [${name}]; known parameters: ${Object.keys(PARAMETERS).join(', ')}.`,
      );
    if (def.startupOnly) fail('IllegalOperation', `parameter '${name}' can only be set at startup (engine options).`);
    this.coerce(name, value);
  }

  onDidChange(listener: ParameterListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private coerce(name: string, value: unknown): ParameterValue {
    const def = PARAMETERS[name];
    if (!def) fail('InvalidOptions', `unrecognized parameter [${name}].`);
    if (def.kind === 'string') {
      if (typeof value !== 'string')
        fail('TypeMismatch', `Invalid value for parameter ${name}: expected a string, got ${bsonTypeOf(value)}.`);
      if (def.maxBytes !== undefined && Buffer.byteLength(value, 'utf8') > def.maxBytes)
        fail('Overflow', `Invalid value for parameter ${name}: use at most ${def.maxBytes} bytes.`);
      return value;
    }
    if (def.kind === 'bool') {
      if (typeof value === 'boolean') return value;
      if (isNumeric(value)) return toDouble(value) !== 0;
      fail('BadValue', `Invalid value for parameter ${name}: expected a boolean, got ${bsonTypeOf(value)}.`);
    }
    if (!isNumeric(value))
      fail('BadValue', `Invalid value for parameter ${name}: expected an integer, got ${bsonTypeOf(value)}.`);
    const n = Math.trunc(toDouble(value));
    if (!Number.isFinite(n))
      fail('BadValue', `Invalid value for parameter ${name}: ${String(toDouble(value))} is not a finite integer.`);
    if (def.min !== undefined && n < def.min) {
      fail('BadValue', `Invalid value for parameter ${name}: ${n} is not greater than or equal to ${def.min}.`);
    }
    return n;
  }
}
