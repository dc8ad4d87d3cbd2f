/**
 * When an untrusted workspace becomes trusted, its engine can move from memory to the workspace's
 * data folder. Opening the folder replaces the in-memory engine, so what was written there in
 * Restricted Mode would go: an empty engine moves at once, one holding data asks first. Copying
 * the data into the folder is not offered: the folder may hold the same collections with other
 * documents and indexes, and no merge is right for every case. No `vscode` import.
 */
import { describeLoss, type DatabaseContents } from './fresh-engine';

export const OPEN_FOLDER = 'Open Data Folder';
export const KEEP_IN_MEMORY = 'Keep In Memory';

/** The question to ask before the folder replaces the in-memory engine; undefined: nothing is lost, move now. */
export function trustedStorageQuestion(
  inMemory: readonly DatabaseContents[],
): { text: string; open: string; keep: string } | undefined {
  if (inMemory.length === 0) return undefined;
  return {
    text: `This workspace is trusted now, so TTL Workbench can keep its engine in the workspace's data folder. Opening the folder replaces the in-memory engine, and what was written in Restricted Mode goes: ${describeLoss(inMemory)}. Keep it in memory to go on with it (the folder opens at the next window reload).`,
    open: OPEN_FOLDER,
    keep: KEEP_IN_MEMORY,
  };
}

/** What the window says once the folder is open. */
export function trustedStorageOpened(restoredDocuments: number, readOnly: boolean): string {
  const restored = restoredDocuments === 1 ? '1 document' : `${restoredDocuments.toLocaleString('en-US')} documents`;
  return readOnly
    ? `This workspace is trusted now: TTL Workbench opened its data folder read-only (another window or process holds it; ${restored} restored), so changes stay in memory.`
    : `This workspace is trusted now: TTL Workbench keeps its engine in the workspace's data folder (${restored} restored).`;
}
