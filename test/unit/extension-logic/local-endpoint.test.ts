/**
 * The local endpoint's pure parts: which ports the setting and the command take, what the status
 * bar item says, and that a failed listen says what happened and what to do. The listen errors
 * are real ones, from a port this test holds.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import {
  DEFAULT_LOCAL_ENDPOINT_PORT,
  LOOPBACK,
  PORT_SETTING,
  endpointLostText,
  endpointPortOf,
  endpointStatusText,
  endpointTooltip,
  listenFailureText,
} from '../../../src/extension/logic/local-endpoint';
import { WireServer } from '../../../src/wire/server';
import { Engine } from '../../../src/engine';
import { listen } from '../../../src/extension/engine-host/endpoint';

const root = path.resolve(__dirname, '..', '..', '..', '..');
const address = { host: LOOPBACK, port: 27018, uri: 'mongodb://127.0.0.1:27018/' };

describe('local endpoint: pure parts', () => {
  it('takes ports from 0 (any free port) to 65535, as integers or digit strings', () => {
    assert.equal(endpointPortOf(0), 0);
    assert.equal(endpointPortOf(27018), 27018);
    assert.equal(endpointPortOf(65535), 65535);
    assert.equal(endpointPortOf(' 8080 '), 8080);
    for (const bad of [-1, 65536, 1.5, NaN, '', 'abc', '80x', null, undefined, {}, true])
      assert.equal(endpointPortOf(bad), undefined, String(bad));
  });

  it('the setting in package.json has the default, range and key the code reads', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    const setting = pkg.contributes.configuration.properties[PORT_SETTING];
    assert.equal(setting.type, 'integer');
    assert.equal(setting.default, DEFAULT_LOCAL_ENDPOINT_PORT);
    assert.equal(setting.default, 27018);
    assert.deepEqual([setting.minimum, setting.maximum], [0, 65535]);
    assert.ok(
      !Object.keys(pkg.contributes.configuration.properties).some((k: string) => /localEndpoint\.(host|bind)/.test(k)),
      'no setting widens the bind beyond loopback',
    );
  });

  it('the status bar item shows the connection string; the tooltip says where and what is kept', () => {
    assert.equal(endpointStatusText(address), '$(plug) mongodb://127.0.0.1:27018');
    const memory = endpointTooltip(address, true);
    assert.match(memory, /127\.0\.0\.1 \(this machine only\)/);
    assert.match(memory, /Connection string: mongodb:\/\/127\.0\.0\.1:27018\//);
    assert.match(memory, /in memory/);
    assert.match(memory, /Click to copy/);
    assert.match(endpointTooltip(address, false), /kept in the engine's data folder/);
  });

  it('a port in use says so and what to do: another port in the setting, or 0', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, LOOPBACK, () => r()));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const server = new WireServer({ engine: new Engine(), port, host: LOOPBACK });
      const err = (await listen(server, port, LOOPBACK).then(
        () => assert.fail('listened on a taken port'),
        (e: unknown) => e,
      )) as Error & { listenCode: string };
      assert.equal(err.listenCode, 'EADDRINUSE');
      const text = listenFailureText(err.listenCode, port, err.message);
      assert.match(text, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use`));
      assert.match(text, /Set ttlWorkbench\.localEndpoint\.port to a free port, or to 0 for any free port/);
    } finally {
      await new Promise<void>((r) => holder.close(() => r()));
    }
  });

  it('other listen failures keep their detail; privileged ports say why', () => {
    assert.match(listenFailureText('EACCES', 80, 'listen EACCES'), /may not open port 80 \(ports below 1024/);
    const other = listenFailureText('EADDRNOTAVAIL', 27018, 'listen EADDRNOTAVAIL: address not available');
    assert.match(other, /address not available\. Set ttlWorkbench\.localEndpoint\.port/);
    assert.match(listenFailureText(undefined, 1, 'boom'), /: boom\./);
  });

  it('an endpoint lost in a restart says why and how to start it again', () => {
    const taken = endpointLostText(address, { message: 'Cannot listen', listenCode: 'EADDRINUSE' });
    assert.match(taken, /mongodb:\/\/127\.0\.0\.1:27018\/ stopped/);
    assert.match(taken, /port 27018 was taken by another program meanwhile/);
    assert.match(taken, /Start Local Endpoint starts it again/);
    assert.match(endpointLostText(address, { message: 'the engine host failed 4 times' }), /failed 4 times/);
  });
});
