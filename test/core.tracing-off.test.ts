// Tracing off costs no loaded code: a service that answers over HTTP and WebSocket and
// forwards a call to an upstream loads no @opentelemetry module and registers nothing with
// the OpenTelemetry API; the same service with tracing on does (so the probe can see them).
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import {
  moduleProbe,
  openTelemetryPackages,
  type LoadedModules,
} from '@rollup-router/test-support/loaded-modules';
import { REPO } from './server.harness.js';

/** One service in a child process: a forwarded call over HTTP, a call over WebSocket, then exit. */
const script = (tracing: unknown): string => `
import http from 'node:http';
import WebSocket from 'ws';
const core = await import('@rollup-router/core');
const upstream = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => res.end(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(body).id, result: '0x2a' })));
});
await new Promise((r) => upstream.listen(0, '127.0.0.1', r));
const errors = {
  unavailable: { code: -32090, message: 'Node unavailable', meaning: 'm' },
  tooLarge: { code: -32091, message: 'Too large', meaning: 'm' },
};
const forwarder = new core.Forwarder(new core.JsonRpcClient(), { timeoutMs: 5000, errors });
const target = { name: 'node', url: 'http://127.0.0.1:' + upstream.address().port };
const rpc = core.createRpc({
  logger: core.createLogger({ level: 'silent' }),
  plugins: [core.definePlugin({
    name: 'p',
    errors: Object.values(errors),
    methods: [
      ...core.forwardedMethods(forwarder, [{ name: 'eth_blockNumber', params: { type: 'array' }, targetOf: () => target }]),
      core.defineMethod({ name: 'ping', handler: () => 'pong' }),
    ],
  })],
  tracing: ${JSON.stringify(tracing)},
});
const server = http.createServer(core.createNodeListener(rpc));
core.attachWebSocket(server, rpc);
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = '127.0.0.1:' + server.address().port;
const reply = await fetch('http://' + base, {
  method: 'POST',
  headers: { 'content-type': 'application/json', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
});
const forwarded = await reply.text();
const ws = new WebSocket('ws://' + base);
await new Promise((r) => ws.once('open', r));
ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }));
const pong = await new Promise((r) => ws.once('message', (m) => r(m.toString())));
console.log(JSON.stringify({ forwarded, pong }));
process.exit(0);
`;

async function run(tracing: unknown): Promise<LoadedModules & { out: string }> {
  const probe = moduleProbe();
  try {
    const child = spawn(
      process.execPath,
      [...probe.nodeOptions, '--input-type=module', '--eval', script(tracing)],
      { cwd: REPO, env: { ...process.env, ...probe.env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((done) => child.once('close', done));
    expect(code, err).to.equal(0);
    return { ...probe.read(), out };
  } finally {
    probe.remove();
  }
}

describe('core: tracing off loads no OpenTelemetry code', function () {
  this.timeout(60_000);

  it('off (the default), a service answering over HTTP and WebSocket and forwarding a call loads no @opentelemetry module', async () => {
    const loaded = await run({});
    expect(loaded.out).to.include('0x2a').and.include('pong');
    expect(
      loaded.modules.some((m) => m.includes('@rollup-router/core') || m.includes('packages/core')),
    ).to.equal(true);
    expect(openTelemetryPackages(loaded.modules)).to.deep.equal([]);
    expect(loaded.otelGlobals).to.deep.equal([]);
  });

  it('on, the same service loads the SDK and registers its context manager', async () => {
    // The collector is a closed loopback port: nothing is exported before the process exits.
    const loaded = await run({ enabled: true, endpoint: 'http://127.0.0.1:9/v1/traces' });
    expect(loaded.out).to.include('0x2a').and.include('pong');
    expect(openTelemetryPackages(loaded.modules)).to.include.members([
      '@opentelemetry/api',
      '@opentelemetry/sdk-trace',
      '@opentelemetry/exporter-trace-otlp-proto',
    ]);
    expect(loaded.otelGlobals).to.include('context');
  });
});
