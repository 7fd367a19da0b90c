// The primary of `workers`: forks the workers that serve (it serves nothing itself), keeps the
// rate budgets and gathers the metrics for them, replaces a worker that dies, and stops them
// all on SIGTERM/SIGINT.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { LoadedConfig } from '../config/load-config.js';
import { answerScrapes } from './cluster-metrics.js';
import { keepBudgetsForWorkers } from './cluster-rate-limit.js';
import { RestartBackoff } from './restart-backoff.js';
import { isMessage, type ConfigMessage, type StopMessage } from './worker-messages.js';

export interface PrimaryOptions {
  readonly loaded: LoadedConfig;
  readonly count: number;
  readonly log: Logger;
  readonly exit: (code: number) => never;
  /** When a worker's graceful stop has surely ended (shutdownBoundMs): one still running then is killed. */
  readonly stopBoundMs: number;
}

/** Past the workers' own bound, the time their exit takes to reach the primary. */
const EXIT_MARGIN_MS = 2_000;

/** Starts the workers and looks after them until the process exits. */
export function runPrimary(options: PrimaryOptions): void {
  keepBudgetsForWorkers();
  answerScrapes();
  const primary = new Primary(options);
  cluster.on('exit', (worker, code, signal) => primary.exited(worker, code, signal));
  process.on('SIGTERM', primary.signalled);
  process.on('SIGINT', primary.signalled);
  process.on('SIGHUP', primary.reload);
  for (let i = 0; i < options.count; i += 1) primary.fork();
}

class Primary {
  private readonly backoff = new RestartBackoff();
  private readonly started = new WeakSet<Worker>();
  private readonly bornAt = new WeakMap<Worker, number>();
  private readonly replacements = new Set<NodeJS.Timeout>();
  private anyStarted = false;
  private stopping = false;
  /** 0 while every worker stopped cleanly; a failed first start's code (2: invalid config or input); else 1. */
  private exitCode = 0;

  constructor(private readonly options: PrimaryOptions) {}

  fork(): void {
    const worker = cluster.fork();
    this.bornAt.set(worker, Date.now());
    worker.on('message', (message: unknown) => {
      if (isMessage(message, 'rollup-router:ask-config'))
        worker.send({ type: 'rollup-router:config', loaded: this.options.loaded } satisfies ConfigMessage);
      if (isMessage(message, 'rollup-router:started')) {
        this.started.add(worker);
        this.anyStarted = true;
        this.options.log.info({ worker: worker.id, workerPid: worker.process.pid }, 'worker serving');
      }
    });
  }

  exited(worker: Worker, code: number, signal: string | null): void {
    const { log, exit } = this.options;
    const fields = { worker: worker.id, workerPid: worker.process.pid, code, signal };
    if (this.stopping) {
      if (code !== 0 && this.exitCode === 0) this.exitCode = 1;
      log.info(fields, 'worker stopped');
      if (living().length === 0) exit(this.exitCode);
      return;
    }
    if (!this.started.has(worker) && !this.anyStarted) {
      // The first start failed (a port in use, a bad routes file): stop as one process would, with its code.
      log.error(fields, 'worker could not start; stopping');
      this.exitCode = code === 0 ? 1 : code;
      this.stopAll();
      if (living().length === 0) exit(this.exitCode);
      return;
    }
    const delayMs = this.backoff.delayAfter(Date.now() - (this.bornAt.get(worker) ?? 0));
    log.error({ ...fields, delayMs }, 'worker died unexpectedly; replacing it');
    const timer = setTimeout(() => {
      this.replacements.delete(timer);
      this.fork();
    }, delayMs);
    this.replacements.add(timer);
  }

  readonly signalled = (signal: NodeJS.Signals): void => {
    const { log, exit } = this.options;
    if (this.stopping) {
      log.warn({ signal }, 'second signal: killing the workers, exiting without waiting');
      for (const worker of living()) worker.process.kill('SIGKILL');
      exit(1);
    }
    log.info({ signal, workers: living().length }, 'signal received; stopping the workers');
    this.stopAll();
  };

  readonly reload = (): void => {
    this.options.log.info({ signal: 'SIGHUP' }, 'reloading routes in every worker');
    for (const worker of living()) worker.process.kill('SIGHUP');
  };

  /** Each worker drains as on SIGTERM; one still running past the bound is killed, and the exit code says so. */
  private stopAll(): void {
    const { log, exit, stopBoundMs } = this.options;
    this.stopping = true;
    for (const timer of this.replacements) clearTimeout(timer);
    this.replacements.clear();
    for (const worker of living())
      if (worker.isConnected()) worker.send({ type: 'rollup-router:stop' } satisfies StopMessage);
    setTimeout(() => {
      const left = living();
      log.error(
        { workers: left.map((w) => w.id) },
        'workers still running past the shutdown bound: killing them',
      );
      for (const worker of left) worker.process.kill('SIGKILL');
      exit(1);
    }, stopBoundMs + EXIT_MARGIN_MS).unref();
  }
}

/** The workers not yet exited (one that just exited may still be listed, until its channel closes). */
const living = (): Worker[] =>
  Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
