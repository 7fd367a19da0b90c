// deploy/compose.yaml with no container registry, as docs/deploy.md ("Without a container
// registry") runs it: the router image on node-base.sh's base, HAProxy, Redis and Prometheus
// images from Debian's packages (deploy/container/debian-images.sh), named to the stack by
// HAPROXY_IMAGE, REDIS_IMAGE and PROMETHEUS_IMAGE, and the stack up with Debian's
// podman-compose 1.0. Through HAProxy: a call over HTTP and one over the WebSocket on port 8081;
// Prometheus scrapes both routers. The stack's ports (8080, 8081, 9090) must be free.
// About 5 minutes with node-base.sh's base already built (10 more without it), under 2 warm
// (images found, the stack up, Prometheus's scrapes and HAProxy's DNS hold waited for), so
// `npm test` runs only the part that needs no engine, and the rest runs when asked:
//   ROLLUP_ROUTER_STACK_TEST=1 npx mocha test/deploy.local-stack.test.ts
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { parse } from 'yaml';
import {
  buildRouterImage,
  PODMAN_FLAGS,
  PODMAN_LIMITS,
  podman as podmanIn,
} from '@rollup-router/test-support/podman';
import { podmanComposePython, podmanComposeScript } from '@rollup-router/test-support/podman-compose';
import { hasTool } from '@rollup-router/test-support/system-tool';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { TestSocket } from '@rollup-router/test-support/ws-client';
import { REPO, get, rpc, signature } from './server.harness.js';

const DEPLOY = join(REPO, 'deploy');
/** podman-compose's flags on this kind of host, as docs/deploy.md gives them. */
const COMPOSE = [
  '--podman-args',
  PODMAN_FLAGS.join(' '),
  '--podman-run-args',
  PODMAN_LIMITS.join(' '),
  '-p',
  'rollup-router-stack-test',
];
const ROUTER_IMAGE = 'localhost/rollup-router:local';
/** The services whose image a variable names: the official one by default, or one of debian-images.sh. */
const STACK_IMAGES = [
  {
    service: 'haproxy',
    variable: 'HAPROXY_IMAGE',
    official: 'docker.io/library/haproxy:2.8-alpine',
    local: 'localhost/rollup-router-haproxy:bookworm',
  },
  {
    service: 'redis',
    variable: 'REDIS_IMAGE',
    official: 'docker.io/library/redis:7-alpine',
    local: 'localhost/rollup-router-redis:bookworm',
  },
  {
    service: 'prometheus',
    variable: 'PROMETHEUS_IMAGE',
    official: 'docker.io/prom/prometheus:v2.53.2',
    local: 'localhost/rollup-router-prometheus:bookworm',
  },
] as const;
const LOCAL_IMAGES: Record<string, string> = Object.fromEntries(
  STACK_IMAGES.map((i) => [i.variable, i.local]),
);
const byService = (pick: 'official' | 'local'): Record<string, string> =>
  Object.fromEntries(STACK_IMAGES.map((i) => [i.service, i[pick]]));

function ran(result: SpawnSyncReturns<string>): { status: number | null; out: string } {
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

/** The image each service of compose.yaml gets, as docker-compose 1.29 reads the file. */
function dockerComposeImages(env: Record<string, string>): Record<string, string> {
  const config = spawnSync('docker-compose', ['-p', 'rollup-router', 'config'], {
    cwd: DEPLOY,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...env },
  });
  expect(config.status, config.stderr).to.equal(0);
  const { services } = parse(config.stdout) as { services: Record<string, { image: string }> };
  return Object.fromEntries(Object.entries(services).map(([name, s]) => [name, s.image]));
}

/** The image each service gets, by podman-compose 1.0's own substitution run by its Python. */
function podmanComposeImages(script: string, env: Record<string, string>): Record<string, string> {
  const substituted = podmanComposePython(
    script,
    'import json, os, yaml, podman_compose as pc\n' +
      'c = pc.rec_subs(yaml.safe_load(open("compose.yaml")), dict(os.environ))\n' +
      'print(json.dumps({k: s.get("image") for k, s in c["services"].items()}))',
    [],
    { cwd: DEPLOY, env: { PATH: process.env.PATH, ...env } },
  );
  expect(substituted.status, substituted.stderr).to.equal(0);
  return JSON.parse(substituted.stdout) as Record<string, string>;
}

