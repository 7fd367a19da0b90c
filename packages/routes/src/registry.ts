import {
  AddressGuard,
  emitGuarded,
  inSchemaOrder,
  RawJson,
  validateOptions,
  type PluginContext,
  type ProviderState,
  type Schema,
} from '@rollup-router/core';
import { duplicateIssues, RouteListCheck } from './check-route-list.js';
import {
  routeEntrySchema,
  routesPluginOptionsSchema,
  type RouteEntry,
  type RoutesPluginOptions,
  type RoutesPluginOptionsResolved,
} from './generated/schemas.js';
import { ChainRouteSource, type ChainRecordsReport } from './chain/chain-route-source.js';
import { HealthChecker } from './health/health-checker.js';
import type { ProbeOutcome } from './health/probe.js';
import { afterProbe, initialStatus, type NodeStatus, type ProbeReport } from './node-status.js';
import { RouteListError } from './route-list-error.js';
import { FileSource } from './sources/file-source.js';
import { inlineSource } from './sources/inline-source.js';
import type { RouteSource, SourceReadiness } from './sources/route-source.js';

type Logger = PluginContext['log'];

/** Options of the registry and of routesPlugin: the JSON ones of the schema, plus an embedder's source. */
export type RoutesOptions = Omit<RoutesPluginOptions, 'routes'> & {
  /** An inline route list; checked at start like a routes file. */
  readonly routes?: readonly RouteEntry[];
  /** Nodes from anywhere else (a database, a service); see RouteSource. */
  readonly source?: RouteSource;
};

/** What getRoutes serves: the available nodes, already serialized. */
export class RoutesSnapshot {
  constructor(readonly raw: RawJson<RouteEntry[]>) {}

  /** The available nodes (frozen): the value the JSON was made from. */
  get routes(): readonly RouteEntry[] {
    return this.raw.value;
  }
}

interface SourceState {
  readonly source: RouteSource;
  entries: readonly RouteEntry[];
  unsubscribe?: () => void;
  /**
   * The chain registry, whose nodes anyone can register. It yields: an identity another
   * source lists is served from that source, and the chain's record of it is not a
   * duplicate error but ignored. Its nodes' URLs are called through chainGuard.
   */
  readonly fromChain?: boolean;
}

type Listener<T> = (value: T) => void;

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The wire's member order (the schema's), whatever order the file or database had. */
const inWireOrder = inSchemaOrder<RouteEntry>(routeEntrySchema);
const toWireEntry = (e: RouteEntry): RouteEntry => Object.freeze(inWireOrder(e));

const emptySnapshot = (): RoutesSnapshot => {
  const none: RouteEntry[] = [];
  return new RoutesSnapshot(new RawJson('[]', Object.freeze(none) as RouteEntry[]));
};

/**
 * The node registry behind getRoutes. It merges its sources (inline list, file, an
 * embedder's source), keeps the last good list of each when a new one is bad, follows
 * node health when asked to, and keeps one immutable snapshot of the available nodes,
 * with its JSON, rebuilt only when something changes, so a call costs no work at all.
 */
export class RouteRegistry {
  readonly allowInsecure: boolean;
  /** The schema getRoutes' result follows (https:// only unless allowInsecure). */
  readonly resultSchema: Schema;
  private readonly options: RoutesPluginOptionsResolved;
  private readonly listCheck: RouteListCheck;
  private readonly sources: SourceState[] = [];
  private readonly health: HealthChecker | undefined;
  /** What the chain's nodes are called through, unless chain.allowPrivateAddresses. */
  private readonly chainGuard: AddressGuard | undefined;
  private readonly chain: ChainRouteSource | undefined;
  private statuses = new Map<string, NodeStatus>();
  /** Identities a later source repeats (the chain's records of nodes the operator lists). */
  private shadowed = new Set<string>();
  private current: RoutesSnapshot = emptySnapshot();
  private readonly changeListeners = new Set<Listener<readonly RouteEntry[]>>();
  private readonly probeListeners = new Set<Listener<ProbeReport>>();
  private readonly chainRecordsListeners = new Set<Listener<ChainRecordsReport>>();
  private queue: Promise<unknown> = Promise.resolve();
  private log: Logger | undefined;
  private state: 'new' | 'starting' | 'started' | 'stopped' = 'new';

