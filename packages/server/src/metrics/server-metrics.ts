import type { CallEvent, KeyCharge } from '@rollup-router/core';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { DeferredCounts } from './deferred-counts.js';
import { DeferredObservations } from './deferred-observations.js';

/** What the metrics need to know of a node: the routes registry's NodeStatus has it. */
export interface NodeView {
  readonly entry: { readonly identity: string; readonly fqdn: string };
  readonly available: boolean;
}

/** What the metrics need to know of a health probe: the routes registry's ProbeReport has it. */
export interface ProbeView {
  readonly identity: string;
  readonly ok: boolean;
  readonly latencyMs: number;
}

/** What the metrics need to know of the chain registry's records: the routes registry's ChainRecordsReport has it. */
export interface ChainRecordsView {
  readonly followed: number;
  readonly notFollowed: number;
}

/** What the metrics need to know of the Redis link: signature-statuses' RedisLink has it. */
export interface RedisLinkView {
  readonly up: boolean;
  readonly outages: number;
}

/** What the metrics need to know of the delegation router: its plugin has it. */
export interface DelegationRouterView {
  /** Distinct relayed subscriptions, and the upstream subscriptions per upstream label. */
  relayCounts(): { readonly relayed: number; readonly upstreamSubscriptions: ReadonlyMap<string, number> };
  /** Delegation records followed live on the base chain's websocket. */
  readonly followedRecords: () => number;
}

/**
 * Each provider set's providers and their health, by label: `base-chain:<name>` for the
 * delegation router's, `chain-registry:<name>` for the route registry's; none for one URL.
 */
export type ProviderHealth = () => readonly { readonly upstream: string; readonly healthy: boolean }[];

export interface ServerMetricsOptions {
  readonly processMetrics: boolean;
  readonly version: string;
  /** Method names served (read at the first call); any other name is counted as `other`, so callers cannot grow the label set. */
  readonly methods: () => readonly string[];
  /** The registered nodes at scrape time. */
  readonly nodes: () => readonly NodeView[];
  /** Requests being answered right now. */
  readonly inflight: () => number;
  /** Open WebSocket connections, live subscriptions and signatures waiting for their commitment, right now. */
  readonly sockets?: () => { connections: number; subscriptions: number; pendingSignatures: number };
  /** What GET /ready answers right now (true: 200). */
  readonly ready?: () => boolean;
}

/** One method's series, made once: a call allocates no label object. */
interface MethodSeries {
  readonly codes: DeferredCounts<number, 'method' | 'code'>;
  readonly ok: DeferredObservations<'method' | 'outcome'>;
  readonly error: DeferredObservations<'method' | 'outcome'>;
}

/** Labels from a `first\0second` key. */
const pairOf =
  <A extends string, B extends string>(a: A, b: B) =>
  (key: string): Record<A | B, string> => {
    const at = key.indexOf('\0');
    return { [a]: key.slice(0, at), [b]: key.slice(at + 1) } as Record<A | B, string>;
  };

const methodSeries = (method: string, seconds: Histogram<'method' | 'outcome'>): MethodSeries => ({
  codes: new DeferredCounts((code) => ({ method, code: String(code) })),
  ok: new DeferredObservations(seconds, { method, outcome: 'ok' }),
  error: new DeferredObservations(seconds, { method, outcome: 'error' }),
});

const PREFIX = 'rollup_router_';

/**
 * With `workers`, one scrape sums every worker's series (prom-client's AggregatorRegistry);
 * the gauges that are one process's view of something every worker sees alike (the release,
 * readiness, the nodes, Redis, the providers, the chain records) would be counted once per
 * worker instead. They report the first worker's (the release) or the worst one's.
 */
