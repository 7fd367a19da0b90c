// The compose stack's pieces on loopback, without a container engine: Debian's haproxy on the
// shipped deploy/haproxy/haproxy.cfg as it is (addresses from its environment variables) in
// front of two reference servers on the shipped deploy/router/config.yaml (only what names
// this machine changed: host, ports, the store's path) sharing a real redis-server.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { freePortPair } from '@rollup-router/test-support/reusable-port';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { REPO, sample, startCli, type ServerProcess } from './server.harness.js';

export const HAPROXY_CFG = join(REPO, 'deploy/haproxy/haproxy.cfg');
const ROUTER_CFG = join(REPO, 'deploy/router/config.yaml');

/** One router of the stack, stopped and started again on the same port, as a container is. */
export class StackRouter {
  private running: ServerProcess | undefined;

  private constructor(
    /** Its name in haproxy.cfg (router-1, router-2). */
    readonly name: string,
    readonly port: number,
    private readonly configFile: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  static async create(name: string, dir: string, env: NodeJS.ProcessEnv): Promise<StackRouter> {
    const port = await freePortPair();
    const shipped = parse(readFileSync(ROUTER_CFG, 'utf8')) as Record<string, Record<string, unknown>>;
    const config = {
      ...shipped,
      host: '127.0.0.1',
      port,
      metrics: { ...shipped.metrics, host: '127.0.0.1', port: 0 },
      statuses: { ...shipped.statuses, store: { path: join(dir, `${name}.sqlite`) } },
    };
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(config));
    return new StackRouter(name, port, file, env);
  }

  get process(): ServerProcess {
    if (this.running === undefined) throw new Error(`${this.name} is not running`);
    return this.running;
  }

  async start(): Promise<void> {
    this.running = await startCli(['--config', this.configFile], this.env);
  }

  /**
   * The getRoutes calls it answered so far, from its own /metrics: calls, not HTTP answers,
   * which HAProxy's /ready probes would make grow with no call at all.
   */
  async answered(): Promise<number> {
    const listening = this.process.logs().find((l) => String(l.msg).startsWith('listening'));
    const url = (listening?.endpoints as { metrics: string }).metrics;
    const text = await (await fetch(url, { signal: AbortSignal.timeout(15_000) })).text();
    return sample(text, 'rollup_router_calls_total{method="getRoutes",code="0"}') ?? 0;
  }

  /** SIGTERM, as `docker stop` sends; resolves with the exit code. */
  async stop(): Promise<number | null> {
    const running = this.process;
    running.signal('SIGTERM');
    const code = await running.exited;
    this.running = undefined;
    return code;
  }

  async kill(): Promise<void> {
    await this.running?.kill();
  }
}

/** Debian's haproxy on the shipped haproxy.cfg, listening on a port P and P + 1 (web3.js's WebSocket). */
export class StackBalancer {
  private out = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {
    child.stdout!.on('data', (c: Buffer) => (this.out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (this.out += c.toString()));
  }

  static async start(routers: readonly StackRouter[]): Promise<StackBalancer> {
    const port = await freePortPair();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      RPC_BIND: `127.0.0.1:${port}`,
      WS_BIND: `127.0.0.1:${port + 1}`,
    };
    for (const [i, r] of routers.entries()) env[`ROUTER_${i + 1}`] = `127.0.0.1:${r.port}`;
    const child = spawn('haproxy', ['-db', '-f', HAPROXY_CFG], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const balancer = new StackBalancer(child, port);
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`haproxy exited:\n${balancer.out}`);
        return fetch(`${balancer.url}/health`, { signal: AbortSignal.timeout(5_000) }).then(
          (r) => r.ok,
          () => false,
        );
      },
      'haproxy answering',
      { attempts: 300, stepMs: 100 },
    );
    return balancer;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  output(): string {
    return this.out;
  }

  /** How often haproxy has logged that it sends traffic to `router` again. */
  upCount(router: StackRouter): number {
    return this.out.split(`Server routers/${router.name} is UP`).length - 1;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((done) => this.child.once('exit', done));
    this.child.kill('SIGTERM');
    await exited;
  }
}
