// Solana's wire error policy (wire-errors.ts), against @solana/kit's own table in its
// development build: every error a Solana service can send must come out as a SolanaError.
import { expect } from 'chai';
import * as kitErrors from '@solana/kit';
import { createLogger, createRpc, ErrorCode, ErrorInfo } from '@rollup-router/core';
import { SOLANA_CLIENT_CODES, solanaWireErrors } from '@rollup-router/solana';

const wireError = solanaWireErrors.toWire;

/** The JSON-RPC codes kit's error table has a message for. */
const kitJsonRpcCodes = Object.entries(kitErrors)
  .filter(([name]) => name.startsWith('SOLANA_ERROR__JSON_RPC__'))
  .map(([, code]) => code as number);

/** What kit's development build makes of an error object, as its transports do. */
function kitReads(error: { code: number; message: string; data?: unknown }): Error {
  const previous = process.env.NODE_ENV;
  delete process.env.NODE_ENV;
  try {
    return kitErrors.getSolanaErrorFromJsonRpcError(error);
  } finally {
    if (previous !== undefined) process.env.NODE_ENV = previous;
  }
}

describe("Solana's wire error policy (solanaWireErrors)", () => {
  it("the codes sent as they are are exactly kit's JSON-RPC table", () => {
    expect([...SOLANA_CLIENT_CODES].sort()).to.deep.equal([...kitJsonRpcCodes].sort());
  });

  it('a code clients know goes unchanged, data and all', () => {
    const error = { code: -32602, message: 'Invalid params', data: { path: '/params/0', rule: 'type' } };
    expect(wireError(error)).to.equal(error);
    const preflight = {
      code: -32002,
      message: 'Transaction simulation failed',
      data: { err: null, logs: [] },
    };
    expect(wireError(preflight)).to.equal(preflight);
  });

  it("any other code goes as -32603 with our message, the code in data.code beside data's keys", () => {
    expect(
      wireError({ code: -32051, message: 'Too many requests', data: { retryAfterSeconds: 3 } }),
    ).to.deep.equal({
      code: -32603,
      message: 'Too many requests',
      data: { code: -32051, retryAfterSeconds: 3 },
    });
    expect(wireError({ code: -32053, message: 'Server is shutting down' })).to.deep.equal({
      code: -32603,
      message: 'Server is shutting down',
      data: { code: -32053 },
    });
  });

  it('data that is no plain object, or has a code of its own, goes in data.detail', () => {
    const detail = (data: unknown) => wireError({ code: -32000, message: 'Upstream says no', data }).data;
    expect(detail('a text')).to.deep.equal({ code: -32000, detail: 'a text' });
    expect(detail([1, 2])).to.deep.equal({ code: -32000, detail: [1, 2] });
    expect(detail(null)).to.deep.equal({ code: -32000, detail: null });
    expect(detail({ code: 'E1', why: 'x' })).to.deep.equal({
      code: -32000,
      detail: { code: 'E1', why: 'x' },
    });
  });

  it('-32002 without an object in data (kit would throw destructuring it) goes as -32603', () => {
    expect(wireError({ code: -32002, message: 'Transaction simulation failed' })).to.deep.equal({
      code: -32603,
      message: 'Transaction simulation failed',
      data: { code: -32002 },
    });
  });

  it("kit's development build reads every code the core declares as a SolanaError carrying our message", () => {
    for (const [code, { message }] of Object.entries(ErrorInfo)) {
      const read = kitReads(wireError({ code: Number(code), message, data: { any: 1 } }));
      expect(kitErrors.isSolanaError(read), `${code}: ${read.message}`).to.equal(true);
      expect(read.message, String(code)).to.include(message);
    }
  });

  it('without the rule, kit throws a TypeError on our codes (the reason for it)', () => {
    expect(() => kitReads({ code: ErrorCode.RATE_LIMITED, message: 'Too many requests' })).to.throw(
      TypeError,
    );
  });

  it('the dispatcher sends a handler error through the policy; its call is still observed under its own code', async () => {
    const rpc = createRpc({
      logger: createLogger({ level: 'silent' }),
      wireErrors: solanaWireErrors,
      limits: { callDeadlineMs: 1 },
      methods: [{ name: 'slow', handler: () => new Promise((resolve) => setTimeout(resolve, 50)) }],
    });
    const codes: number[] = [];
    rpc.onCall((event) => codes.push(event.code));
    const answer = JSON.parse((await rpc.dispatch('{"jsonrpc":"2.0","id":7,"method":"slow"}'))!) as unknown;
    expect(answer).to.deep.equal({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Deadline exceeded', data: { code: -32052, deadlineMs: 1 } },
      id: 7,
    });
    // Observers run once the answer is on its way: the turn after it was made.
    await new Promise(setImmediate);
    expect(codes).to.deep.equal([-32052]);
  });
});
