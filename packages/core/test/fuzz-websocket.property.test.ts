// Property-based fuzzing of JSON-RPC over WebSocket, against a real server on loopback:
// random frames (text and binary, invalid UTF-8 included), random JSON and random calls,
// 100,000 messages in all. Every frame the server sends must be a JSON-RPC answer or a
// subscription notification; an independent model says how many answers each message is
// owed and what each generated call must get. Nothing may crash, hang (every wait is
// bounded) or leak: connections and subscriptions go back to 0, and the heap after the run
// is within a bound of the heap after warm-up (bytes counted after a full GC, no timings).
import { causeOf } from '@rollup-router/test-support/wire-error';
import { expect } from 'chai';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import {
  defineMethod,
  definePlugin,
  defineSubscription,
  type RpcOptions,
  type SubscriptionSink,
} from '@rollup-router/core';
import { heapAfterGc } from '@rollup-router/test-support/heap-after-gc';
import { serveSockets, type SocketServed } from '@rollup-router/test-support/socket-server';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { TestSocket } from '@rollup-router/test-support/ws-client';

const MESSAGES = 100_000;
/** Share of the messages sent to a server with a rate limit, so refusals are fuzzed too. */
const LIMITED_SHARE = 0.2;
/** Messages per property run: one socket round, then the model's checks. */
const PER_RUN = 100;
const MAX_MESSAGE_BYTES = 16 * 1024;
const MAX_BATCH_LENGTH = 100; // the core's default
const MAX_SUBSCRIPTIONS_PER_CONNECTION = 40;
/** What the heap may grow between warm-up and the end, whatever the number of messages. */
const HEAP_GROWTH_BOUND = 8 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// The server under test

function fuzzPlugin() {
  const sinks = new Set<SubscriptionSink<number>>();
  const plugin = definePlugin({
    name: 'ws-fuzz',
    methods: [
      defineMethod<unknown[], unknown[]>({ name: 'echo', params: { type: 'array' }, handler: (p) => p }),
      defineMethod<[number, number], number>({
        name: 'sum',
        params: {
          type: 'array',
          prefixItems: [{ type: 'integer' }, { type: 'integer' }],
          minItems: 2,
          maxItems: 2,
        },
        handler: ([a, b]) => a + b,
      }),
    ],
    subscriptions: [
      defineSubscription<[], number>({
        subscribe: 'valueSubscribe',
        unsubscribe: 'valueUnsubscribe',
        notification: 'valueNotification',
        params: { type: 'array', maxItems: 0 },
        result: { type: 'integer' },
        // One notification at start, then it lives until unsubscribed or its socket closes.
        start: (_params, sink) => {
          sink.notify(1);
          sinks.add(sink);
          return () => sinks.delete(sink);
        },
      }),
    ],
  });
  return { plugin, sinks };
}

// ---------------------------------------------------------------------------------------------
// The model

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

/** A valid request without an id: owed nothing. (Its id rules do not matter: it has none.) */
const isNotification = (call: unknown): boolean =>
  isObject(call) &&
  !Object.hasOwn(call, 'id') &&
  Object.keys(call).every((k) => REQUEST_MEMBERS.has(k)) &&
  call.jsonrpc === '2.0' &&
  typeof call.method === 'string';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** How many answer frames a message is owed (0 or 1), from the text the server reads. */
function owed(text: string | undefined): number {
  if (text === undefined) return 1; // binary that is not UTF-8: -32700
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 1;
  }
  if (!Array.isArray(body)) return isNotification(body) ? 0 : 1;
  if (body.length === 0 || body.length > MAX_BATCH_LENGTH) return 1;
  return body.every(isNotification) ? 0 : 1;
}

