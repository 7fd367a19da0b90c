import { expect } from 'chai';
import {
  createLogger,
  createRpc,
  defineErrors,
  defineMethod,
  definePlugin,
  ErrorCode,
  RpcError,
} from '@rollup-router/core';

const silent = createLogger({ level: 'silent' });
const Errors = defineErrors({
  STORE_DOWN: { code: -32070, message: 'Store down', meaning: 'the store did not answer' },
});
const storePlugin = definePlugin({
  name: 'store',
  errors: Object.values(Errors),
  methods: [
    defineMethod<[], never>({
      name: 'getThing',
      handler: () => {
        throw RpcError.from(Errors.STORE_DOWN, { retry: true });
      },
    }),
  ],
});

describe('error codes declared by plugins', () => {
  it('a declared code is answered as it is, with its declared message', async () => {
    const rpc = createRpc({ logger: silent, plugins: [storePlugin] });
    expect(await rpc.dispatch('{"jsonrpc":"2.0","id":1,"method":"getThing"}')).to.equal(
      '{"jsonrpc":"2.0","error":{"code":-32070,"message":"Store down","data":{"retry":true}},"id":1}',
    );
  });

  it('two plugins declaring one code are an error when the service is built, naming both', () => {
    const other = definePlugin({
      name: 'other',
      errors: [{ code: -32070, message: 'Other', meaning: 'another thing' }],
    });
    expect(() => createRpc({ logger: silent, plugins: [storePlugin, other] })).to.throw(
      'error code -32070 is declared by both plugin "store" and plugin "other"',
    );
  });

  it("a plugin may not take one of JSON-RPC's or the core's codes", () => {
    const greedy = definePlugin({
      name: 'greedy',
      errors: [{ code: ErrorCode.RATE_LIMITED, message: 'Mine', meaning: 'mine' }],
    });
    expect(() => createRpc({ logger: silent, plugins: [greedy] })).to.throw(
      `error code ${ErrorCode.RATE_LIMITED} is declared by both the core and plugin "greedy"`,
    );
  });

  it('rpc.discover publishes every code with its owner, and each plugin method lists its own', () => {
    const doc = createRpc({ logger: silent, plugins: [storePlugin] }).discover();
    expect(doc['x-errors']).to.deep.include({
      code: -32070,
      message: 'Store down',
      meaning: 'the store did not answer',
      owner: 'store',
    });
    expect(doc['x-errors']).to.deep.include({
      code: -32700,
      message: 'Parse error',
      meaning: 'the body is not valid JSON',
      owner: 'core',
    });
    expect(doc.methods.find((m) => m.name === 'getThing')?.errors).to.deep.equal([
      { code: -32070, message: 'Store down' },
    ]);
  });

  it('the core keeps only JSON-RPC codes and its own server codes', () => {
    for (const code of Object.values(ErrorCode)) {
      expect((code >= -32700 && code <= -32600) || (code >= -32059 && code <= -32050), String(code)).to.equal(
        true,
      );
    }
  });
});
