/**
 * The rows of saved connections in the Databases view: a connected server (its role, the member
 * the connection reads, Cosmos DB when detected) and a connection not connected (or whose connect
 * failed, with the reason). A connection marked production shows in the warning colour and says
 * that every write asks first. Tooltips never hold the connection string: only its name and what
 * the server said about itself. Pure: no `vscode`.
 */
import type { BackendInfo, ClockInfo } from '../backend/backend';
import { formatClockTime } from '../logic/durations';
import type { Presentation } from './presentation';

const PRODUCTION_COLOR = 'list.warningForeground';

export function presentServer(info: BackendInfo, clock: ClockInfo, production: boolean): Presentation {
  const role = info.server;
  const flavor = info.flavor === 'cosmos' ? 'Cosmos DB' : `MongoDB ${info.version}`;
  const lines = [
    `**${info.label}**${production ? ' · production: every write asks for confirmation first' : ''}`,
    '',
    `- Server: ${flavor}${role ? ` · ${role.summary}` : ''}`,
    ...(role ? [`- Reads and writes go to: ${role.member}`] : []),
    ...(role?.writesDisabledBecause ? [`- Writes disabled: ${role.writesDisabledBecause}`] : []),
    ...(role ? [`- TTL deletes: ${role.ttlDeletes}`] : []),
    ...(role?.cosmosBecause ? [`- Detected as Cosmos DB because ${role.cosmosBecause}`] : []),
    `- Server time: ${formatClockTime(clock.now)} (its own clock; the virtual clock exists only in the embedded engine)`,
  ];
  const words = ['server', 'driver', `flavor-${info.flavor}`];
  if (production) words.push('production');
  if (role && !role.canWrite) words.push('readOnly');
  return {
    label: info.label,
    description: `${production ? 'production · ' : ''}${role ? role.summary : flavor}`,
    tooltip: lines.join('\n'),
    icon: { id: production ? 'warning' : 'database', ...(production ? { color: PRODUCTION_COLOR } : {}) },
    contextValue: `${words.join(' ')} connection connected`,
    collapsible: 'collapsed',
  };
}

export function presentConnection(node: { name: string; production: boolean; error?: string }): Presentation {
  return {
    label: node.name,
    description: `${node.production ? 'production · ' : ''}${node.error ? 'could not connect' : 'not connected'}`,
    tooltip: node.error
      ? `**${node.name}**: ${node.error}`
      : `**${node.name}**: click to connect${node.production ? ' (production: every write asks first)' : ''}.`,
    icon: {
      id: node.error ? 'error' : 'debug-disconnect',
      ...(node.production ? { color: PRODUCTION_COLOR } : {}),
    },
    contextValue: `connection disconnected${node.production ? ' production' : ''}`,
    collapsible: 'none',
    command: { command: 'ttlWorkbench.connect', title: 'Connect', arguments: [{ name: node.name, interactive: true }] },
  };
}
