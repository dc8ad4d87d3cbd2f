/**
 * Which commands change stored data: what an engine opened read-only (a data folder another
 * process writes to, `ttl-workbench run --read-only`) refuses before they touch anything, the way
 * mongod in queryable backup mode refuses user writes. Refusing up front, rather than when the
 * journal is written, leaves memory and disk in agreement.
 */
import type { Document } from '../values/types';

const WRITE_COMMANDS = new Set([
  'insert',
  'update',
  'delete',
  'findAndModify',
  'findandmodify',
  'bulkWrite',
  'create',
  'drop',
  'dropDatabase',
  'createIndexes',
  'dropIndexes',
  'deleteIndexes',
  'collMod',
  'renameCollection',
  'cloneCollectionAsCapped',
  'convertToCapped',
  // Parameters are stored with the data, and ttlMonitorEnabled would let TTL passes delete.
  'setParameter',
]);

/** The command (or, for aggregate, the writing stage) that would change stored data; undefined for a read. */
export function writeOf(command: Document): string | undefined {
  const name = Object.keys(command)[0];
  if (name === undefined) return undefined;
  if (WRITE_COMMANDS.has(name)) return name;
  if (name === 'aggregate' && Array.isArray(command.pipeline)) {
    for (const stage of command.pipeline as unknown[]) {
      if (stage === null || typeof stage !== 'object') continue;
      const stageName = Object.keys(stage)[0];
      if (stageName === '$out' || stageName === '$merge') return `aggregate with ${stageName}`;
    }
  }
  return undefined;
}
