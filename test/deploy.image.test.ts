// The Dockerfile, built and run with podman: from a base of Debian packages and Node from npm
// (deploy/container/node-base.sh), since no container registry is reachable here. A cold build
// takes about 10 minutes on 2 shared CPUs (4 with the base built), so `npm test` leaves it out and
// .ci/run runs it as a step of its own:
//   ROLLUP_ROUTER_IMAGE_TEST=1 npx mocha test/deploy.image.test.ts
import { createServer } from 'node:net';
import { expect } from 'chai';
import { buildRouterImage, PODMAN_LIMITS, podman as podmanIn } from '@rollup-router/test-support/podman';
import { hasTool } from '@rollup-router/test-support/system-tool';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { REPO, get, rpc } from './server.harness.js';

const IMAGE = 'localhost/rollup-router:test';
const NAME = `rollup-router-test-${process.pid}`;
const VOLUME = `rollup-router-test-data-${process.pid}`;

const podman = (args: readonly string[], timeoutMs?: number) => podmanIn(REPO, args, timeoutMs);

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return port;
}

describe('Dockerfile: built and run with podman', function () {
  this.timeout(30 * 60_000);
  let port = 0;

  before(function () {
    if (process.env.ROLLUP_ROUTER_IMAGE_TEST !== '1' || !hasTool('podman')) {
      console.log(
        '      (image build skipped: needs podman and ROLLUP_ROUTER_IMAGE_TEST=1; about 10 min cold)',
      );
      this.skip();
    }
    const built = buildRouterImage(REPO, IMAGE);
    expect(built.status, built.out.slice(-4000)).to.equal(0);
  });

  after(() => {
    if (port === 0) return;
    podman(['rm', '-f', NAME]);
    podman(['volume', 'rm', '-f', VOLUME]);
  });

  it('runs as a non-root user, with a HEALTHCHECK on /ready and one volume for the store', () => {
    const inspected = podman([
      'image',
      'inspect',
      IMAGE,
      '--format',
      '{{json .Config}}\n{{json .HealthCheck}}',
    ]);
    expect(inspected.status, inspected.out).to.equal(0);
    const [configJson, healthJson] = inspected.out.trim().split('\n');
    const config = JSON.parse(configJson!) as {
      User: string;
      Volumes: Record<string, object>;
      StopSignal: string;
    };
    const health = JSON.parse(healthJson!) as { Test: string[] } | null;
    expect(config.User).to.equal('node');
    expect(Object.keys(config.Volumes)).to.deep.equal(['/var/lib/rollup-router']);
    expect(health?.Test.join(' ')).to.include('/ready');
    expect(config.StopSignal).to.equal('SIGTERM');
  });

  it('serves calls with config from the environment, keeps the store in the volume, is healthy, and drains on SIGTERM', async () => {
    port = await freePort();
    const started = podman([
      'run',
      '-d',
      '--name',
      NAME,
      '--net=host',
      ...PODMAN_LIMITS,
      '-e',
      `PORT=${port}`,
      '-e',
      'HOST=127.0.0.1',
      '-e',
      'ROLLUP_ROUTER_WS_PORT=off',
      '-v',
      `${VOLUME}:/var/lib/rollup-router`,
      IMAGE,
    ]);
    expect(started.status, started.out).to.equal(0);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      async () => (await get(`${base}/ready`).catch(() => undefined))?.status === 200,
      'the container to answer /ready 200',
      { attempts: 600, stepMs: 100 },
    );
    const routes = await rpc(`${base}/`, { jsonrpc: '2.0', id: 1, method: 'getRoutes' });
    expect(routes.json.result).to.be.an('array').with.length.above(0);
    // better-sqlite3, built in the image, opened the store in the volume, owned by the user.
    const store = podman(['exec', NAME, 'sh', '-c', 'id -un; ls /var/lib/rollup-router']);
    expect(store.out).to.match(/^node\n/);
    expect(store.out).to.include('statuses.sqlite');
    const health = podman(['healthcheck', 'run', NAME]);
    expect(health.status, health.out).to.equal(0);

    const stopped = podman(['stop', '-t', '30', NAME]);
    expect(stopped.status, stopped.out).to.equal(0);
    expect(podman(['inspect', NAME, '--format', '{{.State.ExitCode}}']).out.trim()).to.equal('0');
    const logs = podman(['logs', NAME]).out;
    expect(logs).to.include('"signal":"SIGTERM"');
    expect(logs).to.include('"msg":"store closed"');
    expect(logs).to.include('"msg":"stopped"');
  });
});
