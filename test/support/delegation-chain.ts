// A base-chain stand-in for the delegated path (also, with no records, a recording
// pass-through in front of validator B): the offline peers have no delegation
// program, so this real HTTP server on loopback answers getAccountInfo and
// getMultipleAccounts for delegation records (bytes per the program's layout) and passes
// every other call, and every other account, through to validator A.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { freePortPair } from './reusable-port.js';
import { address, getBase58Decoder, getBase58Encoder } from '@solana/kit';
import {
  DELEGATION_PROGRAM_ID,
  delegationRecordAddress,
  encodeDelegationRecord,
  type DelegationRecord,
} from '@rollup-router/delegation-router';

export const VALIDATOR_A = 'http://127.0.0.1:17799';

/**
 * The rentEpoch of a rent-exempt account, as Agave writes it: u64::MAX, which no JavaScript
 * number holds, so the stand-in writes a mark and puts the number's text in its place.
 */
export const U64_MAX = '18446744073709551615';
const U64_MAX_MARK = 'u64::MAX';
const withU64 = (json: string): string => json.replaceAll(`"${U64_MAX_MARK}"`, U64_MAX);

interface StoredAccount {
  readonly data: Uint8Array;
  readonly owner: string;
}

type Rpc = { id?: unknown; method?: string; params?: unknown[] };

/** The part of an account read's config the stand-in honours. */
type ReadConfig = { encoding?: string; dataSlice?: { offset: number; length: number } } | undefined;

type Filter = { dataSize?: number; memcmp?: { offset: number; bytes: string } };

/** An entry of getSignaturesForAddress, as Agave writes it. */
export interface SignatureEntry {
  readonly signature: string;
  readonly slot: number;
  readonly err: null;
  readonly memo: null;
  readonly blockTime: number;
  readonly confirmationStatus: 'finalized';
}

const base58Text = getBase58Decoder();
const base58Bytes = getBase58Encoder();

export class DelegationChain {
  /** Record PDA → the account the stand-in holds there. */
  private readonly accounts = new Map<string, StoredAccount>();
  /** The method of every request, in order. */
  readonly methods: string[] = [];
  /** The last reply passed through, by method (what the node behind answered, as it answered). */
  readonly passedThrough = new Map<string, unknown>();
  /** Methods answered with a fixed result instead of passed through (an ER that no longer has a transaction). */
  readonly fixedResults = new Map<string, unknown>();
  /** How many keys each getMultipleAccounts asked for. */
  readonly multipleAccountsSizes: number[] = [];
  /** The params of every call, by method, in order. */
  readonly paramsOf = new Map<string, unknown[][]>();
  /** Addresses whose history this stand-in holds (newest first), answered instead of passed through. */
  readonly histories = new Map<string, SignatureEntry[]>();
  private server!: http.Server;
  private sockets!: WebSocketServer;
  /** accountSubscribe subscriptions: id → the socket and the account followed. */
  private readonly subscriptions = new Map<number, { socket: WebSocket; pubkey: string }>();
  /** logsSubscribe subscriptions: id → the socket and the account its filter mentions ('all' for the others). */
  private readonly logSubscriptions = new Map<number, { socket: WebSocket; mentions: string }>();
  /** programSubscribe subscriptions: id → the socket, the program and the call's config (filters, slice). */
  private readonly programSubscriptions = new Map<
    number,
    { socket: WebSocket; program: string; config: (ReadConfig & { filters?: Filter[] }) | undefined }
  >();
  private nextSubscription = 1;
  private slot = 1;
  /** accountSubscribe calls received, by pubkey (refused ones included). */
  private readonly subscribeCalls = new Map<string, number>();
  /** Accounts whose accountSubscribe is answered with this error instead of an id. */
  private readonly refusals = new Map<string, { code: number; message: string }>();
  /** Most accountSubscribe subscriptions one socket may hold (a provider's cap); past it they are refused. */
  maxSubscriptionsPerSocket = Infinity;
  url = '';
  /** The websocket endpoint: accountSubscribe and accountUnsubscribe, notified on every change made here. */
  wsUrl = '';

  private constructor(private readonly passThrough: string | undefined) {}

