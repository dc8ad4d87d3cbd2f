/**
 * One endpoint and one connected driver client for the tests of a `describe` block: started in
 * its `before`, closed in its `after`. The wire suites share it so each block states only what
 * kind of server it needs (standalone, replica set, a clock) and what it tests.
 */
import { after, before } from 'node:test';
import { MongoClient, type MongoClientOptions } from 'mongodb';
import { startServer, type RunningServer, type StartServerOptions } from '../../../src/wire';

export interface DriverOnServer {
  readonly server: RunningServer;
  readonly client: MongoClient;
}

export function driverOnServer(options: StartServerOptions, clientOptions: MongoClientOptions = {}): DriverOnServer {
  let server: RunningServer | undefined;
  let client: MongoClient | undefined;
  before(async () => {
    server = await startServer(options);
    client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 5000, ...clientOptions });
    await client.connect();
  });
  after(async () => {
    await client?.close();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('driverOnServer: used outside the tests of its describe block');
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get client() {
      return started(client);
    },
  };
}
