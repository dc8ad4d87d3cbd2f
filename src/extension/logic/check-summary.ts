/**
 * What Check Workspace says, counted as the Problems panel shows them: hints are not in its
 * count, so they are named apart ("3 problems and 1 hint"), with plural forms. No `vscode` import.
 */
import { plural } from './durations';

export interface CheckCounts {
  files: number;
  /** Errors, warnings and information: what the Problems panel counts. */
  problems: number;
  errors: number;
  hints: number;
  cancelled: boolean;
}

export function checkWorkspaceSummary(c: CheckCounts): string {
  const found =
    c.problems === 0 && c.hints === 0
      ? 'no TTL problems'
      : `${plural(c.problems, 'TTL problem')}${c.errors ? ` (${plural(c.errors, 'error')})` : ''}${c.hints ? ` and ${plural(c.hints, 'hint')}` : ''}`;
  return `Checked ${plural(c.files, 'file')}: ${found}${c.cancelled ? ', stopped early' : ''}.`;
}