  /**
   * `wsAtNextPort`: the websocket listens at the HTTP port + 1, where a client that has
   * only the HTTP URL looks for it (an ER of the route table is named by its HTTP URL).
   */
  static async start(
    passThrough: string | undefined = VALIDATOR_A,
    { wsAtNextPort = false } = {},
  ): Promise<DelegationChain> {
    const chain = new DelegationChain(passThrough);
    const port = wsAtNextPort ? await freePortPair() : 0;
    chain.server = http.createServer((req, res) => void chain.answer(req, res));
    await new Promise<void>((resolve) => chain.server.listen(port, '127.0.0.1', resolve));
    chain.url = `http://127.0.0.1:${(chain.server.address() as AddressInfo).port}`;
    chain.sockets = new WebSocketServer({ port: wsAtNextPort ? port + 1 : 0, host: '127.0.0.1' });
    await new Promise<void>((resolve) => chain.sockets.once('listening', resolve));
    chain.wsUrl = `ws://127.0.0.1:${(chain.sockets.address() as AddressInfo).port}`;
    chain.sockets.on('connection', (socket) => {
      socket.on('message', (m) => chain.onSocketMessage(socket, String(m)));
      // A validator forgets a connection's subscriptions with it.
      socket.on('close', () => {
        for (const [id, held] of chain.subscriptions)
          if (held.socket === socket) chain.subscriptions.delete(id);
        for (const [id, held] of chain.logSubscriptions)
          if (held.socket === socket) chain.logSubscriptions.delete(id);
        for (const [id, held] of chain.programSubscriptions)
          if (held.socket === socket) chain.programSubscriptions.delete(id);
      });
    });
    return chain;
  }

  /** Delegates `account` to `authority`: writes its record as the program does. */
  async delegate(account: string, authority: string, over: Partial<DelegationRecord> = {}): Promise<string> {
    const record: DelegationRecord = {
      authority: address(authority),
      owner: address('11111111111111111111111111111111'),
      delegationSlot: 42n,
      lamports: 1_000_000n,
      commitFrequencyMs: 30_000n,
      ...over,
    };
    return this.put(account, encodeDelegationRecord(record));
  }

  /** Puts raw bytes at the record PDA of `account` (unreadable records). */
  async put(account: string, data: Uint8Array, owner = DELEGATION_PROGRAM_ID): Promise<string> {
    const pda = await delegationRecordAddress(address(account), address(DELEGATION_PROGRAM_ID));
    this.accounts.set(pda, { data, owner });
    this.notify(pda);
    // A new slot only when someone watches the records: tests count this chain's slots.
    if (owner === DELEGATION_PROGRAM_ID && this.programSubscriptionsOf(DELEGATION_PROGRAM_ID) > 0)
      this.notifyProgram(DELEGATION_PROGRAM_ID, pda);
    return pda;
  }

  /** How many programSubscribe subscriptions of `program` are open. */
  programSubscriptionsOf(program: string): number {
    return [...this.programSubscriptions.values()].filter((s) => s.program === program).length;
  }

  /**
   * A write of `pubkey` (held here, or put now with `data`, owned by `program`): a
   * programNotification to every subscriber of `program` whose filters it passes, sliced and
   * encoded as each asked, at a new slot.
   */
  notifyProgram(program: string, pubkey: string, data?: Uint8Array): { slot: number } {
    if (data !== undefined) this.accounts.set(pubkey, { data, owner: program });
    const held = this.accounts.get(pubkey);
    const slot = ++this.slot;
    for (const [subscription, { socket, program: followed, config }] of this.programSubscriptions) {
      if (followed !== program || held === undefined || !passesFilters(held.data, config?.filters)) continue;
      const value = { pubkey, account: this.encoded(pubkey, config) };
      socket.send(
        withU64(
          JSON.stringify({
            jsonrpc: '2.0',
            method: 'programNotification',
            params: { result: { context: { slot }, value }, subscription },
          }),
        ),
      );
    }
    return { slot };
  }

  /** How many accountSubscribe subscriptions of `pubkey` are open. */
  subscriptionsOf(pubkey: string): number {
    return [...this.subscriptions.values()].filter((s) => s.pubkey === pubkey).length;
  }

  /** How many accountSubscribe calls named `pubkey` (refused ones included). */
  subscribeCallsOf(pubkey: string): number {
    return this.subscribeCalls.get(pubkey) ?? 0;
  }

  /** From now on, accountSubscribe of `pubkey` is answered with `error` (undefined: served again). */
  refuseSubscriptionsOf(pubkey: string, error: { code: number; message: string } | undefined): void {
    if (error === undefined) this.refusals.delete(pubkey);
    else this.refusals.set(pubkey, error);
  }

