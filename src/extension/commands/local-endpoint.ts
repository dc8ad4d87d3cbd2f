/**
 * Start Local Endpoint, Stop Local Endpoint and Copy Connection String: the window's shared engine
 * over the MongoDB wire protocol on 127.0.0.1 (local-endpoint.ts), for an app, mongosh, Compass or
 * a test suite to connect to. Off until started; the port comes from
 * ttlWorkbench.localEndpoint.port, or `{port}` from code (0: any free port).
 */
import * as vscode from 'vscode';
import { endpointPortOf, listenFailureText, PORT_SETTING } from '../logic/local-endpoint';
import { registerCommand, WorkbenchError, type CommandResult, type Invocation, type Services } from './context';

const OPEN_PORT_SETTING = {
  title: 'Open Port Setting',
  command: 'workbench.action.openSettings',
  args: [PORT_SETTING],
};

async function startLocalEndpoint(services: Services, inv: Invocation): Promise<CommandResult> {
  const asked = inv.args.port;
  const port = asked === undefined ? services.settings().localEndpointPort : endpointPortOf(asked);
  if (port === undefined)
    throw new WorkbenchError(
      `The port must be an integer from 0 (any free port) to 65535, not ${JSON.stringify(asked)}: call with e.g. {port: 27018}.`,
    );
  const running = services.localEndpoint.current;
  if (running && (asked === undefined || port === 0 || port === running.port)) {
    if (inv.args.quiet !== true) tellRunning(services, running.uri, 'already serves');
    return { ok: true, uri: running.uri, port: running.port, alreadyRunning: true };
  }
  let address;
  try {
    address = await services.localEndpoint.start(port);
  } catch (err) {
    const e = err as Error & { listenCode?: unknown };
    if (e.name !== 'EndpointListenError') throw err;
    throw new WorkbenchError(
      listenFailureText(typeof e.listenCode === 'string' ? e.listenCode : undefined, port, e.message),
      OPEN_PORT_SETTING,
    );
  }
  if (inv.args.quiet !== true) tellRunning(services, address.uri, 'serves');
  return { ok: true, uri: address.uri, port: address.port };
}

function tellRunning(services: Services, uri: string, verb: string): void {
  services.notifier.showAndForget(
    'info',
    `The local endpoint ${verb} this window's engine at ${uri} (this machine only). Connect an app, mongosh or Compass to it; the Databases view shows their writes.`,
    ['Copy Connection String'],
    (choice) =>
      choice === 'Copy Connection String'
        ? vscode.commands.executeCommand('ttlWorkbench.copyConnectionString')
        : undefined,
  );
}

async function stopLocalEndpoint(services: Services, inv: Invocation): Promise<CommandResult> {
  const running = services.localEndpoint.current;
  const stopped = await services.localEndpoint.stop();
  if (inv.args.quiet !== true)
    services.notifier.showAndForget(
      'info',
      stopped && running
        ? `The local endpoint on ${running.uri} stopped: its connections are closed and new ones are refused.`
        : 'The local endpoint was not running.',
      [],
    );
  return { ok: true, stopped };
}

async function copyConnectionString(services: Services, inv: Invocation): Promise<CommandResult> {
  const running = services.localEndpoint.current;
  if (!running)
    throw new WorkbenchError('The local endpoint is not running: there is no connection string to copy.', {
      title: 'Start Local Endpoint',
      command: 'ttlWorkbench.startLocalEndpoint',
      args: [{ interactive: true }],
    });
  // Clipboard access can be refused or wait for focus (web): the string is returned and logged anyway.
  let timer: NodeJS.Timeout | undefined;
  const copied = await Promise.race([
    Promise.resolve(vscode.env.clipboard.writeText(running.uri)).then(
      () => true,
      () => false,
    ),
    new Promise<false>((r) => (timer = setTimeout(() => r(false), 1000))),
  ]);
  clearTimeout(timer);
  services.output.info(`Local endpoint connection string: ${running.uri}`);
  if (inv.args.quiet !== true)
    services.notifier.showAndForget(
      copied ? 'info' : 'warning',
      copied
        ? `Copied ${running.uri} to the clipboard.`
        : `The clipboard could not be reached; the connection string is ${running.uri} (also in the TTL Workbench log).`,
      [],
    );
  return { ok: true, uri: running.uri, copied };
}

export function registerLocalEndpointCommands(services: Services): vscode.Disposable[] {
  return [
    registerCommand(services, {
      id: 'ttlWorkbench.startLocalEndpoint',
      action: 'Start Local Endpoint',
      run: (inv) => startLocalEndpoint(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.stopLocalEndpoint',
      action: 'Stop Local Endpoint',
      run: (inv) => stopLocalEndpoint(services, inv),
    }),
    registerCommand(services, {
      id: 'ttlWorkbench.copyConnectionString',
      action: 'Copy Connection String',
      run: (inv) => copyConnectionString(services, inv),
    }),
  ];
}
