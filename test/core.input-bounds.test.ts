// Input length must never drive superlinear work: one body could stall every other client.
import { expect } from 'chai';
import {
  compileSchema,
  createLogger,
  createNodeListener,
  createRpc,
  defineMethod,
} from '@rollup-router/core';
import { base58DecodedLength, pubkeySchema, signatureSchema } from '@rollup-router/solana';
import { signatureStatusesPlugin } from '@rollup-router/signature-statuses';
import { listen, post, type Listening } from '@rollup-router/test-support/http';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';

const VALIDATOR = process.env.VALIDATOR_A_URL ?? 'http://127.0.0.1:17799';
const statusesCall = (signature: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[signature]] });

describe('base58 input bounds', () => {
  it('base58DecodedLength refuses text past its bound before looking at it', () => {
    // Valid base58 all along: only the bound can refuse it, at once (the old code took 54 s on 1 MiB).
    expect(base58DecodedLength('z'.repeat(1 << 20))).to.equal(-1);
    expect(base58DecodedLength('z'.repeat(257))).to.equal(-1);
  });

  it('the signature and public key schemas bound the length: one past the bound is WrongSize', () => {
    for (const [schema, max] of [
      [signatureSchema, 88],
      [pubkeySchema, 44],
    ] as const) {
      const validate = compileSchema(schema);
      // 'z' repeated is the largest value of its length: at the bound it is too big but
      // measured; past the bound it is refused by length alone. Both are Agave's WrongSize.
      for (const length of [max, max + 1]) {
        expect(validate('z'.repeat(length))).to.equal(false);
        expect(validate.failure().rule).to.equal('base58Bytes');
        expect(validate.failure().params.reason).to.equal('WrongSize');
      }
      expect(validate('0'.repeat(max)), 'not base58').to.equal(false);
      expect(validate.failure().params.reason).to.equal('Invalid');
    }
  });

  it('a base58Bytes keyword on its own calls over-long text WrongSize without measuring it', () => {
    const validate = compileSchema({ type: 'string', base58Bytes: 64 });
    expect(validate('z'.repeat(1_000_000))).to.equal(false);
    expect(validate.failure().params.reason).to.equal('WrongSize');
  });
});

describe('getSignatureStatuses with an over-long signature', () => {
  let server: Listening;
  before(async () => {
    const rpc = createRpc({
      logger: createLogger({ level: 'silent' }),
      plugins: [signatureStatusesPlugin({ upstreams: [{ url: VALIDATOR }] })],
      methods: [defineMethod<[], string>({ name: 'ping', handler: () => 'pong' })],
    });
    await rpc.start();
    server = await listen(createNodeListener(rpc));
  });
  after(() => server.close());

  it("answers Agave's own error for it, as the real validator does", async function () {
    await skipUnlessValidatorA(this, VALIDATOR);
    const longish = '5'.repeat(120);
    const agave = JSON.parse((await post(VALIDATOR, statusesCall(longish))).text);
    const ours = JSON.parse((await post(server.url, statusesCall(longish))).text);
    expect(agave.error).to.deep.equal({ code: -32602, message: 'Invalid param: WrongSize' });
    expect(ours.error).to.deep.equal(agave.error);
  });

  it('answers a 1 MB signature with WrongSize while serving other calls', async () => {
    const [huge, ping] = await Promise.all([
      post(server.url, statusesCall('z'.repeat(1_000_000))),
      post(server.url, '{"jsonrpc":"2.0","id":2,"method":"ping"}'),
    ]);
    expect(JSON.parse(huge.text).error).to.deep.equal({ code: -32602, message: 'Invalid param: WrongSize' });
    expect(ping.text).to.equal('{"jsonrpc":"2.0","result":"pong","id":2}');
  });
});
