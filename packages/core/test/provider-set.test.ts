// ProviderSet against real loopback HTTP servers standing in for a chain's RPC providers: which
// provider a call goes to, when a provider that went out is probed again, and what a hedged
// read asks. Probe rounds are counted by the probes a healthy provider receives, never timed.
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { ProviderSet, type ProviderSetOptions } from '../src/index.js';
import { listen, type Listening } from '@rollup-router/test-support/http';
import { waitFor } from '@rollup-router/test-support/wait-for';

/** How a stand-in answers: a node, a gateway refusing with 503, or a node holding reads until released. */
type Mode = 'ok' | 'down' | 'held';

interface StandIn {
  readonly name: string;
  readonly server: Listening;
  mode: Mode;
  /** Its slot, as getSlot answers it. */
  slot: number;
  /** The methods asked of it, in order. */
  readonly asked: string[];
  probes(): number;
  reads(): number;
  /** Answers the reads it holds. */
  release(): void;
}

async function standIn(name: string): Promise<StandIn> {
  const held: (() => void)[] = [];
  const self: StandIn = {
    name,
    server: undefined as unknown as Listening,
    mode: 'ok',
    slot: 1000,
    asked: [],
    probes: () => self.asked.filter((m) => m === 'getSlot').length,
    reads: () => self.asked.filter((m) => m !== 'getSlot').length,
    release: () => held.splice(0).forEach((answer) => answer()),
  };
  const server = await listen((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      self.asked.push(method);
      const answer = (): void => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id, result: method === 'getSlot' ? self.slot : name }));
      };
      if (self.mode === 'down') {
        res.statusCode = 503;
        res.end('unavailable');
      } else if (self.mode === 'held' && method !== 'getSlot') held.push(answer);
      else answer();
    });
  });
  return Object.assign(self, { server });
}

describe('ProviderSet', function () {
  this.timeout(20_000);
  const PROBE_MS = 50;
  let standIns: StandIn[] = [];
  let set: ProviderSet | undefined;

  afterEach(async () => {
    for (const s of standIns) s.release();
    await set?.stop();
    set = undefined;
    await Promise.all(standIns.map((s) => s.server.close()));
    standIns = [];
  });

  async function providers(
    names: string[],
    options: Partial<ProviderSetOptions> = {},
  ): Promise<[ProviderSet, ...StandIn[]]> {
    standIns = await Promise.all(names.map(standIn));
    set = new ProviderSet({
      providers: standIns.map((s) => ({ name: s.name, url: s.server.url })),
      freshness: async (ask) => {
        const outcome = await ask('getSlot');
        return outcome.kind === 'reply' && typeof outcome.reply.result === 'number'
          ? outcome.reply.result
          : undefined;
      },
      maxLag: 10,
      probeIntervalMs: PROBE_MS,
      maxBackoffMs: 30_000,
      probeTimeoutMs: 2_000,
      ...options,
    });
    return [set, ...standIns];
  }

  /** A read through the set: who answered it, and the providers it was asked of, in order. */
  async function read(s: ProviderSet): Promise<{ answer: unknown; asked: string[] }> {
    const asked: string[] = [];
    const outcome = await s.call({
      method: 'getBalance',
      timeoutMs: 5_000,
      onAttempt: (provider) => asked.push(provider),
    });
    return { answer: outcome.kind === 'reply' ? outcome.reply.result : outcome.kind, asked };
  }

  const healthOf = (s: ProviderSet, name: string): string | undefined =>
    s.states().find((p) => p.name === name)?.health;

  /** Waits for `rounds` more probe rounds, as counted by the probes `healthy` receives. */
  async function probeRounds(healthy: StandIn, rounds: number): Promise<void> {
    const from = healthy.probes();
    await waitFor(() => healthy.probes() >= from + rounds, `${rounds} probe rounds`);
  }

  it('probes a provider that failed under many calls at once after one probe interval, not a backoff per call', async () => {
    const [s, a, b] = await providers(['a', 'b']);
    s.start();
    await probeRounds(b!, 1);
    expect(healthOf(s, 'a')).to.equal('healthy');

    a!.mode = 'down';
    const reads = await Promise.all(Array.from({ length: 8 }, () => read(s)));
    for (const r of reads) expect(r).to.deep.equal({ answer: 'b', asked: ['a', 'b'] });
    expect(healthOf(s, 'a')).to.equal('failing');
    expect(await read(s)).to.deep.equal({ answer: 'b', asked: ['b'] });

    // Back after a one-second outage, as it were: the next probe due finds it, a few rounds
    // on at most (a wait doubled per failed call would be 8 intervals doubled 7 times).
    a!.mode = 'ok';
    await probeRounds(b!, 6);
    expect(a!.probes()).to.be.greaterThan(1);
    expect(healthOf(s, 'a')).to.equal('healthy');
    expect(await read(s)).to.deep.equal({ answer: 'a', asked: ['a'] });
  });

  it('probes a provider that stays down less and less often', async () => {
    const [s, a, b] = await providers(['a', 'b']);
    a!.mode = 'down';
    s.start();
    await probeRounds(b!, 16);
    // Probed after 1, 2, 4, 8 intervals: a handful of probes where b had 16.
    expect(a!.probes()).to.be.within(2, 7);
    expect(healthOf(s, 'a')).to.equal('failing');
  });

  it('with every provider out, still calls them all, in the operator order', async () => {
    const [s, a, b] = await providers(['a', 'b']);
    a!.mode = 'down';
    b!.mode = 'down';
    expect(await read(s)).to.deep.equal({ answer: 'bad_reply', asked: ['a', 'b'] });
    expect(s.states().map((p) => p.health)).to.deep.equal(['failing', 'failing']);
    expect(s.current().name).to.equal('a');

    b!.mode = 'ok';
    expect(await read(s)).to.deep.equal({ answer: 'b', asked: ['a', 'b'] });
    a!.mode = 'ok';
    expect(await read(s)).to.deep.equal({ answer: 'a', asked: ['a'] });
  });

  it('sends calls past a provider that lags, and back to it when it catches up', async () => {
    const [s, a, b] = await providers(['a', 'b']);
    a!.slot = 900;
    s.start();
    await waitFor(() => healthOf(s, 'a') === 'lagging', 'a judged lagging');
    expect(s.current().name).to.equal('b');
    expect(await read(s)).to.deep.equal({ answer: 'b', asked: ['b'] });

    a!.slot = b!.slot;
    await waitFor(() => healthOf(s, 'a') === 'healthy', 'a caught up');
    expect(s.current().name).to.equal('a');
    expect(await read(s)).to.deep.equal({ answer: 'a', asked: ['a'] });
  });

  it('hedges a read once: the provider asked because the first failed is not hedged by the first one’s timer', async () => {
    const [s, a, b, c] = await providers(['a', 'b', 'c'], { hedgeAfterMs: 50 });
    a!.mode = 'down';
    b!.mode = 'held';
    const reading = read(s);
    await waitFor(() => b!.reads() === 1, 'b asked');
    // Past the hedge delay of the call: a timer still armed would have asked c by now.
    await sleep(200);
    b!.release();
    expect(await reading).to.deep.equal({ answer: 'b', asked: ['a', 'b'] });
    expect(c!.reads()).to.equal(0);
  });
});
