import { expect } from 'chai';
import { createLogger, createRpc, defineMethod } from '@rollup-router/core';
import { parseBody } from '../src/exact-ids.js';

const BIG = '123456789012345678901';

describe('exact ids', () => {
  it('parseBody hands the exact id text beside the body and leaves the parsed call as JSON.parse made it', () => {
    const text = `[{"jsonrpc":"2.0","id":${BIG},"method":"a"},{"jsonrpc":"2.0","id":1,"method":"b"}]`;
    const parsed = parseBody(text);
    expect(parsed.ok).to.equal(true);
    if (!parsed.ok) return;
    const [first, second] = parsed.value as { id: number }[];
    expect(first!.id).to.equal(Number(BIG)); // not rewritten to 0
    expect(parsed.exactIds?.get(first!)).to.equal(BIG);
    expect(parsed.exactIds?.has(second!)).to.equal(false);
    expect(parseBody('{"jsonrpc":"2.0","id":1,"method":"a"}')).to.deep.equal({
      ok: true,
      value: { jsonrpc: '2.0', id: 1, method: 'a' },
      exactIds: undefined,
    });
  });

  describe('rpc.dispatch, the transport-neutral entry', () => {
    const rpc = createRpc({
      logger: createLogger({ level: 'silent' }),
      methods: [
        defineMethod<[string], string>({ name: 'echo', params: { type: 'array' }, handler: ([s]) => s }),
      ],
    });

    it('answers a call and a batch from their text, ids exact', async () => {
      expect(await rpc.dispatch(`{"jsonrpc":"2.0","id":${BIG},"method":"echo","params":["x"]}`)).to.equal(
        `{"jsonrpc":"2.0","result":"x","id":${BIG}}`,
      );
      const huge = '9'.repeat(400); // past a double's range: JSON.parse makes it Infinity
      expect(await rpc.dispatch(`[{"jsonrpc":"2.0","id":${huge},"method":"echo","params":["y"]}]`)).to.equal(
        `[{"jsonrpc":"2.0","result":"y","id":${huge}}]`,
      );
    });

    it('answers garbage with -32700 and notifications with nothing', async () => {
      expect(await rpc.dispatch('{nope')).to.equal(
        '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}',
      );
      expect(await rpc.dispatch('{"jsonrpc":"2.0","method":"echo","params":["z"]}')).to.equal(undefined);
    });

    it('an invalid request with an exact id echoes it', async () => {
      const text = (await rpc.dispatch(`{"jsonrpc":"2.0","id":${BIG},"method":7}`)) ?? '';
      expect(text).to.match(new RegExp(`"id":${BIG}}$`));
      expect(JSON.parse(text).error.data.path).to.equal('/method');
    });
  });
});
