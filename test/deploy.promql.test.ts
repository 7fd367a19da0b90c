// Every PromQL expression of the Grafana dashboard and of the alert rules, run by a real
// Prometheus (Debian's package) that scrapes a real server under load: each metric name an
// expression names must be one the server exports, each expression must evaluate, and each
// dashboard query must return data.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { hasRedisServer, startRedisServer, type RedisServer } from '@rollup-router/test-support/redis-server';
import { routeEntry } from '@rollup-router/test-support/solana';
import { skipWithout } from '@rollup-router/test-support/system-tool';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { TestSocket } from '@rollup-router/test-support/ws-client';
import {
  REPO,
  finalized,
  get,
  rpc,
  serveWith,
  signature,
  standInUpstream,
  tempDir,
  type ServerProcess,
  type StandIn,
} from './server.harness.js';

const DASHBOARD = join(REPO, 'deploy/grafana/rollup-router.json');
const ALERTS = join(REPO, 'deploy/prometheus/alerts.yaml');

interface Panel {
  readonly title: string;
  readonly targets?: readonly { readonly expr: string }[];
  readonly panels?: readonly Panel[];
}

/** Each dashboard query, with Grafana's variables as a query of all instances over 30 s would have them. */
function dashboardQueries(): { what: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] };
  const all = (panels: readonly Panel[]): Panel[] => panels.flatMap((p) => [p, ...all(p.panels ?? [])]);
  return all(dashboard.panels).flatMap((p) =>
    (p.targets ?? []).map((t) => ({
      what: `panel "${p.title}"`,
      expr: t.expr.replaceAll('$__rate_interval', '30s').replaceAll('$instance', '.*'),
    })),
  );
}

function alertQueries(): { what: string; expr: string }[] {
  const rules = parse(readFileSync(ALERTS, 'utf8')) as {
    groups: { rules: { alert: string; expr: string }[] }[];
  };
  return rules.groups.flatMap((g) => g.rules.map((r) => ({ what: `alert ${r.alert}`, expr: r.expr })));
}