describe('deploy/compose.yaml with images of our own (no container registry)', function () {
  this.timeout(60_000);

  it('docker-compose 1.29 takes HAProxy, Redis and Prometheus from HAPROXY_IMAGE, REDIS_IMAGE, PROMETHEUS_IMAGE, the official images when unset', function () {
    if (!hasTool('docker-compose')) this.skip();
    expect(dockerComposeImages({})).to.include(byService('official'));
    expect(dockerComposeImages(LOCAL_IMAGES)).to.include(byService('local'));
  });

  it('podman-compose 1.0 reads the same variables alike', function () {
    const script = podmanComposeScript();
    if (script === undefined) this.skip();
    expect(podmanComposeImages(script, {})).to.include(byService('official'));
    expect(podmanComposeImages(script, LOCAL_IMAGES)).to.include(byService('local'));
  });
});

/** Fails with a message saying which of the stack's published ports is taken. */
async function expectPortFree(port: number): Promise<void> {
  const probe = createServer();
  const error = await new Promise<Error | undefined>((done) => {
    probe.once('error', done);
    probe.listen(port, '0.0.0.0', () => done(undefined));
  });
  if (error === undefined) await new Promise((done) => probe.close(done));
  expect(error?.message, `the stack publishes port ${port}: it must be free`).to.equal(undefined);
}

interface RedisUp {
  readonly metric: { readonly instance: string };
  readonly value: [number, string];
}

interface Target {
  readonly labels: { readonly job: string; readonly instance: string };
  readonly health: string;
}

