/**
 * The eligibility gate before a TTL change: how many existing documents become eligible for
 * deletion at once, and a confirmation above `ttlWorkbench.confirmExpiryAbove`. From code, a count
 * above the limit needs `confirm: true` (the command returns `needsConfirmation` otherwise).
 * With `showForecast`, the question offers "Show Forecast" (the Expiry Forecast panel, before vs
 * after), then asks again beside the panel; from code, `showForecast: true` opens it.
 */
import * as vscode from 'vscode';
import { currentConnection } from '../backend/backend-scope';
import type { BatchDeleteTarget } from '../logic/batch-delete-snippet';
import { formatCount } from '../logic/durations';
import type { CommandResult, Invocation, Services } from './context';

/** What the batch-delete snippet needs of the change (the connection comes from the command's backend). */
export type BatchDeleteOffer = Omit<BatchDeleteTarget, 'connection'>;

const BATCH_ACTION = 'Delete in Batches First…';

/**
 * Opens the batch-delete playground for the change, bound to the connection the command runs on,
 * and answers the gate's result: the change itself is not made.
 */
async function offerBatchDelete(offer: BatchDeleteOffer, eligible: number): Promise<Gate> {
  const connection = currentConnection();
  const opened = await vscode.commands.executeCommand<CommandResult>('ttlWorkbench.batchDeleteSnippet', {
    ...offer,
    ...(connection !== undefined ? { connection } : {}),
  });
  return {
    proceed: false,
    eligible,
    result: { ok: false, cancelled: true, eligibleNow: eligible, batchDeleteSnippet: opened },
  };
}

export type Gate = { proceed: true; eligible: number } | { proceed: false; eligible: number; result: CommandResult };

export async function confirmEligibility(
  services: Services,
  inv: Invocation,
  target: { db: string; name: string },
  eligible: number,
  what: string,
  showForecast?: () => void,
  /** Offers the documentation's advice: a playground that deletes the eligible documents in batches first. */
  batchDelete?: BatchDeleteOffer,
): Promise<Gate> {
  if (showForecast && inv.args.showForecast === true) showForecast();
  const limit = services.settings().confirmExpiryAbove;
  if (eligible <= limit) return { proceed: true, eligible };
  const text = `${formatCount(eligible)} existing documents of ${target.db}.${target.name} become eligible for deletion at once: the next TTL pass deletes them.`;
  if (!inv.interactive) {
    if (inv.args.confirm === true) return { proceed: true, eligible };
    if (batchDelete && inv.args.batchDeleteSnippet === true) return offerBatchDelete(batchDelete, eligible);
    services.notifier.showAndForget(
      'warning',
      `${what}: not run. ${text} That is above ttlWorkbench.confirmExpiryAbove (${formatCount(limit)}); confirm to go ahead.`,
      [],
    );
    return {
      proceed: false,
      eligible,
      result: {
        ok: false,
        needsConfirmation: true,
        eligibleNow: eligible,
        limit,
        message: `${text} Pass confirm: true to go ahead${batchDelete ? ', or batchDeleteSnippet: true for a playground that deletes them in batches first' : ''}.`,
      },
    };
  }
  let choice = await services.notifier.confirm(
    `${what}?`,
    `${text}\n\nThis is above ttlWorkbench.confirmExpiryAbove (${formatCount(limit)}).`,
    'Continue',
    ...(showForecast ? ['Show Forecast'] : []),
    ...(batchDelete ? [BATCH_ACTION] : []),
  );
  if (choice === BATCH_ACTION && batchDelete) return offerBatchDelete(batchDelete, eligible);
  if (choice === 'Show Forecast' && showForecast) {
    showForecast();
    // Not modal: the forecast stays readable while the question waits.
    choice = await services.notifier.warn(`${what}? ${text}`, 'Continue', 'Cancel');
  }
  if (choice !== 'Continue')
    return { proceed: false, eligible, result: { ok: false, cancelled: true, eligibleNow: eligible } };
  return { proceed: true, eligible };
}
