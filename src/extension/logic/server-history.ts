/**
 * What the TTL Monitor History panel says on a real server instead of drawing an empty chart: a
 * server keeps only the monitor's running totals (serverStatus().metrics.ttl), not a record per
 * pass, so there is nothing to chart; the totals it does keep are quoted. Pure.
 */
import type { MonitorInfo } from '../backend/backend';

export function noServerHistoryText(label: string, monitor: MonitorInfo | undefined): string {
  const totals = monitor
    ? ` Its totals since it started (serverStatus().metrics.ttl): ${monitor.passes} ${monitor.passes === 1 ? 'pass' : 'passes'}, ${monitor.deletedDocuments} ${monitor.deletedDocuments === 1 ? 'document' : 'documents'} deleted${monitor.deletedSinceActivation ? `, ${monitor.deletedSinceActivation} of them since this window connected` : ''}.`
    : '';
  return `No pass history on ${label}: a real server keeps only the TTL monitor's totals, not each pass, so there is nothing to chart.${totals} The Expiry Forecast works on the connection; the per-pass chart needs the embedded engine, whose monitor records every pass.`;
}