const responseSchema = JSON.parse(
  readFileSync(new URL('../../../schemas/jsonrpc-response.schema.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;
const validateResponse = new Ajv2020({ strict: false }).compile(responseSchema);

// ---------------------------------------------------------------------------------------------
// Generators

/** A call the fuzzer builds itself, so it knows what the answer must be. */
interface GenCall {
  readonly method: 'echo' | 'sum' | 'valueSubscribe' | 'valueUnsubscribe' | 'nope';
  readonly withId: boolean;
  /** undefined: no params member. */
  readonly params: unknown;
  /** The params follow the method's schema (else the answer may be -32602). */
  readonly valid: boolean;
  /** valueUnsubscribe: which live subscription to end (an index), or none (an id nobody holds). */
  readonly pick: number | undefined;
}

type Message =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'binary'; readonly bytes: Uint8Array }
  | {
      readonly kind: 'calls';
      readonly calls: readonly GenCall[];
      readonly batch: boolean;
      readonly binary: boolean;
    };

const smallJson = fc.jsonValue({ maxDepth: 2 });

const genCall: fc.Arbitrary<GenCall> = fc.oneof(
  fc.record({
    method: fc.constant('echo' as const),
    withId: fc.boolean(),
    params: fc.array(smallJson, { maxLength: 3 }),
    valid: fc.constant(true),
    pick: fc.constant(undefined),
  }),
  fc.record({
    method: fc.constant('sum' as const),
    withId: fc.boolean(),
    params: fc.tuple(fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: -1e6, max: 1e6 })),
    valid: fc.constant(true),
    pick: fc.constant(undefined),
  }),
  fc.record({
    method: fc.constant('valueSubscribe' as const),
    withId: fc.boolean(),
    params: fc.constant([]),
    valid: fc.constant(true),
    pick: fc.constant(undefined),
  }),
  fc.record({
    method: fc.constant('valueUnsubscribe' as const),
    withId: fc.boolean(),
    params: fc.constant(undefined),
    valid: fc.constant(true),
    pick: fc.option(fc.nat(), { nil: undefined }),
  }),
  fc.record({
    method: fc.constantFrom('echo' as const, 'sum' as const, 'valueSubscribe' as const, 'nope' as const),
    withId: fc.boolean(),
    params: fc.option(smallJson, { nil: undefined }),
    valid: fc.constant(false),
    pick: fc.constant(undefined),
  }),
);

const INVALID_UTF8: readonly (readonly number[])[] = [
  [0xff],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0x80],
];

