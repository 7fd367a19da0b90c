// Which upstream answered, as a user and an operator see it, through the built server:
// the x-rollup-router-upstream header of a single HTTP call, the call's log line and the
// metrics, for a base-chain read and an ER-routed read (the base-chain stand-in holds the
// delegation record; validator B is the ER, behind a recording pass-through). And the
// operator's switch: requestAirdrop switched off answers -32055 over HTTP, in a batch and
// over WebSocket, and never reaches the chain.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DelegationChain, VALIDATOR_A } from '@rollup-router/test-support/delegation-chain';
import { validatorBIdentity } from '@rollup-router/test-support/mdp';
import { newIdentity, randomSignature } from '@rollup-router/test-support/solana';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { causeOf } from '@rollup-router/test-support/wire-error';
import { TestSocket } from '@rollup-router/test-support/ws-client';
import { get, rpc, sample, serveWith, tempDir, type RpcReply, type ServerProcess } from './server.harness.js';

const B_URL = 'http://127.0.0.1:18899';
const UPSTREAM = 'x-rollup-router-upstream';

describe('delegation router: provenance of each answer, and a method switched off', function () {
  this.timeout(60_000);
  let base: DelegationChain;
  let er: DelegationChain;
  let server: ServerProcess;
  let dir: ReturnType<typeof tempDir>;
  let b: string;

  before(async function () {
    await skipUnlessValidatorA(this, VALIDATOR_A);
    b = await validatorBIdentity();
    base = await DelegationChain.start(VALIDATOR_A);
    er = await DelegationChain.start(B_URL);
    dir = tempDir();
    server = await serveWith(dir.dir, {
      routes: {
        routes: [{ identity: b, fqdn: er.url, baseFee: 0, blockTimeMs: 50, countryCode: 'DEU' }],
        allowInsecure: true,
      },
      delegation: {
        baseChain: { url: base.url, wsUrl: base.wsUrl },
        delegations: { ttlMs: 600_000, followedTtlMs: 600_000 },
      },
      statuses: { store: false },
      websocket: { port: false }, // the upgrade on the HTTP port
      perMethod: { requestAirdrop: { enabled: false }, getProgramAccounts: { cost: 10 } },
    });
  });
  after(async () => {
    await server?.kill();
    dir?.remove();
    await base?.close();
    await er?.close();
  });

  /** One call with its own request id; its answer, and the request id to find its log line by. */
  const call = async (method: string, params: unknown): Promise<{ reply: RpcReply; reqId: string }> => {
    const reqId = randomUUID();
    const reply = await rpc(
      `${server.base}/`,
      { jsonrpc: '2.0', id: 1, method, params },
      { 'x-request-id': reqId },
    );
    return { reply, reqId };
  };

  /** The call's log line (written once its answer is on its way). */
  const callLine = (reqId: string): Promise<Record<string, unknown>> =>
    waitFor(
      () => server.logs().find((l) => l.msg === 'call' && l.reqId === reqId),
      `the log line of request ${reqId}`,
    );

  it('a read of an undelegated account names base-chain: in the header and the log line', async () => {
    const { reply, reqId } = await call('getBalance', [newIdentity()]);
    expect(reply.json, JSON.stringify(reply.json)).to.have.property('result');
    expect(reply.headers.get(UPSTREAM)).to.equal('base-chain');
    expect(await callLine(reqId)).to.deep.include({ method: 'getBalance', code: 0, upstream: 'base-chain' });
  });

  it('a read of a delegated account names its ER by its label: in the header and the log line', async () => {
    const account = newIdentity();
    await base.delegate(account, b);
    const { reply, reqId } = await call('getBalance', [account]);
    expect(reply.json).to.deep.include({
      result: (er.passedThrough.get('getBalance') as { result: unknown }).result,
    });
    expect(reply.headers.get(UPSTREAM)).to.equal(`er:${b}`);
    expect(await callLine(reqId)).to.deep.include({ method: 'getBalance', upstream: `er:${b}` });
  });

  it("a merged answer names both chains; a batch carries no header, its calls' log lines name theirs", async () => {
    const delegated = newIdentity();
    await base.delegate(delegated, b);
    const { reply, reqId } = await call('getMultipleAccounts', [
      [newIdentity(), delegated],
      { encoding: 'base64' },
    ]);
    expect(reply.json).to.have.property('result');
    expect(reply.headers.get(UPSTREAM)!.split(', ').sort()).to.deep.equal(['base-chain', `er:${b}`].sort());
    expect(
      String((await callLine(reqId)).upstream)
        .split(',')
        .sort(),
    ).to.deep.equal(['base-chain', `er:${b}`].sort());

    const batchId = randomUUID();
    const batch = await rpc(
      `${server.base}/`,
      [
        { jsonrpc: '2.0', id: 1, method: 'getBalance', params: [delegated] },
        { jsonrpc: '2.0', id: 2, method: 'getSlot' },
      ],
      { 'x-request-id': batchId },
    );
    expect(batch.status).to.equal(200);
    expect(batch.headers.get(UPSTREAM)).to.equal(null);
    const lines = await waitFor(() => {
      const found = server.logs().filter((l) => l.msg === 'call' && l.reqId === batchId);
      return found.length === 2 ? found : undefined;
    }, 'both log lines of the batch');
    const byMethod = Object.fromEntries(lines.map((l) => [l.method, l.upstream]));
    expect(byMethod).to.deep.equal({ getBalance: `er:${b}`, getSlot: 'base-chain' });
  });

  /** The labels the header and the call's log line name, each sorted. */
  const named = async (reply: RpcReply, reqId: string): Promise<{ header: string[]; line: string[] }> => ({
    header: (reply.headers.get(UPSTREAM) ?? '').split(', ').sort(),
    line: String((await callLine(reqId)).upstream)
      .split(',')
      .sort(),
  });

  it("getProgramAccounts: a program's list with a delegated account names both chains; one without names base-chain", async () => {
    const program = newIdentity();
    const account = newIdentity();
    await base.delegateProgramAccount(account, b, program, new Uint8Array(8));
    er.putAccount(account, new Uint8Array(8).fill(5), program);
    const both = ['base-chain', `er:${b}`].sort();
    const merged = await call('getProgramAccounts', [program, { encoding: 'base64' }]);
    expect(merged.reply.json, JSON.stringify(merged.reply.json)).to.have.property('result');
    expect(await named(merged.reply, merged.reqId)).to.deep.equal({ header: both, line: both });

    const plain = await call('getProgramAccounts', [newIdentity(), { encoding: 'base64' }]);
    expect(plain.reply.json, JSON.stringify(plain.reply.json)).to.deep.include({ result: [] });
    expect(await named(plain.reply, plain.reqId)).to.deep.equal({
      header: ['base-chain'],
      line: ['base-chain'],
    });
  });

  it("getSignaturesForAddress: a delegated account's list names both chains; an undelegated one names base-chain", async () => {
    const address = newIdentity();
    er.histories.set(address, [
      {
        signature: randomSignature(),
        slot: 900,
        err: null,
        memo: null,
        blockTime: 1_700_000_000,
        confirmationStatus: 'finalized',
      },
    ]);
    await base.delegate(address, b);
    const both = ['base-chain', `er:${b}`].sort();
    const merged = await call('getSignaturesForAddress', [address, { limit: 5 }]);
    expect(merged.reply.json, JSON.stringify(merged.reply.json)).to.have.property('result');
    expect(await named(merged.reply, merged.reqId)).to.deep.equal({ header: both, line: both });

    const plain = await call('getSignaturesForAddress', [newIdentity(), { limit: 5 }]);
    expect(plain.reply.json, JSON.stringify(plain.reply.json)).to.deep.include({ result: [] });
    expect(await named(plain.reply, plain.reqId)).to.deep.equal({
      header: ['base-chain'],
      line: ['base-chain'],
    });
  });

  it('metrics count answered calls by method and upstream label', async () => {
    const metrics = (await get(`${server.base}/metrics`)).text;
    const answered = (method: string, upstream: string) =>
      sample(metrics, `rollup_router_calls_by_upstream_total{method="${method}",upstream="${upstream}"}`) ??
      0;
    expect(answered('getBalance', 'base-chain')).to.be.at.least(1);
    expect(answered('getBalance', `er:${b}`)).to.be.at.least(2);
    expect(answered('getSlot', 'base-chain')).to.be.at.least(1);
    for (const method of ['getProgramAccounts', 'getSignaturesForAddress']) {
      expect(answered(method, 'base-chain'), method).to.be.at.least(2);
      expect(answered(method, `er:${b}`), method).to.be.at.least(1);
    }
  });

  it('requestAirdrop switched off answers -32055 over HTTP, in a batch and over WebSocket, and never reaches the chain', async () => {
    const params = [newIdentity(), 1_000_000];
    const { reply } = await call('requestAirdrop', params);
    expect(reply.status).to.equal(200);
    const error = reply.json.error as { code: number; message: string; data: unknown };
    expect(causeOf(error)).to.equal(-32055);
    expect(error.message).to.equal('Method switched off');
    expect(reply.headers.get(UPSTREAM)).to.equal(null);

    const batch = await rpc(`${server.base}/`, [
      { jsonrpc: '2.0', id: 1, method: 'requestAirdrop', params },
      { jsonrpc: '2.0', id: 2, method: 'getSlot' },
    ]);
    const [off, slot] = batch.json as unknown as { id: number; result?: unknown; error?: { code: number } }[];
    expect(causeOf(off!.error)).to.equal(-32055);
    expect(slot!.result).to.be.a('number');

    const socket = await TestSocket.open(`${server.base.replace('http', 'ws')}/`);
    try {
      const overSocket = await socket.call('requestAirdrop', params, 5);
      expect(overSocket.id).to.equal(5);
      expect(causeOf(overSocket.error)).to.equal(-32055);
    } finally {
      await socket.close();
    }
    expect(base.methods).not.to.include('requestAirdrop');
  });
});
