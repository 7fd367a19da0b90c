// A newcomer's start with one variable: ROLLUP_ROUTER_CHAIN_URL pointed at validator A, whose
// MDP registry lists validator B at an http:// address. B is refused unless http:// nodes are
// allowed; the log says which setting lists it, and one more variable does.
import { expect } from 'chai';
import { validatorBIdentity } from '@rollup-router/test-support/mdp';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { rpc, startCli, type ServerProcess } from './server.harness.js';

const A = 'http://127.0.0.1:17799';

describe('the reference server started with ROLLUP_ROUTER_CHAIN_URL alone', () => {
  let bIdentity: string;
  let server: ServerProcess | undefined;

  before(async function () {
    try {
      bIdentity = await validatorBIdentity();
    } catch (err) {
      console.log(`      (validator B is not reachable: ${(err as Error).message})`);
      this.skip();
    }
  });
  afterEach(async () => {
    await server?.kill();
    server = undefined;
  });

  const identities = async (): Promise<string[]> => {
    const { json } = await rpc(server!.base, { jsonrpc: '2.0', id: 1, method: 'getRoutes' });
    return (json.result as { identity: string }[]).map((e) => e.identity);
  };

  it("does not list B's http:// record, and its log line names the setting that would", async () => {
    server = await startCli(['--port', '0'], { ROLLUP_ROUTER_CHAIN_URL: A, ROLLUP_ROUTER_STORE_PATH: 'off' });
    const skipped = await waitFor(
      () => server!.logs().find((l) => String(l.msg).includes('skipped') && String(l.msg).includes('fqdn')),
      'the skipped record logged',
    );
    expect(String(skipped.msg)).to.include('allowInsecure');
    expect(await identities()).to.not.include(bIdentity);
  });

  it('lists B with ROLLUP_ROUTER_ALLOW_INSECURE_ROUTES=true', async () => {
    server = await startCli(['--port', '0'], {
      ROLLUP_ROUTER_CHAIN_URL: A,
      ROLLUP_ROUTER_ALLOW_INSECURE_ROUTES: 'true',
      ROLLUP_ROUTER_STORE_PATH: 'off',
    });
    await waitFor(async () => (await identities()).includes(bIdentity), 'B listed');
  });

  it('refuses a value of ROLLUP_ROUTER_ALLOW_INSECURE_ROUTES that is no boolean, naming the variable', async () => {
    const failed = startCli(['--port', '0'], { ROLLUP_ROUTER_ALLOW_INSECURE_ROUTES: 'maybe' });
    const err = await failed.then(
      () => expect.fail('started'),
      (e: Error) => e,
    );
    expect(err.message).to.include('ROLLUP_ROUTER_ALLOW_INSECURE_ROUTES');
  });
});