const WORKERS_AGGREGATE: Readonly<Record<string, 'first' | 'min' | 'max'>> = {
  info: 'first',
  ready: 'min',
  node_available: 'min',
  nodes_available: 'min',
  redis_up: 'min',
  upstream_provider_healthy: 'min',
  chain_records_followed: 'max',
  chain_records_not_followed: 'max',
  delegation_records_followed: 'max',
};
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Everything /metrics exports, in a registry of its own (not prom-client's global one,
 * so an embedder's metrics and ours never clash). The observe* methods are the plugins'
 * and the core's observer callbacks.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  /** Per served method and `other`, made at the first call (the method list is read then). */
  private series: Map<string, MethodSeries> | undefined;
  private readonly statuses = new DeferredCounts<number, 'status'>((status) => ({ status: String(status) }));
  private readonly methodNames: () => readonly string[];
  private readonly calls: Counter<'method' | 'code'>;
  private readonly callSeconds: Histogram<'method' | 'outcome'>;
  private readonly responses: Counter<'status'>;
  /** Calls answered per method and upstream, keyed `method\0upstream`. */
  private readonly answered = new DeferredCounts<string, 'method' | 'upstream'>(pairOf('method', 'upstream'));
  /** Upstream requests, and those that failed, per upstream and outcome, keyed `upstream\0outcome`. */
  private readonly upstreamOutcomes = new DeferredCounts<string, 'upstream' | 'outcome'>(
    pairOf('upstream', 'outcome'),
  );
  private readonly upstreamFailed = new DeferredCounts<string, 'upstream' | 'outcome'>(
    pairOf('upstream', 'outcome'),
  );
  /** Per upstream label (a bounded set), made at its first request. */
  private readonly upstreamTimes = new Map<string, DeferredObservations<'upstream'>>();
  private readonly upstreamCalls = this.counter<'upstream' | 'outcome'>(
    'upstream_requests_total',
    'HTTP requests to upstream Solana nodes, by upstream label and outcome: base-chain; er:<identity> for an ER of delegation.identity.allow or pin, er:other for the others; a statuses upstream by statuses.upstreams[].name, else its URL without path or query, numbered when two share one.',
    ['upstream', 'outcome'],
    (c) => this.upstreamOutcomes.flushInto(c),
  );
  private readonly upstreamFailures = this.counter<'upstream' | 'outcome'>(
    'upstream_failures_total',
    'Upstream requests that failed (timeout, unreachable, bad_response, rpc_error, aborted).',
    ['upstream', 'outcome'],
    (c) => this.upstreamFailed.flushInto(c),
  );
  private readonly upstreamSeconds = this.histogram<'upstream'>(
    'upstream_request_duration_seconds',
    'Time of one upstream request, from sending to the whole answer read.',
    ['upstream'],
    () => this.upstreamTimes.forEach((times) => times.flush()),
  );
  private readonly keyPoints = this.counter(
    'api_key_points_total',
    "Rate-limit points charged to each named API key (apiKeys[].name; never the key), to its own budget or, without one, to its client address's: what the customer's calls cost (perMethod).",
    ['key'],
  );
  private readonly keyRefusals = this.counter(
    'api_key_refusals_total',
    'Requests and WebSocket messages of each named API key refused because its budget was spent (HTTP 429, -32051 over WebSocket).',
    ['key'],
  );
  private readonly lookups: Counter<'layer'>;
  private readonly probes: Counter<'identity' | 'outcome'>;
  private readonly probeSeconds: Histogram<'identity'>;
  private pollRounds: Counter | undefined;
  private refusedSubscribes: Counter | undefined;
  private chainRecords: { followed: Gauge; notFollowed: Gauge } | undefined;

  constructor(options: ServerMetricsOptions) {
    this.methodNames = options.methods;
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    this.instanceGauges(options);
    this.calls = this.counter(
      'calls_total',
      'JSON-RPC calls answered, by method and outcome code (0 = success, else the JSON-RPC error code).',
      ['method', 'code'],
      (c) => this.flushCalls(c),
    );
    this.callSeconds = this.histogram(
      'call_duration_seconds',
      'Time from dispatch to answer of one JSON-RPC call.',
      ['method', 'outcome'],
      () => this.flushCallSeconds(),
    );
    this.responses = this.counter(
      'http_responses_total',
      'HTTP responses by status (401 unauthorized, 413 too large, 429 rate limited, 503 draining, ...).',
      ['status'],
      (c) => this.statuses.flushInto(c),
    );
    if (options.sockets) this.socketGauges(options.sockets);
    if (options.ready) this.readyGauge(options.ready);
    this.provenanceCounter();
    this.lookups = this.counter(
      'status_lookups_total',
      'Signatures settled per layer of the answer chain: memory and store are cache hits, unknown = nobody knew it.',
      ['layer'],
    );
    this.nodeGauges(options.nodes);
    this.probes = this.counter(
      'node_probes_total',
      'Health probes of registered nodes, by node identity and outcome (ok or failed).',
      ['identity', 'outcome'],
    );
    this.probeSeconds = this.histogram(
      'node_probe_duration_seconds',
      'Round trip of health probes of registered nodes.',
      ['identity'],
    );
  }

  /** Which release runs, and the HTTP requests under way. */
  private instanceGauges(options: ServerMetricsOptions): void {
    const info = this.gauge('info', 'Always 1; the version label says which release runs.', ['version']);
    info.set({ version: options.version }, 1);
    this.gauge('http_inflight_requests', 'HTTP requests being answered.', [], (g) =>
      g.set(options.inflight()),
    );
  }

  /** /ready as a series, so an alert names the instance a load balancer took out (why is in /ready's body). */
  private readyGauge(ready: () => boolean): void {
    this.gauge(
      'ready',
      '1 while GET /ready answers 200; 0 while it answers 503 (starting, draining, store closed, no upstream answering).',
      [],
      (g) => g.set(ready() ? 1 : 0),
    );
  }

  /** Gauges of the WebSocket transport and its subscriptions, read at scrape time. */
  private socketGauges(sockets: NonNullable<ServerMetricsOptions['sockets']>): void {
    this.pollRounds = this.counter(
      'signature_poll_rounds_total',
      'Poll rounds of pending signatureSubscribe signatures (each is one coalesced lookup, 256 signatures per upstream request).',
      [],
    );
    this.refusedSubscribes = this.counter(
      'signature_subscriptions_refused_total',
      'signatureSubscribe calls refused with -32064 because statuses.subscriptions.maxPendingSignatures distinct signatures were already pending.',
      [],
    );
    this.gauge('websocket_connections', 'Open WebSocket connections.', [], (g) =>
      g.set(sockets().connections),
    );
    this.gauge(
      'subscriptions',
      'Live subscriptions (signatureSubscribe, ...) on every WebSocket connection; a closed socket frees its own.',
      [],
      (g) => g.set(sockets().subscriptions),
    );
    this.gauge(
      'signature_subscriptions_pending',
      'signatureSubscribe subscriptions waiting for their commitment (polled every round).',
      [],
      (g) => g.set(sockets().pendingSignatures),
    );
  }

  /** Per-node availability, read from the registry at scrape time. */
  private nodeGauges(nodes: () => readonly NodeView[]): void {
    this.gauge(
      'node_available',
      'Per registered node: 1 when getRoutes lists it, 0 when its health probes fail.',
      ['identity', 'fqdn'],
      (g) => {
        g.reset();
        for (const n of nodes())
          g.set({ identity: n.entry.identity, fqdn: n.entry.fqdn }, n.available ? 1 : 0);
      },
    );
    this.gauge('nodes_available', 'How many nodes getRoutes lists.', [], (g) =>
      g.set(nodes().filter((n) => n.available).length),
    );
  }

  private flushCalls(counter: Counter<'method' | 'code'>): void {
    for (const series of this.series?.values() ?? []) series.codes.flushInto(counter);
  }

  private flushCallSeconds(): void {
    for (const series of this.series?.values() ?? []) {
      series.ok.flush();
      series.error.flush();
    }
  }

  /** `collect` adds counts kept outside prom-client (the per-call ones) when a scrape reads them. */
  private counter<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect?: (counter: Counter<L>) => void,
  ): Counter<L> {
    return new Counter({
      name: PREFIX + name,
      help,
      labelNames,
      registers: [this.registry],
      ...(collect && {
        collect(this: Counter<L>) {
          collect(this);
        },
      }),
    });
  }

  /** A histogram of seconds; `collect` (when given) observes at scrape time what was kept back. */
  private histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect?: () => void,
  ): Histogram<L> {
    return new Histogram({
      name: PREFIX + name,
      help,
      labelNames,
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
      ...(collect && { collect }),
    });
  }

  /** A gauge; `collect` (when given) sets its value at scrape time. */
  private gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect?: (gauge: Gauge<L>) => void,
  ): Gauge<L> {
    const aggregator = WORKERS_AGGREGATE[name];
    return new Gauge({
      name: PREFIX + name,
      help,
      labelNames,
      registers: [this.registry],
      ...(aggregator && { aggregator }),
      ...(collect && {
        collect(this: Gauge<L>) {
          collect(this);
        },
      }),
    });
  }

  readonly observeCall = (e: CallEvent): void => {
    this.series ??= new Map(
      [...this.methodNames(), 'other'].map((m) => [m, methodSeries(m, this.callSeconds)]),
    );
    const known = this.series.get(e.method);
    const series = known ?? this.series.get('other')!;
    series.codes.add(e.code);
    (e.code === 0 ? series.ok : series.error).observe(e.durationMs / 1000);
    if (e.upstreams !== undefined) {
      const method = known === undefined ? 'other' : e.method;
      for (const upstream of e.upstreams) this.answered.add(`${method}\0${upstream}`);
    }
  };

  /** Provenance: the upstreams of calls answered from one, kept by observeCall. */
  private provenanceCounter(): void {
    this.counter(
      'calls_by_upstream_total',
      "Calls answered from an upstream (provenance: the call's log line names it too), by method and the label of each upstream that answered: base-chain, er:<identity> of an ER of delegation.identity.allow or pin, er:other for the others. A call answered from several upstreams (a merged getMultipleAccounts) counts once for each.",
      ['method', 'upstream'],
      (c) => this.answered.flushInto(c),
    );
  }

  readonly observeKeyCharge = (charge: KeyCharge): void => {
    this.keyPoints.inc({ key: charge.key }, charge.points);
    if (charge.refused) this.keyRefusals.inc({ key: charge.key });
  };

  readonly observeResponse = (status: number): void => {
    this.statuses.add(status);
  };

  /** Kept as the per-call metrics are (DeferredCounts, DeferredObservations): one per forwarded call. */
  readonly observeUpstream = (upstream: string, outcome: string, ms: number): void => {
    const key = `${upstream}\0${outcome}`;
    this.upstreamOutcomes.add(key);
    if (outcome !== 'ok') this.upstreamFailed.add(key);
    let times = this.upstreamTimes.get(upstream);
    if (times === undefined)
      this.upstreamTimes.set(
        upstream,
        (times = new DeferredObservations(this.upstreamSeconds, { upstream })),
      );
    times.observe(ms / 1000);
  };

  readonly observePollRound = (): void => {
    this.pollRounds?.inc();
  };

  readonly observeRefusedSubscribe = (): void => {
    this.refusedSubscribes?.inc();
  };

  readonly observeLookup = (layer: string, count: number): void => {
    this.lookups.inc({ layer }, count);
  };

  readonly observeProbe = (report: ProbeView): void => {
    this.probes.inc({ identity: report.identity, outcome: report.ok ? 'ok' : 'failed' });
    if (report.ok) this.probeSeconds.observe({ identity: report.identity }, report.latencyMs / 1000);
  };

  /** The chain registry's record counts; the gauges exist once a chain source reports. */
  readonly observeChainRecords = (report: ChainRecordsView): void => {
    this.chainRecords ??= {
      followed: this.gauge(
        'chain_records_followed',
        'Chain registry records followed (at most chain.maxRecords).',
        [],
      ),
      notFollowed: this.gauge(
        'chain_records_not_followed',
        'Chain registry records not followed nor listed because chain.maxRecords are followed; above 0, the cap is reached.',
        [],
      ),
    };
    this.chainRecords.followed.set(report.followed);
    this.chainRecords.notFollowed.set(report.notFollowed);
  };

  /** Exports the state of the link to the shared Redis: up or not, and how many outages. */
  watchRedis(link: RedisLinkView): void {
    const registers = [this.registry];
    new Gauge({
      name: `${PREFIX}redis_up`,
      aggregator: WORKERS_AGGREGATE.redis_up,
      help: '1 while the shared Redis is connected; 0 while it is down (rate limits per instance, statuses from local layers and upstreams).',
      registers,
      collect() {
        this.set(link.up ? 1 : 0);
      },
    });
    new Counter({
      name: `${PREFIX}redis_outages_total`,
      help: 'Outages of the shared Redis since start (a failed first connection counts as one).',
      registers,
      collect() {
        // The link counts; the counter reports its count.
        this.reset();
        this.inc(link.outages);
      },
    });
  }

  /** Exports the delegation router's relay and record follower, read at scrape time. */
  watchDelegationRouter(router: DelegationRouterView): void {
    this.gauge(
      'relayed_subscriptions',
      'accountSubscribe and slotSubscribe subscriptions relayed to the base chain and the ERs (clients holding the same one share it).',
      [],
      (g) => g.set(router.relayCounts().relayed),
    );
    this.gauge(
      'relayed_upstream_subscriptions',
      'Subscriptions held on each upstream websocket of the relay, by upstream label (base-chain, er:<identity>, er:other).',
      ['upstream'],
      (g) => {
        g.reset();
        for (const [upstream, count] of router.relayCounts().upstreamSubscriptions)
          g.set({ upstream }, count);
      },
    );
    this.gauge(
      'delegation_records_followed',
      "Delegation records followed live (accountSubscribe on the base chain's websocket); the others are read again after delegations.ttlMs.",
      [],
      (g) => g.set(router.followedRecords()),
    );
  }

  /** Exports the health of the providers of each provider set, read at scrape time. */
  watchProviders(health: ProviderHealth): void {
    this.gauge(
      'upstream_provider_healthy',
      "With several providers of a chain: 1 while a provider takes calls, 0 while it is out (failing or lagging), by provider set and name (base-chain:<name> for the delegation router's, chain-registry:<name> for the route registry's).",
      ['upstream'],
      (g) => {
        g.reset();
        for (const { upstream, healthy } of health()) g.set({ upstream }, healthy ? 1 : 0);
      },
    );
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