  constructor(options: RoutesOptions = {}) {
    const { source, ...json } = options;
    this.options = validateOptions<RoutesPluginOptionsResolved>(
      routesPluginOptionsSchema,
      json,
      'routes options',
    );
    this.allowInsecure = this.options.allowInsecure;
    this.listCheck = new RouteListCheck(this.allowInsecure);
    this.resultSchema = this.listCheck.schema;
    if (this.options.routes) this.sources.push({ source: inlineSource(this.options.routes), entries: [] });
    if (this.options.file) {
      const file = new FileSource(this.options.file, {
        watch: this.options.watch,
        debounceMs: this.options.watchDebounceMs,
        onWatchError: (err) => this.log?.error({ err, file: file.name }, 'watching the routes file failed'),
      });
      this.sources.push({ source: file, entries: [] });
    }
    if (source) this.sources.push({ source, entries: [] });
    const chain = this.options.chain;
    this.chainGuard =
      chain && !chain.allowPrivateAddresses
        ? new AddressGuard({ allowedBy: 'routes.chain.allowPrivateAddresses' })
        : undefined;
    if (chain) {
      const hooks = {
        entryIssues: (e: RouteEntry) => this.listCheck.entryIssues(e),
        log: () => this.log,
        records: (report: ChainRecordsReport) =>
          emitGuarded(this.chainRecordsListeners, report, this.log, 'route registry chain records listener'),
      };
      this.chain = new ChainRouteSource(chain, hooks);
      this.sources.push({ source: this.chain, entries: [], fromChain: true });
    }
    const health = this.options.health;
    this.health = health?.enabled
      ? new HealthChecker(health, (identity, fqdn, outcome) => this.onProbeOutcome(identity, fqdn, outcome))
      : undefined;
  }

