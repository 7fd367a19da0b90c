import { expect } from 'chai';
import { RouteRegistry } from '../src/index.js';
import { memoryLog } from '@rollup-router/test-support/http';
import { UpgradeRecorder } from '@rollup-router/test-support/upgrade-recorder';
import { waitFor } from '@rollup-router/test-support/wait-for';

describe('routes.chain: credentials in the websocket URL', () => {
  let recorder: UpgradeRecorder;
  let registry: RouteRegistry | undefined;
  beforeEach(async () => {
    recorder = await UpgradeRecorder.start();
  });
  afterEach(async () => {
    await registry?.stop();
    registry = undefined;
    await recorder.close();
  });

  it('go as Basic authorization on the upgrade, never in the URL', async () => {
    const { port } = recorder;
    registry = new RouteRegistry({
      allowInsecure: true,
      chain: {
        url: `http://127.0.0.1:${port}`,
        wsUrl: `ws://reader:s3cret%20pass@127.0.0.1:${port}/feed?x=1`,
      },
    });
    await registry.start({ log: memoryLog().log });
    const upgrade = await waitFor(() => recorder.upgrades[0], 'the upgrade');
    expect(upgrade).to.deep.equal({
      url: '/feed?x=1',
      authorization: `Basic ${Buffer.from('reader:s3cret pass').toString('base64')}`,
    });
  });
});