  /** Closes every websocket connection cleanly (1000, as a node going away politely may). */
  closeSockets(): void {
    for (const socket of this.sockets.clients) socket.close(1000, 'bye');
  }

  /** Cuts every websocket connection, as a restarting node does; clients reconnect. */
  dropSockets(): void {
    for (const socket of this.sockets.clients) socket.terminate();
  }

  /**
   * accountNotification of `value` (its JSON text, sent as it is: u64 fields such as
   * 18446744073709551615 that JavaScript numbers cannot hold) to every subscriber of `pubkey`.
   */
  notifyAccountText(pubkey: string, value: string): { slot: number } {
    const slot = ++this.slot;
    for (const [subscription, { socket, pubkey: followed }] of this.subscriptions) {
      if (followed !== pubkey) continue;
      socket.send(
        `{"jsonrpc":"2.0","method":"accountNotification","params":{"result":{"context":{"slot":${slot}},"value":${value}},"subscription":${subscription}}}`,
      );
    }
    return { slot };
  }

  /** How many logsSubscribe subscriptions whose filter mentions `account` are open. */
  logSubscriptionsOf(account: string): number {
    return [...this.logSubscriptions.values()].filter((s) => s.mentions === account).length;
  }

  /**
   * A transaction that mentions `account` landed here: logsNotification of it to every
   * logsSubscribe subscriber that mentions `account` (or takes all), at a new slot.
   */
  notifyLogs(account: string, signature: string, logs: readonly string[]): { slot: number } {
    const slot = ++this.slot;
    for (const [subscription, { socket, mentions }] of this.logSubscriptions) {
      if (mentions !== account && mentions !== 'all') continue;
      socket.send(
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'logsNotification',
          params: { result: { context: { slot }, value: { signature, err: null, logs } }, subscription },
        }),
      );
    }
    return { slot };
  }

  /** How many accountSubscribe subscriptions are open. */
  get subscriptionCount(): number {
    return this.subscriptions.size;
  }

  /**
   * An address lookup table at `table` holding `addresses`, laid out as the ALT program
   * stores it: 56 bytes of metadata (type 1 = LookupTable as a u32, deactivation slot
   * u64::MAX = active, the rest zero), then the addresses.
   */
  putLookupTable(table: string, addresses: readonly Uint8Array[]): void {
    const data = new Uint8Array(56 + 32 * addresses.length);
    const view = new DataView(data.buffer);
    view.setUint32(0, 1, true);
    view.setBigUint64(4, 2n ** 64n - 1n, true);
    addresses.forEach((a, i) => data.set(a, 56 + 32 * i));
    this.accounts.set(table, { data, owner: 'AddressLookupTab1e1111111111111111111111111' });
  }

  /** Undelegates: the record account is closed, and the account, if held here, goes back to its program. */
  async undelegate(account: string): Promise<void> {
    const pda = await delegationRecordAddress(address(account), address(DELEGATION_PROGRAM_ID));
    this.accounts.delete(pda);
    if (this.accounts.get(account)?.owner === DELEGATION_PROGRAM_ID) this.accounts.delete(account);
    this.notify(pda);
  }

  /** Holds `account` with `data`, owned by `owner` (an ER's copy of a delegated account). */
  putAccount(account: string, data: Uint8Array, owner: string): void {
    this.accounts.set(account, { data, owner });
  }

  /**
   * Delegates `account` of `program` to `authority` as the delegation program does on the
   * base chain: its record names the program as owner, and the account itself, with
   * `data` (its state as of the delegation), is owned by the delegation program.
   */
  async delegateProgramAccount(
    account: string,
    authority: string,
    program: string,
    data: Uint8Array,
  ): Promise<void> {
    this.accounts.set(account, { data, owner: DELEGATION_PROGRAM_ID });
    await this.delegate(account, authority, { owner: address(program) });
  }

  close(): Promise<void> {
    for (const socket of this.sockets.clients) socket.terminate();
    return Promise.all([
      new Promise<void>((resolve) => this.sockets.close(() => resolve())),
      new Promise<void>((resolve) => {
        this.server.close(() => resolve());
        this.server.closeAllConnections();
      }),
    ]).then(() => undefined);
  }

  private onSocketMessage(socket: WebSocket, text: string): void {
    const call = JSON.parse(text) as Rpc;
    const reply = (result: unknown): void =>
      socket.send(JSON.stringify({ jsonrpc: '2.0', result, id: call.id }));
    const refuse = (error: { code: number; message: string }): void =>
      socket.send(JSON.stringify({ jsonrpc: '2.0', error, id: call.id }));
    if (call.method === 'accountSubscribe' && typeof call.params?.[0] === 'string') {
      const pubkey = call.params[0];
      this.subscribeCalls.set(pubkey, this.subscribeCallsOf(pubkey) + 1);
      const refusal = this.refusals.get(pubkey);
      if (refusal !== undefined) return refuse(refusal);
      const held = [...this.subscriptions.values()].filter((s) => s.socket === socket).length;
      if (held >= this.maxSubscriptionsPerSocket) {
        return refuse({ code: -32603, message: `Internal error: subscription limit (${held}) reached` });
      }
      const id = this.nextSubscription++;
      this.subscriptions.set(id, { socket, pubkey: call.params[0] });
      reply(id);
    } else if (call.method === 'accountUnsubscribe') {
      reply(this.subscriptions.delete(Number(call.params?.[0])));
    } else if (call.method === 'logsSubscribe') {
      const filter = call.params?.[0] as string | { mentions?: string[] } | undefined;
      const mentions =
        typeof filter === 'object' ? filter.mentions?.[0] : filter === undefined ? undefined : 'all';
      if (mentions === undefined) return refuse({ code: -32602, message: 'Invalid params' });
      const id = this.nextSubscription++;
      this.logSubscriptions.set(id, { socket, mentions });
      reply(id);
    } else if (call.method === 'logsUnsubscribe') {
      reply(this.logSubscriptions.delete(Number(call.params?.[0])));
    } else if (call.method === 'programSubscribe' && typeof call.params?.[0] === 'string') {
      const id = this.nextSubscription++;
      const config = call.params[1] as (ReadConfig & { filters?: Filter[] }) | undefined;
      this.programSubscriptions.set(id, { socket, program: call.params[0], config });
      reply(id);
    } else if (call.method === 'programUnsubscribe') {
      reply(this.programSubscriptions.delete(Number(call.params?.[0])));
    } else {
      socket.send(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: call.id }),
      );
    }
  }

  /** accountNotification to every subscriber of `pubkey`: the account as it is now (closed: empty, no lamports). */
  private notify(pubkey: string): void {
    this.notifyAccount(
      pubkey,
      this.encoded(pubkey) ?? {
        data: ['', 'base64'],
        executable: false,
        lamports: 0,
        owner: '11111111111111111111111111111111',
        rentEpoch: 0,
        space: 0,
      },
    );
  }

  /** A change of any account on this chain: accountNotification of `value` to every subscriber of `pubkey`, at a new slot. */
  notifyAccount(pubkey: string, value: unknown): { slot: number } {
    const slot = ++this.slot;
    for (const [subscription, { socket, pubkey: followed }] of this.subscriptions) {
      if (followed !== pubkey) continue;
      socket.send(
        withU64(
          JSON.stringify({
            jsonrpc: '2.0',
            method: 'accountNotification',
            params: { result: { context: { slot }, value }, subscription },
          }),
        ),
      );
    }
    return { slot };
  }

  private encoded(pda: string, config?: ReadConfig): unknown {
    const found = this.accounts.get(pda);
    if (!found) return undefined;
    const slice = config?.dataSlice;
    const bytes = slice ? found.data.subarray(slice.offset, slice.offset + slice.length) : found.data;
    const encoding = config?.encoding ?? 'base64';
    return {
      data:
        encoding === 'binary'
          ? base58Text.decode(bytes)
          : encoding === 'base58'
            ? [base58Text.decode(bytes), 'base58']
            : [Buffer.from(bytes).toString('base64'), 'base64'],
      executable: false,
      lamports: 1_559_040,
      owner: found.owner,
      rentEpoch: U64_MAX_MARK,
      space: found.data.length,
    };
  }

  private async answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    let call: Rpc;
    try {
      call = JSON.parse(body) as Rpc;
    } catch {
      call = {};
    }
    this.methods.push(call.method ?? '(not JSON)');
    if (call.method !== undefined) {
      const all = this.paramsOf.get(call.method) ?? this.paramsOf.set(call.method, []).get(call.method)!;
      all.push(call.params ?? []);
    }
    const send = (result: unknown): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(withU64(JSON.stringify({ jsonrpc: '2.0', result, id: call.id })));
    };
    const context = { apiVersion: '2.2.1', slot: this.slot };
    if (call.method === 'getMultipleAccounts' && Array.isArray(call.params?.[0])) {
      const keys = call.params[0] as string[];
      this.multipleAccountsSizes.push(keys.length);
      const mine = keys.map((k) => this.encoded(k, call.params?.[1] as ReadConfig));
      if (mine.every((m) => m !== undefined) || !this.passThrough) {
        send({ context, value: mine.map((m) => m ?? null) });
        return;
      }
      const theirs = (await this.forward(body)) as { result?: { context: unknown; value: unknown[] } };
      this.passedThrough.set(call.method, theirs);
      const value = theirs.result?.value.map((v, i) => mine[i] ?? v);
      // The stand-in's own slot: its notifications count from it.
      send({ context, value });
      return;
    }
    if (call.method === 'getAccountInfo' && typeof call.params?.[0] === 'string') {
      const mine = this.encoded(call.params[0]);
      if (mine !== undefined || !this.passThrough) {
        send({ context, value: mine ?? null });
        return;
      }
    }
    if (call.method === 'getProgramAccounts' && call.params?.[0] === DELEGATION_PROGRAM_ID) {
      send(this.delegationProgramAccounts(call.params[1] as ReadConfig & { filters?: Filter[] }));
      return;
    }
    const history = this.histories.get(call.params?.[0] as string);
    if (call.method === 'getSignaturesForAddress' && history !== undefined) {
      send(listed(history, call.params?.[1] as { limit?: number; before?: string; until?: string }));
      return;
    }
    if (call.method === 'getSignatureStatuses' && Array.isArray(call.params?.[0])) {
      const held = [...this.histories.values()].flat();
      const statuses = (call.params[0] as string[]).map((s) => held.find((e) => e.signature === s));
      if (statuses.some((e) => e !== undefined)) {
        send({
          context,
          value: statuses.map(
            (e) => e && { slot: e.slot, confirmations: null, err: null, confirmationStatus: 'finalized' },
          ),
        });
        return;
      }
    }
    if (call.method !== undefined && this.fixedResults.has(call.method)) {
      send(this.fixedResults.get(call.method));
      return;
    }
    if (!this.passThrough) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: call.id }),
      );
      return;
    }
    // Passed on as the node wrote it: a u64 such as rentEpoch u64::MAX survives.
    const text = await this.forwardText(body);
    this.passedThrough.set(call.method ?? '(not JSON)', JSON.parse(text));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(text);
  }

  /** The delegation program's accounts held here, filtered, sliced and encoded as the call asks. */
  private delegationProgramAccounts(config: (ReadConfig & { filters?: Filter[] }) | undefined): unknown[] {
    return [...this.accounts]
      .filter(([, a]) => a.owner === DELEGATION_PROGRAM_ID && passesFilters(a.data, config?.filters))
      .map(([pubkey]) => ({ pubkey, account: this.encoded(pubkey, config) }));
  }

  private async forward(body: string): Promise<unknown> {
    return JSON.parse(await this.forwardText(body));
  }

  private async forwardText(body: string): Promise<string> {
    const res = await fetch(this.passThrough!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return res.text();
  }
}

/** Whether `data` passes getProgramAccounts' `dataSize` and `memcmp` (base58) filters. */
function passesFilters(data: Uint8Array, filters: readonly Filter[] = []): boolean {
  return filters.every((f) => {
    if (f.dataSize !== undefined) return data.length === f.dataSize;
    const wanted = base58Bytes.encode(f.memcmp!.bytes);
    return wanted.every((b, i) => data[f.memcmp!.offset + i] === b);
  });
}

/** `history` from `before` (exclusive) to `until` (exclusive), `limit` at most, as Agave lists it. */
function listed(
  history: readonly SignatureEntry[],
  config: { limit?: number; before?: string; until?: string } | undefined,
): SignatureEntry[] {
  let from = 0;
  if (config?.before !== undefined) {
    const at = history.findIndex((e) => e.signature === config.before);
    if (at === -1) return [];
    from = at + 1;
  }
  const untilAt = config?.until === undefined ? -1 : history.findIndex((e) => e.signature === config.until);
  const to = untilAt === -1 ? history.length : untilAt;
  return history.slice(from, Math.max(from, to)).slice(0, config?.limit ?? 1000);
}