  /**
   * Loads every source and, with health checking on, waits for each node's first probe
   * (bounded by the probe timeout). A bad source is an error here, with every issue in it.
   */
  async start(ctx: { log: Logger }): Promise<void> {
    if (this.state !== 'new') throw new Error('the route registry was already started');
    this.state = 'starting';
    this.log = ctx.log;
    // Subscribe first so that a change made while loading is not missed: its reload
    // queues behind the initial load.
    for (const state of this.sources) {
      state.unsubscribe = state.source.subscribe?.(() => {
        this.reloadSource(state).catch((err: unknown) => this.log?.error({ err }, 'reloading routes failed'));
      });
    }
    try {
      await this.serialize(() => this.loadAll());
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.state = 'started';
    await this.syncNodes();
  }

  /** Stops watching and probing. The last snapshot stays readable. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    for (const state of this.sources) state.unsubscribe?.();
    await this.health?.stop();
  }

  /**
   * Loads every source again (the server calls this on SIGHUP). A bad list keeps the
   * last good one of its source and is logged; the errors are also returned.
   */
  async reload(): Promise<RouteListError[]> {
    const results = await Promise.all(this.sources.map((state) => this.reloadSource(state)));
    return results.filter((r): r is RouteListError => r !== undefined);
  }

  /**
   * The chain registry's providers (routes.chain.providers) and their health as its reads
   * found them; undefined without routes.chain or with its one URL.
   */
  chainProviders(): ProviderState[] | undefined {
    return this.chain?.providerStates();
  }

  /** Why getRoutes cannot serve its full list yet (a source not read once), if so. */
  readiness(): SourceReadiness {
    for (const { source } of this.sources) {
      const r = source.readiness?.();
      if (r && !r.ready) return r;
    }
    return { ready: true };
  }

  /** The available nodes, in registry order (sources in order, entries in their order). */
  available(): readonly RouteEntry[] {
    return this.current.routes;
  }

  /** The available nodes with their serialized form, as getRoutes answers them. */
  snapshot(): RoutesSnapshot {
    return this.current;
  }

  /** Every registered node with its health, available or not. */
  nodes(): NodeStatus[] {
    return [...this.statuses.values()];
  }

  /**
   * Registry records not listed, counted by reason: the chain's records that fail the
   * route-entry schema (an http:// node without allowInsecure, say). A bad file or inline
   * list fails as a whole instead, so it has none here.
   */
  refused(): Record<string, number> {
    return this.chain?.refused() ?? {};
  }

  /** Round trip of the node's last successful probe, in milliseconds. */
  latencyMs(identity: string): number | undefined {
    return this.statuses.get(identity)?.lastLatencyMs;
  }

  /** Called with the new list of available nodes whenever it changes. Returns a function that unsubscribes. */
  onChange(listener: Listener<readonly RouteEntry[]>): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Called after every health probe (metrics). Returns a function that unsubscribes. */
  onProbe(listener: Listener<ProbeReport>): () => void {
    this.probeListeners.add(listener);
    return () => this.probeListeners.delete(listener);
  }

  /**
   * Called when the number of chain registry records followed, or left out past
   * chain.maxRecords, changes (metrics). Returns a function that unsubscribes.
   */
  onChainRecords(listener: Listener<ChainRecordsReport>): () => void {
    this.chainRecordsListeners.add(listener);
    return () => this.chainRecordsListeners.delete(listener);
  }

  /** The sources whose identities must be unique among themselves (all but the chain). */
  private ruling(): SourceState[] {
    return this.sources.filter((s) => !s.fromChain);
  }

  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async loadAll(): Promise<void> {
    const issues = [];
    for (const state of this.sources) {
      try {
        state.entries = await this.check(state.source);
      } catch (err) {
        if (!(err instanceof RouteListError)) throw err;
        issues.push(...err.issues);
      }
    }
    issues.push(
      ...duplicateIssues(this.ruling().map((s) => ({ source: s.source.name, entries: s.entries }))),
    );
    if (issues.length > 0) throw new RouteListError(issues);
    for (const state of this.sources) {
      this.log?.info({ source: state.source.name, nodes: state.entries.length }, 'route list loaded');
    }
  }

  /** Loads one source; its entries, checked and in wire order, or a RouteListError. */
  private async check(source: RouteSource): Promise<RouteEntry[]> {
    let list: unknown;
    try {
      list = await source.load();
    } catch (err) {
      if (err instanceof RouteListError) throw err;
      throw new RouteListError([
        { source: source.name, rule: 'load', message: (err as Error)?.message ?? String(err) },
      ]);
    }
    const issues = this.listCheck.issues(source.name, list);
    if (issues.length > 0) throw new RouteListError(issues);
    return (list as RouteEntry[]).map(toWireEntry);
  }

  private reloadSource(state: SourceState): Promise<RouteListError | undefined> {
    if (this.state === 'new') return Promise.reject(new Error('the route registry is not started'));
    return this.serialize(async () => {
      if (this.state === 'stopped') return undefined;
      let entries: RouteEntry[];
      try {
        entries = await this.check(state.source);
        const lists = this.ruling().map((s) => ({
          source: s.source.name,
          entries: s === state ? entries : s.entries,
        }));
        const duplicates = duplicateIssues(lists);
        if (duplicates.length > 0) throw new RouteListError(duplicates);
      } catch (err) {
        if (!(err instanceof RouteListError)) throw err;
        this.log?.error(
          { source: state.source.name, issues: err.issues, kept: state.entries.length },
          `route list rejected, keeping the last good one (${plural(state.entries.length, 'node')}): ${err.message}`,
        );
        return err;
      }
      if (JSON.stringify(entries) === JSON.stringify(state.entries)) return undefined;
      state.entries = entries;
      this.log?.info({ source: state.source.name, nodes: entries.length }, 'route list loaded');
      if (this.state === 'started') void this.syncNodes();
      return undefined;
    });
  }

  /**
   * Brings the node table in line with the sources: a node keeps its health while its
   * identity and URL stay the same; a new or moved node is probed at once. Resolves when
   * the new nodes' first probes are in.
   */
  private syncNodes(): Promise<unknown> {
    const checked = this.health !== undefined;
    const next = new Map<string, NodeStatus>();
    const fresh: NodeStatus[] = [];
    for (const { entry, fromChain } of this.mergedEntries()) {
      const previous = this.statuses.get(entry.identity);
      if (previous && previous.entry.fqdn === entry.fqdn && previous.fromChain === fromChain) {
        next.set(entry.identity, { ...previous, entry });
      } else {
        const status = initialStatus(entry, checked, {
          fromChain,
          addressGuard: fromChain ? this.chainGuard : undefined,
        });
        next.set(entry.identity, status);
        fresh.push(status);
      }
    }
    for (const identity of this.statuses.keys()) {
      if (!next.has(identity)) void this.health?.untrack(identity);
    }
    this.statuses = next;
    this.publish();
    return Promise.all(
      fresh.map(({ entry, addressGuard }) => this.health?.track(entry.identity, entry.fqdn, addressGuard)),
    );
  }

  /**
   * Every source's entries in order; an identity listed twice (only the chain may repeat
   * one the others list) is served from its first source. Logged once per identity.
   */
  private mergedEntries(): { entry: RouteEntry; fromChain: boolean }[] {
    const seen = new Set<string>();
    const shadowed = new Set<string>();
    const merged: { entry: RouteEntry; fromChain: boolean }[] = [];
    for (const state of this.sources) {
      for (const entry of state.entries) {
        if (!seen.has(entry.identity)) {
          seen.add(entry.identity);
          merged.push({ entry, fromChain: state.fromChain === true });
          continue;
        }
        shadowed.add(entry.identity);
        if (!this.shadowed.has(entry.identity)) {
          this.log?.info(
            { identity: entry.identity, source: state.source.name },
            'identity also listed by an earlier source, which is served',
          );
        }
      }
    }
    this.shadowed = shadowed;
    return merged;
  }

  private onProbeOutcome(identity: string, fqdn: string, outcome: ProbeOutcome): void {
    const before = this.statuses.get(identity);
    if (!before || before.entry.fqdn !== fqdn || this.state === 'stopped') return;
    if (!this.health) return;
    const after = afterProbe(before, outcome, this.health.settings.unhealthyAfter, Date.now());
    this.statuses.set(identity, after);
    const changed = before.available !== after.available;
    if (changed && after.available) {
      this.log?.info({ identity, fqdn, latencyMs: outcome.latencyMs }, 'node available');
    } else if (changed) {
      this.log?.warn(
        { identity, fqdn, consecutiveFailures: after.consecutiveFailures, error: after.lastError },
        'node unavailable',
      );
    } else if (!outcome.ok) {
      this.log?.debug({ identity, fqdn, error: after.lastError }, 'probe failed');
    }
    if (changed) this.publish();
    const report: ProbeReport = {
      identity,
      fqdn,
      ok: outcome.ok,
      latencyMs: outcome.latencyMs,
      failure: outcome.ok ? undefined : { kind: outcome.kind, message: outcome.message },
      available: after.available,
      changed,
    };
    emitGuarded(this.probeListeners, report, this.log, 'route registry probe listener');
  }

  /** Rebuilds the snapshot; observers hear of it only when the list really changed. */
  private publish(): void {
    const routes = Object.freeze([...this.statuses.values()].filter((s) => s.available).map((s) => s.entry));
    const json = JSON.stringify(routes);
    if (json === this.current.raw.json) return;
    this.current = new RoutesSnapshot(new RawJson(json, routes as RouteEntry[]));
    emitGuarded(this.changeListeners, routes, this.log, 'route registry change listener');
  }
}
