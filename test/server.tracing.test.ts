// The reference server's traces as an operator turns them on: a call forwarded
// by the delegation router to validator A (the real base chain) reaches an OTLP receiver on
// loopback as the call's span in the client's trace with the base chain's client span under
// it, exported at the latest when the server stops. Off (the default), the server loads no
// OpenTelemetry code beyond the API prom-client itself requires.
import { expect } from 'chai';
import { VALIDATOR_A } from '@rollup-router/test-support/delegation-chain';
import { moduleProbe, openTelemetryPackages } from '@rollup-router/test-support/loaded-modules';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '@rollup-router/test-support/otlp-receiver';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { rpc, serveWith, tempDir, type ServerProcess } from './server.harness.js';

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

const config = (extra: Record<string, unknown>) => ({
  routes: { routes: [] },
  delegation: { baseChain: { url: VALIDATOR_A }, delegations: { follow: false } },
  statuses: { store: false },
  websocket: { port: false },
  ...extra,
});

/** Stops the server as an orchestrator does, and waits for it to exit. */
async function stopped(server: ServerProcess): Promise<number | null> {
  server.signal('SIGTERM');
  return server.exited;
}

describe('server: OpenTelemetry traces', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  let receiver: OtlpReceiver;

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR_A);
    dir = tempDir();
    receiver = await startOtlpReceiver();
  });
  after(async () => {
    await receiver?.close();
    dir?.remove();
  });

  it("on (ROLLUP_ROUTER_TRACING, the collector from OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): getSlot forwarded to the base chain is the call's span in the client's trace, the base chain's client span under it, exported when the server stops", async () => {
    // Turned on and pointed at the collector through the environment, as a container is.
    const server = await serveWith(dir.dir, config({ shutdown: { drainDelayMs: 0 } }), {
      env: {
        ROLLUP_ROUTER_TRACING: 'true',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'router-under-test',
      },
    });
    try {
      const answer = await rpc(
        `${server.base}/`,
        { jsonrpc: '2.0', id: 1, method: 'getSlot', params: [] },
        { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
      );
      expect(answer.json.result, answer.text).to.be.a('number');
      expect(await stopped(server)).to.equal(0);
    } finally {
      await server.kill();
    }

    const spans = await receiver.waitForSpans('the getSlot trace', (s) =>
      s.some((x) => x.traceId === CLIENT_TRACE && x.kind === 3),
    );
    const trace = spans.filter((s) => s.traceId === CLIENT_TRACE);
    const call = trace.find((s) => s.kind === 2)!;
    expect(call.name).to.equal('getSlot');
    expect(call.parentSpanId).to.equal(CLIENT_SPAN);
    expect(call.attributes).to.include({ 'rpc.system.name': 'jsonrpc', 'rpc.method': 'getSlot' });
    expect(call.resource['service.name']).to.equal('router-under-test');
    const upstream = trace.find((s) => s.kind === 3)!;
    expect(upstream.name).to.equal('getSlot');
    expect(upstream.parentSpanId).to.equal(call.spanId);
    expect(upstream.attributes).to.include({ 'service.peer.name': 'base-chain', 'rpc.method': 'getSlot' });
    expect(upstream.status.code).to.equal(0);
    // The base chain's URL is the operator's secret: no span carries it.
    expect(JSON.stringify(trace)).to.not.include('17799');
  });

  /** Serves with tracing on and `env`, makes `calls` (traceparent or none), stops; the spans of its service. */
  async function tracedRun(
    service: string,
    env: Record<string, string>,
    traceparents: (string | undefined)[],
  ): Promise<ReceivedSpan[]> {
    const server = await serveWith(dir.dir, config({ shutdown: { drainDelayMs: 0 } }), {
      env: {
        ROLLUP_ROUTER_TRACING: 'true',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: service,
        ...env,
      },
    });
    try {
      for (const traceparent of traceparents) {
        const answer = await rpc(
          `${server.base}/`,
          { jsonrpc: '2.0', id: 1, method: 'getSlot', params: [] },
          traceparent === undefined ? {} : { traceparent },
        );
        expect(answer.json.result, answer.text).to.be.a('number');
      }
      // Spans are exported at the latest when the server stops: after its exit, all of them have come.
      expect(await stopped(server)).to.equal(0);
    } finally {
      await server.kill();
    }
    return receiver.spans.filter((s) => s.resource['service.name'] === service);
  }

  it('OTEL_TRACES_SAMPLER=parentbased_always_off: a trace that starts here is not recorded, one the client sampled is', async () => {
    const sampledTrace = '5af92f3577b34da6a3ce929d0e0e4736';
    const spans = await tracedRun('router-parent-based', { OTEL_TRACES_SAMPLER: 'parentbased_always_off' }, [
      undefined,
      `00-${sampledTrace}-${CLIENT_SPAN}-01`,
    ]);
    expect(spans.length).to.be.greaterThan(0);
    expect([...new Set(spans.map((s) => s.traceId))]).to.deep.equal([sampledTrace]);
  });

  it('OTEL_SDK_DISABLED=true: tracing on in the config, calls answered, no span exported', async () => {
    const spans = await tracedRun('router-sdk-disabled', { OTEL_SDK_DISABLED: 'true' }, [
      undefined,
      `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`,
    ]);
    expect(spans).to.deep.equal([]);
  });

  it('off (the default): a call is answered and no OpenTelemetry module is loaded but the API prom-client requires', async () => {
    const probe = moduleProbe();
    try {
      const server = await serveWith(dir.dir, config({ shutdown: { drainDelayMs: 0 } }), {
        env: probe.env,
        nodeOptions: probe.nodeOptions,
      });
      try {
        const answer = await rpc(`${server.base}/`, { jsonrpc: '2.0', id: 1, method: 'getSlot', params: [] });
        expect(answer.json.result, answer.text).to.be.a('number');
        expect(await stopped(server)).to.equal(0);
      } finally {
        await server.kill();
      }
      const loaded = probe.read();
      expect(loaded.modules.some((m) => m.includes('packages/server/dist'))).to.equal(true);
      expect(openTelemetryPackages(loaded.modules)).to.deep.equal(['@opentelemetry/api']);
      expect(loaded.otelGlobals).to.deep.equal([]);
    } finally {
      probe.remove();
    }
  });
});
