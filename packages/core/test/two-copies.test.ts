// Two copies of @rollup-router/core in one process, as a dependency tree with two versions
// side by side makes: a plugin built against one copy, mounted in an rpc of the other. The
// second copy is a real one, the built package copied to another directory.
import { cpSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import * as core from '@rollup-router/core';
import { tempDir, type TempDir } from '@rollup-router/test-support/temp-dir';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const NODE_MODULES = fileURLToPath(new URL('../../../node_modules', import.meta.url));

describe('core: a plugin built against another copy of the core', () => {
  let tmp: TempDir;
  let other: typeof core;
  let rpc: core.Rpc;

  before(async () => {
    tmp = tempDir();
    const copy = tmp.file('core');
    cpSync(join(PACKAGE, 'dist'), join(copy, 'dist'), { recursive: true });
    cpSync(join(PACKAGE, 'package.json'), join(copy, 'package.json'));
    symlinkSync(NODE_MODULES, join(copy, 'node_modules'));
    other = (await import(pathToFileURL(join(copy, 'dist', 'index.js')).href)) as typeof core;
    expect(other.RawJson).to.not.equal(core.RawJson);
    rpc = core.createRpc({
      logger: core.createLogger({ level: 'silent' }),
      methods: [
        core.defineMethod<[], number[]>({
          name: 'raw',
          result: { type: 'array', items: { type: 'integer' } },
          handler: () => other.RawJson.of([1, 2, 3]),
        }),
        core.defineMethod<[], never>({
          name: 'refuse',
          handler: () => {
            throw other.RpcError.of(other.ErrorCode.INVALID_PARAMS, { path: '/params/0', rule: 'type' });
          },
        }),
      ],
    });
  });
  after(() => tmp.remove());

  it("answers its RawJson result as that JSON, checked against the method's result schema", async () => {
    const answer = await rpc.dispatch('{"jsonrpc":"2.0","id":1,"method":"raw"}');
    expect(JSON.parse(answer!)).to.deep.equal({ jsonrpc: '2.0', result: [1, 2, 3], id: 1 });
  });

  it('passes its RpcError to the caller with its code and data, not as an internal error', async () => {
    const answer = await rpc.dispatch('{"jsonrpc":"2.0","id":1,"method":"refuse"}');
    expect(JSON.parse(answer!)).to.deep.equal({
      jsonrpc: '2.0',
      error: { code: -32602, message: 'Invalid params', data: { path: '/params/0', rule: 'type' } },
      id: 1,
    });
  });

  it('instanceof still tells a subclass, and things that are not ours, apart', () => {
    class Refusal extends core.RpcError {}
    expect(other.RpcError.of(other.ErrorCode.INVALID_PARAMS)).to.be.instanceOf(core.RpcError);
    expect(new Refusal(-32000)).to.be.instanceOf(core.RpcError);
    expect(core.RpcError.of(core.ErrorCode.INVALID_PARAMS)).to.not.be.instanceOf(Refusal);
    expect(new Error('x')).to.not.be.instanceOf(core.RpcError);
    expect({ json: '[]', value: [] }).to.not.be.instanceOf(core.RawJson);
    expect(null).to.not.be.instanceOf(core.RawJson);
  });
});