const message: fc.Arbitrary<Message> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('calls' as const),
      calls: fc.array(genCall, { minLength: 1, maxLength: 1 }),
      batch: fc.constant(false),
      binary: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('calls' as const),
      calls: fc.array(genCall, { minLength: 1, maxLength: 8 }),
      batch: fc.constant(true),
      binary: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      text: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      text: fc.string({ unit: 'binary', maxLength: 40 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      text: fc.constantFrom(
        '',
        '[]',
        '[1]',
        'null',
        '{}',
        '{"jsonrpc":"2.0"}',
        '[{"jsonrpc":"2.0","method":"echo"}]',
        '{"jsonrpc":"2.0","method":"valueSubscribe"}',
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('binary' as const), bytes: fc.uint8Array({ maxLength: 64 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(...INVALID_UTF8), fc.nat()).map(([bad, at]): Message => {
      const call = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"echo","params":["x"]}');
      const i = at % call.length;
      return {
        kind: 'binary',
        bytes: new Uint8Array(Buffer.concat([call.subarray(0, i), Buffer.from(bad), call.subarray(i)])),
      };
    }),
  },
);

// ---------------------------------------------------------------------------------------------
// One connection under fuzz, and what the model knows of it

class Fuzzed {
  /** Subscription ids this socket holds, as its answers told. */
  readonly live: number[] = [];
  private nextId = 1;
  sent = 0;

  private constructor(readonly socket: TestSocket) {}

  static async open(url: string): Promise<Fuzzed> {
    return new Fuzzed(await TestSocket.open(url));
  }

  /** Sends the messages, reads every frame owed, and checks each; returns how many messages went. */
  async run(messages: readonly Message[], limited: boolean): Promise<void> {
    const expected = new Map<string, { call: GenCall; unsubscribing: number | undefined }>();
    const picked = new Set<number>();
    let owedAnswers = 0;
    for (const m of messages) {
      let wire: string | Buffer;
      let binary = false;
      if (m.kind === 'text') {
        wire = m.text;
        // A JS string with lone surrogates goes out as UTF-8 with replacement characters.
        owedAnswers += owed(Buffer.from(m.text, 'utf8').toString('utf8'));
      } else if (m.kind === 'binary') {
        wire = Buffer.from(m.bytes);
        binary = true;
        let text: string | undefined;
        try {
          text = utf8.decode(m.bytes);
        } catch {
          text = undefined;
        }
        owedAnswers += owed(text);
      } else {
        const objects = m.calls.map((call) => this.render(call, expected, picked));
        const text = JSON.stringify(m.batch ? objects : objects[0]);
        owedAnswers += owed(text);
        wire = m.binary ? Buffer.from(text) : text;
        binary = m.binary;
      }
      this.socket.send(wire, binary);
      this.sent += 1;
    }
    // The sentinel's answer comes after every answer owed by the messages before it.
    const sentinel = `sentinel-${this.nextId++}`;
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', id: sentinel, method: 'echo', params: [] }));
    let answers = 0;
    let notifications = 0;
    let subscribed = 0;
    let sentinelSeen = false;
    while (!sentinelSeen || answers < owedAnswers || notifications < subscribed) {
      const text = await this.socket.nextText(10_000);
      let frame: unknown;
      try {
        frame = JSON.parse(text);
      } catch {
        expect.fail(`a frame that is not JSON: ${text.slice(0, 200)}`);
      }
      if (isObject(frame) && frame.method === 'valueNotification') {
        expect(frame).to.have.keys('jsonrpc', 'method', 'params');
        expect((frame.params as Json).result).to.equal(1);
        expect(this.live).to.include((frame.params as Json).subscription);
        notifications += 1;
        continue;
      }
      const objects = Array.isArray(frame) ? frame : [frame];
      expect(objects.length, `an empty answer array: ${text}`).to.be.greaterThan(0);
      let isSentinel = false;
      for (const o of objects) {
        expect(validateResponse(o), `not a JSON-RPC answer: ${text.slice(0, 300)}`).to.equal(true);
        const answer = o as Json;
        if (answer.id === sentinel) {
          isSentinel = true;
          continue;
        }
        const mine = typeof answer.id === 'string' ? expected.get(answer.id) : undefined;
        if (mine === undefined) continue;
        expected.delete(answer.id as string);
        subscribed += this.check(mine.call, mine.unsubscribing, answer, limited);
      }
      if (isSentinel) {
        expect(objects, 'the sentinel is answered alone').to.have.length(1);
        sentinelSeen = true;
      } else {
        answers += 1;
      }
    }
    expect(answers, 'answers owed by the model').to.equal(owedAnswers);
    expect([...expected.keys()], 'calls with an id left unanswered').to.deep.equal([]);
  }

  /** The call's wire object; a call with an id is recorded with what it must get. */
  private render(
    call: GenCall,
    expected: Map<string, { call: GenCall; unsubscribing: number | undefined }>,
    picked: Set<number>,
  ): Json {
    let params = call.params;
    let unsubscribing: number | undefined;
    if (call.method === 'valueUnsubscribe' && call.valid) {
      // A notification may only name an id nobody holds (nothing would tell the model it
      // ended), and a live id is named once a run (answers of one run may come in any order).
      const free = call.withId && call.pick !== undefined ? this.live.filter((id) => !picked.has(id)) : [];
      unsubscribing = free.length > 0 ? free[call.pick! % free.length]! : 2 ** 31 + (call.pick ?? 0);
      picked.add(unsubscribing);
      params = [unsubscribing];
    }
    const object: Json = { jsonrpc: '2.0', method: call.method };
    if (params !== undefined) object.params = params;
    if (call.withId) {
      const id = `#${this.nextId++}`;
      object.id = id;
      expected.set(id, { call, unsubscribing });
    }
    return object;
  }

  /** Checks a generated call's answer; returns 1 when it opened a subscription (a notification follows). */
  private check(call: GenCall, unsubscribing: number | undefined, answer: Json, limited: boolean): number {
    const code = isObject(answer.error) ? causeOf(answer.error as { code: number }) : undefined;
    if (limited && code === -32051) return 0;
    if (!call.valid) {
      if (call.method === 'nope') expect(code).to.equal(-32601);
      else if (call.method === 'valueSubscribe' && code === undefined) return this.subscribed(answer.result);
      return 0;
    }
    switch (call.method) {
      case 'echo':
        expect(answer.result).to.deep.equal(JSON.parse(JSON.stringify(call.params)));
        return 0;
      case 'sum': {
        const [a, b] = call.params as [number, number];
        expect(answer.result).to.equal(a + b);
        return 0;
      }
      case 'valueSubscribe':
        if (code !== undefined) {
          expect(answer.error, 'a subscribe is refused only over the per-connection limit').to.deep.include({
            code: -32054,
            data: { limit: MAX_SUBSCRIPTIONS_PER_CONNECTION, per: 'connection' },
          });
          return 0;
        }
        return this.subscribed(answer.result);
      case 'valueUnsubscribe': {
        const at = this.live.indexOf(unsubscribing!);
        if (answer.result === true) {
          expect(at, 'only a live id is ended').to.be.at.least(0);
          this.live.splice(at, 1);
        } else {
          expect(code).to.equal(-32602);
          expect(at, 'a live id is always ended').to.equal(-1);
        }
        return 0;
      }
      default:
        return 0;
    }
  }

  private subscribed(result: unknown): number {
    expect(result).to.be.a('number');
    this.live.push(result as number);
    return 1;
  }
}

// ---------------------------------------------------------------------------------------------

describe('core fuzzing over WebSocket (property-based, 100,000 messages)', function () {
  this.timeout(300_000);

  async function fuzz(options: RpcOptions, total: number, limited: boolean, heap?: { warm?: number }) {
    const { plugin } = fuzzPlugin();
    const s: SocketServed = await serveSockets({
      plugins: [plugin],
      websocket: {
        maxMessageBytes: MAX_MESSAGE_BYTES,
        maxSubscriptionsPerConnection: MAX_SUBSCRIPTIONS_PER_CONNECTION,
      },
      ...options,
    });
    let conn = await Fuzzed.open(s.ws);
    let sent = 0;
    try {
      const runs = Math.ceil(total / PER_RUN);
      await fc.assert(
        fc.asyncProperty(
          fc.array(message, { minLength: PER_RUN, maxLength: PER_RUN }),
          fc.nat(19),
          async (messages, reconnect) => {
            await conn.run(messages, limited);
            sent += messages.length;
            // The server holds exactly the subscriptions the answers named: none opened unseen.
            expect(s.rpc.subscriptions.active, 'live subscriptions').to.equal(conn.live.length);
            expect(conn.live.length).to.be.at.most(MAX_SUBSCRIPTIONS_PER_CONNECTION);
            // Not where the budget runs out: a new upgrade would be refused (429) like any request.
            if (reconnect === 0 && !limited) {
              await conn.socket.close();
              await waitFor(
                () => s.rpc.subscriptions.active === 0,
                'a closed socket frees its subscriptions',
              );
              conn = await Fuzzed.open(s.ws);
            }
            if (heap !== undefined && heap.warm === undefined && sent >= total / 10)
              heap.warm = heapAfterGc();
          },
        ),
        { numRuns: runs, endOnFailure: true },
      );
    } finally {
      await conn.socket.close();
    }
    await waitFor(() => s.sockets.connectionCount === 0, 'every socket closed');
    await waitFor(() => s.rpc.subscriptions.active === 0, 'every subscription freed');
    await s.close();
    return sent;
  }

  it('answers every frame per the contract, opens no subscription unseen, and frees everything', async () => {
    const heap: { warm?: number } = {};
    let sent = await fuzz({}, MESSAGES * (1 - LIMITED_SHARE), false, heap);
    // Refusals too: a budget that runs out part way through.
    sent += await fuzz(
      { rateLimit: { points: 5000, durationSeconds: 3600 } },
      MESSAGES * LIMITED_SHARE,
      true,
    );
    expect(sent).to.be.at.least(MESSAGES);
    const grown = heapAfterGc() - heap.warm!;
    expect(grown, `heap grew ${grown} bytes after warm-up`).to.be.below(HEAP_GROWTH_BOUND);
  });

  it('a text frame that is not UTF-8 closes its socket with 1007, a frame over the limit with 1009; nothing is left behind', async () => {
    const { plugin } = fuzzPlugin();
    const s = await serveSockets({ plugins: [plugin], websocket: { maxMessageBytes: MAX_MESSAGE_BYTES } });
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(message, { maxLength: 10 }),
          fc.oneof(
            fc
              .constantFrom(...INVALID_UTF8)
              .map((bad) => ({ code: 1007, frame: Buffer.from([0x22, ...bad, 0x22]) })),
            fc.integer({ min: MAX_MESSAGE_BYTES + 1, max: MAX_MESSAGE_BYTES * 2 }).map((n) => ({
              code: 1009,
              frame: Buffer.alloc(n, 0x20),
            })),
          ),
          async (before, bad) => {
            const conn = await Fuzzed.open(s.ws);
            await conn.run(before, false);
            conn.socket.send(bad.frame, false);
            expect((await conn.socket.closed).code).to.equal(bad.code);
            await waitFor(() => s.sockets.connectionCount === 0, 'the socket is gone');
            await waitFor(() => s.rpc.subscriptions.active === 0, 'its subscriptions are freed');
          },
        ),
        { numRuns: 150, endOnFailure: true },
      );
    } finally {
      await s.close();
    }
  });
});