describe('deploy/compose.yaml up with podman-compose, images built from Debian packages', function () {
  this.timeout(30 * 60_000);
  let up = false;
  let upAt = 0;
  const images: Record<string, string> = {};

  const podman = (args: readonly string[], timeoutMs?: number) => podmanIn(REPO, args, timeoutMs);

  function compose(args: readonly string[], timeoutMs = 5 * 60_000): { status: number | null; out: string } {
    return ran(
      spawnSync('podman-compose', [...COMPOSE, ...args], {
        cwd: DEPLOY,
        encoding: 'utf8',
        timeout: timeoutMs,
        env: { ...process.env, ...images, LISTEN: '127.0.0.1' },
      }),
    );
  }

  /** What the stack's containers say, for a failure's message. */
  function stackState(): string {
    const ps = podman(['ps', '-a', '--filter', 'label=io.podman.compose.project=rollup-router-stack-test']);
    const logs = ['haproxy', 'router-1', 'redis', 'prometheus'].map(
      (s) => `--- ${s}\n${podman(['logs', '--tail', '15', `rollup-router-stack-test_${s}_1`]).out}`,
    );
    return [ps.out, ...logs].join('\n');
  }

  before(async function () {
    if (process.env.ROLLUP_ROUTER_STACK_TEST !== '1' || !hasTool('podman') || !hasTool('podman-compose')) {
      console.log(
        '      (stack skipped: needs podman, podman-compose and ROLLUP_ROUTER_STACK_TEST=1; 2 to 15 min)',
      );
      this.skip();
    }
    // Containers find each other by service name: with podman's CNI networks, through the
    // dnsname plugin (netavark has its own DNS).
    const backend = podman(['info', '--format', '{{.Host.NetworkBackend}}']).out.trim();
    expect(
      backend !== 'cni' || existsSync('/usr/lib/cni/dnsname'),
      'podman networks need DNS: apt-get install golang-github-containernetworking-plugin-dnsname',
    ).to.equal(true);
    // What a run cut short left behind would hold the ports, and be started again as it is.
    compose(['down', '-v']);
    for (const port of [8080, 8081, 9090]) await expectPortFree(port);

    const started = Date.now();
    const router = buildRouterImage(REPO, ROUTER_IMAGE);
    expect(router.status, router.out.slice(-4000)).to.equal(0);
    const built = spawnSync('bash', [join(DEPLOY, 'container/debian-images.sh')], {
      encoding: 'utf8',
      timeout: 20 * 60_000,
    });
    expect(built.status, built.stderr.slice(-4000)).to.equal(0);
    for (const line of built.stdout.trim().split('\n')) {
      const [name, image] = line.split('=');
      images[name!] = image!;
    }
    expect(images).to.deep.equal(LOCAL_IMAGES);
    console.log(`      (images built or found in ${Math.round((Date.now() - started) / 1000)} s)`);

    up = true;
    const upped = compose(['up', '-d']);
    expect(upped.status, upped.out.slice(-4000)).to.equal(0);
    upAt = Date.now();
    await waitFor(
      async () => (await get('http://127.0.0.1:8080/ready').catch(() => undefined))?.status === 200,
      'HAProxy to answer /ready 200 from a router',
      { attempts: 180, stepMs: 1000 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${stackState()}`);
    });
  });

  after(function () {
    if (!up) return;
    const down = compose(['down', '-v']);
    // podman-compose 1.0 leaves the network it made.
    podman(['network', 'rm', 'rollup-router-stack-test_default']);
    expect(down.status, down.out.slice(-4000)).to.equal(0);
  });

  it('runs HAProxy, Redis and Prometheus from the images of Debian packages', () => {
    for (const { service, local } of [...STACK_IMAGES, { service: 'router-1', local: ROUTER_IMAGE }]) {
      const inspected = podman([
        'inspect',
        `rollup-router-stack-test_${service}_1`,
        '--format',
        '{{.ImageName}} {{.State.Status}}',
      ]);
      expect(inspected.out.trim(), service).to.equal(`${local} running`);
    }
  });

  it('answers a call through HAProxy over HTTP on 8080', async () => {
    const routes = await rpc('http://127.0.0.1:8080/', { jsonrpc: '2.0', id: 1, method: 'getRoutes' });
    expect(routes.status).to.equal(200);
    expect(routes.json.result, routes.text).to.be.an('array');
  });

  it('answers over the WebSocket on 8081 (where web3.js looks for it), a subscription included', async () => {
    const socket = await TestSocket.open('ws://127.0.0.1:8081/');
    try {
      expect((await socket.call('getRoutes', [], 1)).result).to.be.an('array');
      const subscribed = await socket.call('signatureSubscribe', [signature()], 2);
      expect(subscribed.result, JSON.stringify(subscribed)).to.be.a('number');
    } finally {
      await socket.close();
    }
  });

  it('Prometheus scrapes both routers (its targets are up) and loaded the alert rules', async () => {
    const targets = await waitFor(
      async () => {
        const res = await get('http://127.0.0.1:9090/api/v1/targets').catch(() => undefined);
        if (res?.status !== 200) return undefined;
        const active = (JSON.parse(res.text) as { data: { activeTargets: Target[] } }).data.activeTargets;
        return active.length === 2 && active.every((t) => t.health === 'up') ? active : undefined;
      },
      'Prometheus to scrape both routers',
      { attempts: 120, stepMs: 1000 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${stackState()}`);
    });
    expect(targets.map((t) => `${t.labels.job} ${t.labels.instance}`).sort()).to.deep.equal([
      'rollup-router router-1:9464',
      'rollup-router router-2:9464',
    ]);
    const rules = await get('http://127.0.0.1:9090/api/v1/rules');
    expect(rules.text).to.include('RollupRouterDown');
  });

  it('both routers use the stack’s Redis (rollup_router_redis_up 1, as Prometheus scraped it)', async () => {
    const up = await waitFor(
      async () => {
        const res = await get('http://127.0.0.1:9090/api/v1/query?query=rollup_router_redis_up').catch(
          () => undefined,
        );
        if (res?.status !== 200) return undefined;
        const { result } = (JSON.parse(res.text) as { data: { result: RedisUp[] } }).data;
        return result.length === 2 && result.every((r) => r.value[1] === '1') ? result : undefined;
      },
      'both routers to report Redis up',
      { attempts: 60, stepMs: 1000 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${stackState()}`);
    });
    expect(up.map((r) => r.metric.instance).sort()).to.deep.equal(['router-1:9464', 'router-2:9464']);
  });

  it('HAProxy keeps both routers past its DNS hold: it resolves their names with the network’s DNS', async () => {
    // HAProxy re-resolves each server every second; with a nameserver that does not answer
    // (Docker's 127.0.0.11 under podman), it takes the routers out once `hold timeout` (30 s)
    // has passed. Past that, both are still in.
    await sleep(Math.max(0, upAt + 40_000 - Date.now()));
    const logs = podman(['logs', 'rollup-router-stack-test_haproxy_1']).out;
    expect(logs).not.to.match(/for maintenance|DNS/);
    const routes = await rpc('http://127.0.0.1:8080/', { jsonrpc: '2.0', id: 1, method: 'getRoutes' });
    expect(routes.json.result, routes.text).to.be.an('array');
  });
});
