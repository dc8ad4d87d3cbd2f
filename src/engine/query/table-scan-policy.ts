/**
 * mongod's `notablescan`: while it is on, a query that could only scan a whole collection fails
 * instead of running. The dispatcher sets it per command from the server parameter, so several
 * engines in one process each keep their own setting.
 */
import { fail } from '../errors';
import type { Document } from '../values/types';

const policy = { noTableScan: false };

/** Runs `fn` with table scans refused (or allowed), then restores the previous policy. */
export function withTableScanPolicy<T>(noTableScan: boolean, fn: () => T): T {
  const saved = policy.noTableScan;
  policy.noTableScan = noTableScan;
  try {
    return fn();
  } finally {
    policy.noTableScan = saved;
  }
}

const INTERNAL_DATABASES = new Set(['admin', 'local', 'config']);

/**
 * Throws NoQueryExecutionPlans when the policy refuses a collection scan of `dbName.collection`
 * for `filter`. As in mongod, an empty filter, the internal databases and system collections are
 * exempt: the server itself reads those by scanning.
 */
export function checkTableScanAllowed(dbName: string, collection: string, filter: Document): void {
  if (!policy.noTableScan) return;
  if (Object.keys(filter).length === 0) return;
  if (INTERNAL_DATABASES.has(dbName) || collection.startsWith('system.')) return;
  fail(
    'NoQueryExecutionPlans',
    `No indexed plans available, and running with 'notablescan': no index of ${dbName}.${collection} serves this filter. Create an index on a field it filters on, or set notablescan back to false: db.adminCommand({setParameter: 1, notablescan: false}).`,
  );
}
