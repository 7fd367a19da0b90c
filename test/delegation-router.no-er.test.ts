// getIdentity when the chain registry offers only nodes the router refuses: validator B
// registered itself on A as http://127.0.0.1:18899, and this server does not allow
// http:// nodes. The app, the SDKs and the operator's log must all be able to tell why
// there is no ER, not just that there is none.
import { expect } from 'chai';
import { createSolanaRpc, isSolanaError } from '@solana/kit';
import { ConnectionMagicRouter } from '@magicblock-labs/ephemeral-rollups-sdk';
import { CHAIN_URL, validatorBIdentity } from '@rollup-router/test-support/mdp';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { rpc, serveWith, tempDir, type ServerProcess } from './server.harness.js';

const HTTPS_ONLY = 'must be an https:// URL';

/** The count of refusals whose reason names the https:// rule. */
const httpsRefusals = (refused: Record<string, number>): number =>
  Object.entries(refused)
    .filter(([reason]) => reason.includes(HTTPS_ONLY))
    .reduce((sum, [, n]) => sum + n, 0);

describe('delegation router: getIdentity when every registry node is refused', function () {
  this.timeout(60_000);
  let tmp: ReturnType<typeof tempDir> | undefined;
  let server: ServerProcess | undefined;

  before(async function () {
    await skipUnlessValidatorA(this, CHAIN_URL);
    const b = await validatorBIdentity();
    tmp = tempDir();
    server = await serveWith(tmp.dir, {
      // Other suites register records on A while this one runs: the allow-list refuses
      // theirs too, so B's http:// record stays the only one that could have been served.
      routes: { chain: { url: CHAIN_URL, allowPrivateAddresses: true }, allowInsecure: false },
      delegation: { identity: { allow: [b] } },
      statuses: { store: false },
      websocket: { port: false },
    });
    await waitFor(
      () => server!.logs().some((l) => String(l.msg).startsWith('chain registry read')),
      'the first read of the chain registry',
      { attempts: 300, stepMs: 100 },
    );
  });
  after(async () => {
    await server?.kill();
    tmp?.remove();
  });

  it('says at start, in one line, how many records were refused and why', () => {
    const lines = server!.logs().filter((l) => String(l.msg).startsWith('chain registry read'));
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ level: 40 });
    expect(lines[0]!.msg).to.include(HTTPS_ONLY);
    expect(httpsRefusals(lines[0]!.refused as Record<string, number>)).to.be.at.least(1);
  });

  it("getIdentity's -32073 says every node was refused, and counts them by reason", async () => {
    const { json } = await rpc(server!.base, { jsonrpc: '2.0', id: 1, method: 'getIdentity', params: [] });
    const error = json.error as { message: string; data: Record<string, unknown> };
    expect(error.message).to.match(/^No ER node available: every node was refused \(/);
    expect(error.message).to.include(HTTPS_ONLY);
    expect(error.data).to.include({ code: -32073, reason: 'all_refused' });
    expect(httpsRefusals(error.data.refused as Record<string, number>)).to.be.at.least(1);
  });

  it("@solana/kit's getIdentity error tells the app why (kit keeps only a -32603's message)", async () => {
    const error = await createSolanaRpc(server!.base)
      .getIdentity()
      .send()
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(isSolanaError(error), String(error)).to.equal(true);
    expect((error as Error).message)
      .to.include('every node was refused')
      .and.include(HTTPS_ONLY);
  });

  it("MagicBlock's SDK rejects getClosestValidator() rather than naming the base chain", async () => {
    // The SDK reads only `result` of the reply, so the reason reaches the app only through
    // a client that reads JSON-RPC errors (kit above, or any JSON-RPC client).
    const connection = new ConnectionMagicRouter(server!.base);
    const outcome = await connection.getClosestValidator().then(
      (value) => ({ value }),
      (err: unknown) => ({ err }),
    );
    expect(outcome).to.have.property('err');
  });
});
