import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { RouteRegistry, type ProbeReport, type RouteEntry, type RoutesOptions } from '../src/index.js';
import { SolanaStandIn, type HealthBehaviour } from '@rollup-router/test-support/solana-stand-in';
import { newIdentity } from '@rollup-router/test-support/solana';
import { memoryLog } from '@rollup-router/test-support/http';
import { waitFor } from '@rollup-router/test-support/wait-for';

const entryFor = (fake: SolanaStandIn, countryCode: RouteEntry['countryCode'] = 'DEU'): RouteEntry => ({
  identity: newIdentity(),
  fqdn: fake.url,
  baseFee: 0,
  blockTimeMs: 50,
  countryCode,
});

const fast = { intervalMs: 10, timeoutMs: 500, unhealthyAfter: 3 };

describe('node health', () => {
  const fakes: SolanaStandIn[] = [];
  let registry: RouteRegistry | undefined;
  let logs: ReturnType<typeof memoryLog>;

  beforeEach(() => {
    logs = memoryLog();
  });
  afterEach(async () => {
    await registry?.stop();
    registry = undefined;
    await Promise.all(fakes.splice(0).map((f) => f.close()));
  });

  async function fakeNode(health: HealthBehaviour = 'healthy'): Promise<SolanaStandIn> {
    const fake = await SolanaStandIn.start();
    fake.health = health;
    fakes.push(fake);
    return fake;
  }

  async function startWith(routes: RouteEntry[], health: RoutesOptions['health']): Promise<RouteRegistry> {
    registry = new RouteRegistry({ routes, allowInsecure: true, health });
    await registry.start({ log: logs.log });
    return registry;
  }

  it('lists only the nodes that answer their first probe once start has resolved', async () => {
    const [up, failing, unhealthy, garbage] = [
      await fakeNode(),
      await fakeNode('http-500'),
      await fakeNode('unhealthy'),
      await fakeNode('not-json'),
    ];
    const gone = await fakeNode();
    await gone.down();
    const entries = [up, failing, unhealthy, garbage, gone].map((f) => entryFor(f));
    const reg = await startWith(entries, { intervalMs: 60_000 });
    expect(reg.available()).to.deep.equal([entries[0]]);
    expect(reg.nodes().map((n) => [n.health, n.lastError?.split(':')[0]])).to.deep.equal([
      ['up', undefined],
      ['down', 'http-status'],
      ['down', 'rpc-error'],
      ['down', 'bad-response'],
      ['down', 'unreachable'],
    ]);
    expect(reg.nodes()[2]!.lastError).to.equal('rpc-error: JSON-RPC error -32005: Node is unhealthy');
  });

  it('calls getHealth by default and the configured method otherwise', async () => {
    const [a, b] = [await fakeNode(), await fakeNode()];
    await startWith([entryFor(a)], { intervalMs: 60_000 });
    await registry!.stop();
    await startWith([entryFor(b)], { intervalMs: 60_000, method: 'getSlot' });
    expect([a.methods, b.methods]).to.deep.equal([['getHealth'], ['getSlot']]);
  });

  it(`drops a node after ${fast.unhealthyAfter} failures in a row, not before, and lists it again after one success`, async () => {
    const fake = await fakeNode();
    const entry = entryFor(fake);
    const reg = await startWith([entry], fast);
    const reports: ProbeReport[] = [];
    const changes: (readonly RouteEntry[])[] = [];
    reg.onProbe((r) => reports.push(r));
    reg.onChange((routes) => changes.push(routes));
    expect(reg.available()).to.deep.equal([entry]);

    fake.health = 'http-500';
    await waitFor(() => reg.available().length === 0, 'the node to be dropped');
    const failures = reports.filter((r) => !r.ok);
    expect(failures.map((r) => [r.available, r.changed])).to.deep.equal([
      [true, false],
      [true, false],
      [false, true],
    ]);
    expect(failures[0]!.failure).to.deep.equal({ kind: 'http-status', message: 'HTTP 500' });
    expect(logs.lines.find((l) => l.msg === 'node unavailable')).to.include({
      identity: entry.identity,
      fqdn: entry.fqdn,
      consecutiveFailures: 3,
      error: 'http-status: HTTP 500',
    });

    fake.health = 'healthy';
    await waitFor(() => reg.available().length === 1, 'the node to be listed again');
    const firstSuccess = reports.find((r) => r.ok)!;
    expect([firstSuccess.available, firstSuccess.changed]).to.deep.equal([true, true]);
    expect(changes).to.deep.equal([[], [entry]]);
  });

  it('drops a node after the schema default of 3 failures in a row when unhealthyAfter is not given', async () => {
    const fake = await fakeNode();
    const reg = await startWith([entryFor(fake)], { intervalMs: 10, timeoutMs: 500 });
    const reports: ProbeReport[] = [];
    reg.onProbe((r) => reports.push(r));
    fake.health = 'http-500';
    await waitFor(() => reg.available().length === 0, 'the node to be dropped');
    expect(reports.filter((r) => !r.ok).map((r) => r.available)).to.deep.equal([true, true, false]);
  });

  it('keeps calling the other observers when one throws, and logs the failure', async () => {
    const fake = await fakeNode();
    const reg = await startWith([entryFor(fake)], fast);
    const seen: boolean[] = [];
    reg.onProbe(() => {
      throw new Error('observer bug');
    });
    reg.onProbe((r) => seen.push(r.ok));
    reg.onChange(() => {
      throw new Error('observer bug');
    });
    fake.health = 'http-500';
    await waitFor(() => reg.available().length === 0, 'the node to be dropped');
    expect(seen.filter((ok) => !ok)).to.have.length(3);
    const failures = logs.lines.filter((l) => l.msg === 'an observer threw; ignored');
    expect(failures.map((l) => l.observer)).to.include.members([
      'route registry probe listener',
      'route registry change listener',
    ]);
  });

  it('follows a node that goes away (connection refused) and comes back on the same port', async () => {
    const [stays, flaky] = [await fakeNode(), await fakeNode()];
    const entries = [entryFor(stays), entryFor(flaky)];
    const reg = await startWith(entries, fast);
    expect(reg.available()).to.deep.equal(entries);
    await flaky.down();
    await waitFor(() => reg.available().length === 1, 'the node to be dropped');
    expect(reg.available()).to.deep.equal([entries[0]]);
    expect(reg.nodes()[1]!.lastError).to.match(/^unreachable: .*ECONNREFUSED/);
    await flaky.up();
    await waitFor(() => reg.available().length === 2, 'the node to come back');
    // The order is the registry's, not the order in which nodes came back.
    expect(reg.available()).to.deep.equal(entries);
  });

  it('counts a node that does not answer in time as failing, with never more than one probe in flight', async () => {
    const slow = await fakeNode('hang');
    const entry = entryFor(slow);
    const reg = await startWith([entry], { intervalMs: 10, timeoutMs: 50, unhealthyAfter: 1 });
    expect(reg.available()).to.deep.equal([]);
    expect(reg.nodes()[0]!.lastError).to.equal('timeout: no answer within 50 ms');
    await waitFor(() => slow.methods.length >= 4, 'more probes');
    expect(slow.maxInFlight).to.equal(1);
    expect(slow.abandoned).to.be.greaterThanOrEqual(3);
  });

  it('records the latency of the last successful probe for embedders', async () => {
    const [up, down] = [await fakeNode(), await fakeNode('http-500')];
    const [a, b] = [entryFor(up), entryFor(down)];
    const reg = await startWith([a, b], { intervalMs: 60_000 });
    const latency = reg.latencyMs(a.identity);
    expect(latency).to.be.a('number').and.greaterThan(0);
    expect(reg.nodes()[0]!.lastLatencyMs).to.equal(latency);
    expect(reg.latencyMs(b.identity)).to.equal(undefined);
    expect(reg.latencyMs(newIdentity())).to.equal(undefined);
  });

  it('stops probing when stopped, aborting a probe under way', async () => {
    const [quick, slow] = [await fakeNode(), await fakeNode()];
    const reg = await startWith([entryFor(quick), entryFor(slow)], { intervalMs: 10, timeoutMs: 60_000 });
    slow.health = 'hang';
    await waitFor(() => quick.methods.length >= 3 && slow.inFlight === 1, 'probes under way');
    await reg.stop();
    await waitFor(() => slow.inFlight === 0, 'the hanging probe to be aborted');
    const seen = quick.methods.length + slow.methods.length;
    await sleep(100); // ten probe intervals: any probe still scheduled would show up
    expect(quick.methods.length + slow.methods.length).to.equal(seen);
  });

  it('lists every registered node without probing when health checking is off', async () => {
    const fake = await fakeNode('http-500');
    const entry = entryFor(fake);
    const reg = await startWith([entry], { enabled: false });
    expect(reg.available()).to.deep.equal([entry]);
    expect(reg.nodes()[0]!.health).to.equal('unchecked');
    expect(fake.methods.length).to.equal(0);
  });
});
