/**
 * A window that opened its data folder read-only (another window or a `ttl-workbench` process holds
 * the folder's lock) refuses what would change the folder itself. The refusal names the holder and
 * the two ways out, with code 20 (IllegalOperation), the code the engine answers writes with on a
 * folder opened with --read-only. No `vscode` import.
 */
import { EngineError } from '../../engine/errors';

/** Who holds the folder, as its lock file says (storage/lock.ts). */
export interface FolderHolder {
  pid: number;
  by?: string;
}

/**
 * `action`: what was refused, as a verb phrase ("compact it"). `reason`: why the folder is
 * read-only when no other process holds it (the disk refused a recovery write).
 */
export function readOnlyFolderRefusal(
  dir: string,
  action: string,
  holder: FolderHolder | undefined,
  reason?: string,
): EngineError {
  if (reason !== undefined)
    return new EngineError(
      'IllegalOperation',
      `${dir} is open read-only (${reason}), so this window cannot ${action}. Fix what the note says, then reload the window.`,
    );
  const who =
    holder === undefined || holder.pid === 0
      ? 'another VS Code window or ttl-workbench process'
      : `process ${holder.pid}${holder.by ? ` (${holder.by})` : ''}`;
  return new EngineError(
    'IllegalOperation',
    `${dir} is open read-only: ${who} holds it, so this window cannot ${action}. Do it there, or close that window (stop that process) and reload this one.`,
  );
}
