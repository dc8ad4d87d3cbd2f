/**
 * Azure Cosmos DB for MongoDB (RU) TTL in words, and what the workbench refuses to do there
 * (ttl-semantics.md §10): collection TTL is an index on the system field `_ts` (10.1), a document's
 * own top-level `ttl` overrides it when valid (10.2–10.4), and deletion timing belongs to the service
 * (10.5). Pure: no driver, no `vscode`.
 */
import type { Document } from '../../engine';
import { formatSeconds } from '../logic/durations';

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

function numeric(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (v !== null && typeof v === 'object') {
    const cls = (v as { _bsontype?: string })._bsontype;
    if (cls === 'Int32' || cls === 'Double') return Number((v as { valueOf(): unknown }).valueOf());
    if (cls === 'Long') return Number(String(v));
  }
  return undefined;
}

/** A `ttl` value Cosmos honours (10.3): a whole number within int32; -1 means never (10.4). */
export function validCosmosTTL(value: unknown): number | undefined {
  const n = numeric(value);
  if (n === undefined || !Number.isInteger(n) || n < INT32_MIN || n > INT32_MAX) return undefined;
  if (n === -1 || n > 0) return n;
  return undefined; // 0 and other negatives: treated as invalid (10.4, confidence low)
}

/** The `_ts` TTL index of a collection, in words: `TTL 1 h after the last write (_ts)`. */
export function describeTimestampIndex(seconds: number): string {
  return seconds === 0 ? 'expires at the last write (_ts)' : `TTL ${formatSeconds(seconds)} after the last write (_ts)`;
}

/** When one document expires on Cosmos, in words (10.2–10.4). */
export function describeDocumentTTL(doc: Document, collectionSeconds: number | undefined): string {
  const has = Object.prototype.hasOwnProperty.call(doc, 'ttl');
  if (collectionSeconds === undefined)
    return has
      ? 'never expires: its ttl is ignored because the collection has no TTL index on _ts (rule 10.2)'
      : 'never expires: the collection has no TTL index on _ts';
  const collection = `${formatSeconds(collectionSeconds)} after its last write (the collection's _ts TTL)`;
  if (!has) return `expires ${collection}`;
  const v = validCosmosTTL(doc.ttl);
  if (v === -1) return 'never expires (ttl: -1, rule 10.4)';
  if (v === undefined)
    return `expires ${collection}: its ttl ${String(doc.ttl)} is not a whole int32 and is ignored (rule 10.3)`;
  return `expires ${formatSeconds(v)} after its last write (its own ttl overrides the collection's ${formatSeconds(collectionSeconds)}, rule 10.2)`;
}

/** The workbench operations Cosmos refuses or cannot show. */
export type CosmosOperation =
  | { kind: 'createTTLIndex'; field: string }
  | { kind: 'convertToTTL' }
  | { kind: 'preview' }
  | { kind: 'setMonitorParameters' }
  | { kind: 'findNaN' };

/** Why Cosmos does not take this operation, or undefined when it does. */
export function cosmosRefusal(op: CosmosOperation): string | undefined {
  switch (op.kind) {
    case 'createTTLIndex':
      return op.field === '_ts'
        ? undefined
        : `Cosmos DB expires documents through a TTL index on _ts only (rule 10.1); a TTL index on ${op.field} is not its documented mechanism (rule 10.5). Create the index on _ts, and set a per-document ttl field where a document should live longer or shorter.`;
    case 'convertToTTL':
      return 'Cosmos DB expires documents through a TTL index on _ts only (rule 10.1): create {_ts: 1} with expireAfterSeconds instead of converting another index.';
    case 'preview':
      return 'Cosmos DB keeps _ts out of reach of queries (rule 10.1), so which documents are eligible cannot be counted from a client.';
    case 'setMonitorParameters':
      return 'Cosmos DB runs its own background deletion at a time the service chooses (rule 10.5): it has no ttlMonitor parameters to set.';
    case 'findNaN':
      return undefined;
  }
}
