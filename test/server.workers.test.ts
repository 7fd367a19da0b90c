import http from 'node:http';
import { expect } from 'chai';
import { waitFor } from '@rollup-router/test-support/wait-for';
import {
  get,
  runCli,
  sample,
  serveForSuite,
  tempDir,
  writeJson,
  type ServerProcess,
} from './server.harness.js';

/** One getRoutes call on a connection of its own: the cluster hands each new connection to the next worker. */
function callOnNewConnection(base: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}/`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end('{"jsonrpc":"2.0","id":1,"method":"getRoutes"}');
  });
}

const lines = (server: ServerProcess, msg: string): Record<string, unknown>[] =>
  server.logs().filter((l) => l.msg === msg);

/** The workers the primary has said serve, by worker number, with their pids. */
const serving = (server: ServerProcess): Map<number, number> =>
  new Map(lines(server, 'worker serving').map((l) => [l.worker as number, l.workerPid as number]));

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('rollup-router serve with workers: 2', function () {
  this.timeout(120_000);
  const POINTS = 10;
  const suite = serveForSuite({
    workers: 2,
    logFlushMs: 0,
    // Relative to the config file: the suite's temp dir.
    statuses: { store: { path: 'statuses.sqlite' } },
    // Without Redis: one budget for the whole service, not one per worker.
    rateLimit: { points: POINTS, durationSeconds: 3600 },
  });
  let server: ServerProcess;
  before(async () => {
    server = suite.server;
    await waitFor(() => serving(server).size === 2, 'both workers serving', { attempts: 600, stepMs: 100 });
  });

  it('both workers answer calls on the one port, and one budget covers the service: the 11th call is refused', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < POINTS + 4; i += 1) statuses.push(await callOnNewConnection(server.base));
    expect(statuses).to.deep.equal([...Array(POINTS).fill(200), 429, 429, 429, 429]);
    const answeredBy = new Set(lines(server, 'call').map((l) => l.pid));
    expect([...answeredBy].sort()).to.deep.equal([...serving(server).values()].sort());
  });

  it('one /metrics scrape counts the calls of every worker', async () => {
    const answered = lines(server, 'call').filter((l) => l.code === 0);
    expect(new Set(answered.map((l) => l.worker)).size).to.equal(2);
    const metrics = (await get(`${server.base}/metrics`)).text;
    expect(sample(metrics, 'rollup_router_calls_total{method="getRoutes",code="0"}')).to.equal(
      answered.length,
    );
    // A state every worker has alike is told once, not summed.
    expect(sample(metrics, 'rollup_router_ready')).to.equal(1);
    expect(sample(metrics, 'rollup_router_info{version="0.1.0"}')).to.equal(1);
  });

  it('a worker killed from outside is replaced, and the service answers meanwhile', async () => {
    const [victim, pid] = [...serving(server)][0]!;
    process.kill(pid, 'SIGKILL');
    const died = await waitFor(
      () => lines(server, 'worker died unexpectedly; replacing it').find((l) => l.worker === victim),
      'the primary to see the worker die',
      { attempts: 300, stepMs: 100 },
    );
    expect(died.signal).to.equal('SIGKILL');
    expect((await get(`${server.base}/health`)).status).to.equal(200);
    await waitFor(() => serving(server).size === 3, 'a new worker serving', { attempts: 600, stepMs: 100 });
    expect([...serving(server).keys()]).to.include(3);
  });

  it('SIGTERM drains every worker and the primary exits 0, leaving no worker behind', async () => {
    const pids = [...serving(server).values()].filter(alive);
    expect(pids).to.have.length(2);
    server.signal('SIGTERM');
    expect(await server.exited).to.equal(0);
    const stopped = lines(server, 'worker stopped');
    expect(stopped.map((l) => l.code)).to.deep.equal([0, 0]);
    expect(
      lines(server, 'stopped')
        .map((l) => l.pid)
        .sort(),
    ).to.deep.equal(pids.sort());
    expect(pids.filter(alive)).to.deep.equal([]);
  });
});

describe('rollup-router serve with workers: 2 and its Redis down', function () {
  this.timeout(120_000);
  const POINTS = 5;
  const suite = serveForSuite({
    workers: 2,
    logFlushMs: 0,
    statuses: { store: { path: 'statuses.sqlite' } },
    // Port 1: nothing listens there, so every connection is refused at once.
    redis: { url: 'redis://127.0.0.1:1' },
    rateLimit: { points: POINTS, durationSeconds: 3600 },
  });
  let server: ServerProcess;
  before(async () => {
    server = suite.server;
    await waitFor(() => serving(server).size === 2, 'both workers serving', { attempts: 600, stepMs: 100 });
  });

  it('the budget that stands in for Redis is still one for the instance, not one per worker', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < POINTS + 3; i += 1) statuses.push(await callOnNewConnection(server.base));
    expect(statuses).to.deep.equal([...Array(POINTS).fill(200), 429, 429, 429]);
    expect(new Set(lines(server, 'call').map((l) => l.worker)).size).to.equal(2);
  });
});

describe('rollup-router serve with workers: 2 that cannot start', function () {
  this.timeout(120_000);

  it('on a port in use, the workers fail as one process would and the primary exits 2 naming the port', async () => {
    const tmp = tempDir();
    const taken = http.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = taken.address() as { port: number };
      const config = writeJson(tmp.file('config.json'), {
        workers: 2,
        port,
        statuses: { store: { path: tmp.file('statuses.sqlite') } },
      });
      const result = await runCli(['--config', config]);
      expect(result.code).to.equal(2);
      expect(result.stderr).to.include(String(port));
    } finally {
      await new Promise((resolve) => taken.close(resolve));
      tmp.remove();
    }
  });
});