/** The metric names an expression selects (ours, and Prometheus's own `up`). */
function metricNames(expr: string): string[] {
  const names = [...expr.matchAll(/\b(rollup_router_[a-z0-9_]+|up)\b(?=\s*[{[)\s]|$)/g)].map((m) => m[1]!);
  return [...new Set(names)];
}

/** The metric names in a Prometheus text exposition. */
function exposedNames(text: string): Set<string> {
  return new Set(
    text
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'))
      .map((l) => /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(l)![0]),
  );
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return port;
}

interface QueryAnswer {
  readonly status: string;
  readonly error?: string;
  readonly data?: { result: unknown[] };
}

describe('deploy/: every PromQL expression of the dashboard and the alerts, on a real Prometheus', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir> | undefined;
  let upstream: StandIn | undefined;
  let redis: RedisServer | undefined;
  let server: ServerProcess | undefined;
  let prometheus: ChildProcess | undefined;
  let promUrl = '';
  let load: NodeJS.Timeout | undefined;
  let socket: TestSocket | undefined;

  async function query(expr: string): Promise<QueryAnswer> {
    const res = await fetch(`${promUrl}/api/v1/query`, {
      method: 'POST',
      body: new URLSearchParams({ query: expr }),
      signal: AbortSignal.timeout(10_000),
    });
    return (await res.json()) as QueryAnswer;
  }

  /** A little of everything the dashboard shows: successes, errors, a burst past the rate limit. */
  async function someLoad(known: string): Promise<void> {
    const base = server!.base;
    const calls = [
      rpc(`${base}/`, { jsonrpc: '2.0', id: 1, method: 'getRoutes' }),
      rpc(`${base}/`, {
        jsonrpc: '2.0',
        id: 2,
        method: 'getSignatureStatuses',
        params: [[known, signature()]],
      }),
      rpc(`${base}/`, { jsonrpc: '2.0', id: 3, method: 'getSignatureStatuses', params: [['not-base58']] }),
      ...Array.from({ length: 30 }, (_, i) =>
        rpc(`${base}/`, { jsonrpc: '2.0', id: 10 + i, method: 'getRoutes' }),
      ),
    ];
    // Over the WebSocket too, where a call past the budget is refused with -32051.
    for (let i = 0; i < 25; i++)
      socket?.send(JSON.stringify({ jsonrpc: '2.0', id: 100 + i, method: 'getRoutes' }));
    await Promise.allSettled(calls);
  }

  before(async function () {
    skipWithout(this, 'prometheus', 'prometheus');
    if (!hasRedisServer()) {
      console.log('      (redis-server is not installed: skipped; apt-get install redis-server)');
      this.skip();
    }
    tmp = tempDir();
    const known = signature();
    upstream = await standInUpstream(new Map([[known, finalized(900)]]));
    redis = await startRedisServer();
    const dead = await freePort();
    server = await serveWith(tmp.dir, {
      routes: {
        routes: [routeEntry({ fqdn: upstream.url })],
        allowInsecure: true,
        health: { intervalMs: 200, timeoutMs: 1000 },
      },
      statuses: {
        store: { path: join(tmp.dir, 'statuses.sqlite') },
        // One upstream answers, one is down: upstream health has both sides.
        upstreams: [{ url: upstream.url }, { url: `http://127.0.0.1:${dead}` }],
      },
      redis: { url: redis.url },
      rateLimit: { points: 20, durationSeconds: 1 },
      websocket: { port: false },
    });
    socket = await TestSocket.open(`ws://127.0.0.1:${server.port}/`);
    socket.send(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'signatureSubscribe', params: [signature()] }),
    );
    await socket.next();

    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    const config = join(tmp.dir, 'prometheus.yml');
    writeFileSync(
      config,
      JSON.stringify({
        global: { scrape_interval: '1s', evaluation_interval: '1s' },
        rule_files: [ALERTS],
        scrape_configs: [
          { job_name: 'rollup-router', static_configs: [{ targets: [`127.0.0.1:${server.port}`] }] },
        ],
      }),
    );
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(tmp.dir, 'tsdb')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    await waitFor(
      async () => (await get(`${promUrl}/-/ready`).catch(() => undefined))?.status === 200,
      'Prometheus ready',
      {
        attempts: 300,
        stepMs: 100,
      },
    );
    await someLoad(known);
    load = setInterval(() => void someLoad(known), 500);
  });

  after(async () => {
    clearInterval(load);
    socket?.ws.close();
    prometheus?.kill('SIGKILL');
    await server?.kill();
    await redis?.stop();
    await upstream?.close();
    tmp?.remove();
  });

  it('names only metrics the server exports', async () => {
    const exposed = exposedNames((await get(`${server!.base}/metrics`)).text);
    exposed.add('up'); // Prometheus's own, per target
    const missing = [...dashboardQueries(), ...alertQueries()].flatMap(({ what, expr }) =>
      metricNames(expr)
        .filter((n) => !exposed.has(n))
        .map((n) => `${what}: ${n}`),
    );
    expect(missing, 'metric names that the server does not export').to.deep.equal([]);
  });

  it('every dashboard query evaluates and returns data', async () => {
    for (const { what, expr } of dashboardQueries()) {
      const answer = await waitFor(
        async () => {
          const a = await query(expr);
          expect(a.status, `${what}: ${expr}: ${a.error}`).to.equal('success');
          return a.data!.result.length > 0 && a;
        },
        `${what} to return data: ${expr}`,
        { attempts: 60, stepMs: 500 },
      );
      expect(answer.data!.result, what).to.have.length.above(0);
    }
  });

  it('every alert expression evaluates, and each metric it reads has data', async () => {
    for (const { what, expr } of alertQueries()) {
      const answer = await query(expr);
      expect(answer.status, `${what}: ${answer.error}`).to.equal('success');
      for (const name of metricNames(expr)) {
        const series = await waitFor(
          async () => {
            const a = await query(`count(${name})`);
            return a.data!.result.length > 0 && a;
          },
          `${what}: ${name} in Prometheus`,
          { attempts: 60, stepMs: 500 },
        );
        expect(series.data!.result, `${what}: ${name}`).to.have.length.above(0);
      }
    }
  });

  it('Prometheus loads the alert rules and evaluates each without error', async () => {
    const rules = await waitFor(
      async () => {
        const res = (await (await fetch(`${promUrl}/api/v1/rules`)).json()) as {
          data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] };
        };
        const all = res.data.groups.flatMap((g) => g.rules);
        return all.length > 0 && all.every((r) => r.health !== 'unknown') && all;
      },
      'the rules evaluated once',
      { attempts: 60, stepMs: 500 },
    );
    expect(rules.map((r) => r.name).sort()).to.deep.equal(
      alertQueries()
        .map((q) => q.what.slice(6))
        .sort(),
    );
    for (const r of rules) expect(r.health, `${r.name}: ${r.lastError}`).to.equal('ok');
  });
});
