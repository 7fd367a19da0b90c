import { getEventListeners } from 'node:events';
import { expect } from 'chai';
import { createLogger, createNodeListener, createRpc, defineMethod } from '@rollup-router/core';
import { listen, memoryLog, post, type Listening } from '@rollup-router/test-support/http';
import { waitFor } from '@rollup-router/test-support/wait-for';

// Shaped like an upstream-bound method: it hands ctx.signal to its I/O.
const touchesSignal = defineMethod<[], boolean>({
  name: 'touchesSignal',
  handler: (_params, ctx) => ctx.signal.aborted,
});
const ping = defineMethod<[], string>({ name: 'ping', handler: () => 'pong' });

const batchOf = (n: number, method: string) =>
  `[${Array.from({ length: n }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"${method}"}`).join(',')}]`;

/** A method that waits until its ctx.signal aborts, counting the calls started and the reasons seen. */
function waitingForAbort() {
  const seen = { started: 0, reasons: [] as string[] };
  const method = defineMethod<[], string>({
    name: 'waitsForAbort',
    handler: (_params, ctx) =>
      new Promise((resolve) => {
        seen.started++;
        ctx.signal.addEventListener('abort', () => {
          seen.reasons.push(String((ctx.signal.reason as Error).message));
          resolve('aborted');
        });
      }),
  });
  return { method, seen };
}

/** POSTs `body` from a client that can leave before its answer: `leave()` aborts and waits for the fetch to end. */
function clientThatLeaves(url: string, body: string): { leave(): Promise<void> } {
  const client = new AbortController();
  const pending = fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: client.signal,
  }).catch(() => undefined);
  return {
    async leave() {
      client.abort();
      await pending;
    },
  };
}

describe('a batch and its calls share one request scope', () => {
  let server: Listening;
  before(async () => {
    const rpc = createRpc({ logger: createLogger({ level: 'silent' }), methods: [touchesSignal] });
    server = await listen(createNodeListener(rpc));
  });
  after(() => server.close());

  it('a batch of 20 calls that touch ctx.signal adds one listener to the response: no MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const r = await post(server.url, batchOf(20, 'touchesSignal'));
      expect(JSON.parse(r.text)).to.have.length(20);
      // Warnings are emitted on the next tick: let them arrive before looking.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).to.not.include('MaxListenersExceededWarning');
  });
});

describe('observers are guarded', () => {
  let server: Listening;
  const log = memoryLog();
  before(async () => {
    const rpc = createRpc({
      logger: createLogger({ level: 'info', destination: log.stream }),
      methods: [ping],
    });
    rpc.onCall(() => {
      throw new Error('observer bug');
    });
    server = await listen(createNodeListener(rpc));
  });
  after(() => server.close());

  it('a throwing onCall observer does not turn a batch into HTTP 500: the answers stand, the bug is logged', async () => {
    const r = await post(server.url, batchOf(3, 'ping'));
    expect(r.status).to.equal(200);
    expect(JSON.parse(r.text)).to.deep.equal([0, 1, 2].map((id) => ({ jsonrpc: '2.0', result: 'pong', id })));
    const observed = log.lines.filter((l) => l.msg === 'an observer threw; ignored');
    expect(observed.length).to.be.greaterThanOrEqual(3);
    expect(observed[0]!.observer).to.equal('onCall');
  });
});

describe('the client going away', () => {
  it("aborts every call's ctx.signal in its batch, through the request's one signal", async () => {
    const { method, seen } = waitingForAbort();
    const rpc = createRpc({ logger: createLogger({ level: 'silent' }), methods: [method] });
    const server = await listen(createNodeListener(rpc));
    try {
      const client = clientThatLeaves(server.url, batchOf(3, 'waitsForAbort'));
      await waitFor(() => seen.started === 3, 'the three calls to start');
      await client.leave();
      await waitFor(() => seen.reasons.length === 3, 'the three signals to abort');
      expect(seen.reasons).to.deep.equal([
        'client disconnected',
        'client disconnected',
        'client disconnected',
      ]);
    } finally {
      await server.close();
    }
  });

  it('a call that looks at ctx.signal only after the client left finds it aborted, with the same reason', async () => {
    let entered = false;
    let release!: () => void;
    let seen: { aborted: boolean; reason: string } | undefined;
    const late = defineMethod<[], string>({
      name: 'late',
      handler: async (_params, ctx) => {
        entered = true;
        await new Promise<void>((r) => (release = r));
        seen = { aborted: ctx.signal.aborted, reason: String((ctx.signal.reason as Error)?.message) };
        return 'done';
      },
    });
    const listener = createNodeListener(
      createRpc({ logger: createLogger({ level: 'silent' }), methods: [late] }),
    );
    let closed = false;
    const server = await listen((req, res) => {
      res.once('close', () => (closed = true));
      listener(req, res);
    });
    try {
      const client = clientThatLeaves(server.url, '{"jsonrpc":"2.0","id":1,"method":"late"}');
      await waitFor(() => entered, 'the call to start');
      await client.leave();
      await waitFor(() => closed, 'the server to see the connection close');
      release();
      await waitFor(() => seen !== undefined, 'the handler to look at its signal');
      expect(seen).to.deep.equal({ aborted: true, reason: 'client disconnected' });
    } finally {
      await server.close();
    }
  });
});

describe("rpc.dispatch and a call's signal", () => {
  const { method, seen } = waitingForAbort();
  const rpc = createRpc({
    logger: createLogger({ level: 'silent' }),
    methods: [touchesSignal, method],
    limits: { callDeadlineMs: 150 },
  });
  beforeEach(() => {
    seen.started = 0;
    seen.reasons.length = 0;
  });

  it("the caller's signal aborts ctx.signal with its reason; calls that ended leave no listener on it", async () => {
    const peer = new AbortController();
    // A connection's signal outlives its calls: a thousand of them must not pile up on it.
    for (let i = 0; i < 1000; i++) {
      expect(
        await rpc.dispatch(`{"jsonrpc":"2.0","id":${i},"method":"touchesSignal"}`, { signal: peer.signal }),
      ).to.equal(`{"jsonrpc":"2.0","result":false,"id":${i}}`);
    }
    expect(getEventListeners(peer.signal, 'abort')).to.have.length(0);
    const pending = rpc.dispatch('{"jsonrpc":"2.0","id":1,"method":"waitsForAbort"}', {
      signal: peer.signal,
    });
    await waitFor(() => seen.started === 1, 'the call to start');
    peer.abort(new Error('socket closed'));
    await pending;
    expect(seen.reasons).to.deep.equal(['socket closed']);
  });

  it('the deadline aborts ctx.signal, with or without a caller signal', async () => {
    const answers = await Promise.all([
      rpc.dispatch('{"jsonrpc":"2.0","id":1,"method":"waitsForAbort"}'),
      rpc.dispatch('{"jsonrpc":"2.0","id":2,"method":"waitsForAbort"}', {
        signal: new AbortController().signal,
      }),
    ]);
    for (const answer of answers) expect(JSON.parse(answer!)).to.have.nested.property('error.code', -32052);
    await waitFor(() => seen.reasons.length === 2, 'both signals to abort');
    expect(seen.reasons).to.deep.equal(['deadline exceeded', 'deadline exceeded']);
  });
});
