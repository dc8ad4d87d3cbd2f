/**
 * The key-value state the file-store tests keep in a FileStore: snapshot records are {k, v};
 * journal records {set: k, v} or {del: k}. Shared by file-store.test and store-recovery.test.
 */
import type { Document } from 'bson';
import { FileStore, type RecoveryReport } from '../../../src/storage/file-store';

export interface OpenKvStore {
  store: FileStore;
  state: Map<string, string>;
  report: RecoveryReport;
}

/** Opens the store in `dir` and replays it into a map. */
export function openKvStore(dir: string, options: Parameters<typeof FileStore.open>[1] = {}): OpenKvStore {
  const store = FileStore.open(dir, options);
  const state = new Map<string, string>();
  const report = store.recover({
    snapshotRecord: (d: Document) => void state.set(String(d.k), String(d.v)),
    journalRecord: (d: Document) =>
      d.del !== undefined ? void state.delete(String(d.del)) : void state.set(String(d.set), String(d.v)),
  });
  return { store, state, report };
}

/** Fills `dir` and closes it cleanly: snapshot 1 (a, b) and journal 1 (c). Returns `dir`. */
export function compactedKvFolder(dir: string): string {
  const a = openKvStore(dir);
  a.store.append({ set: 'a', v: '1' });
  a.store.append({ set: 'b', v: '2' });
  const g = a.store.beginCompaction();
  a.store.writeSnapshot(g, [
    { k: 'a', v: '1' },
    { k: 'b', v: '2' },
  ]);
  a.store.append({ set: 'c', v: '3' });
  a.store.close();
  return dir;
}

/** Fills `dir` with `n` journal records (k0 = 0, k1 = 1, …) and closes it cleanly. Returns `dir`. */
export function journalKvFolder(dir: string, n: number): string {
  const a = openKvStore(dir);
  for (let i = 0; i < n; i++) a.store.append({ set: `k${i}`, v: String(i) });
  a.store.close();
  return dir;
}
