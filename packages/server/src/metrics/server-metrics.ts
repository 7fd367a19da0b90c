import type { CallEvent } from '@rollup-router/core';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { DeferredCounts } from './deferred-counts.js';

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

export interface ServerMetricsOptions {
  readonly processMetrics: boolean;
  readonly version: string;
  /** Method names served (read at the first call); any other name is counted as `other`, so callers cannot grow the label set. */
  readonly methods: () => readonly string[];
  /** The registered nodes at scrape time. */
  readonly nodes: () => readonly NodeView[];
  /** Requests being answered right now. */
  readonly inflight: () => number;
}

/** One method's series, made once: a call allocates no label object. */
interface MethodSeries {
  readonly codes: DeferredCounts<number, 'method' | 'code'>;
  readonly ok: { readonly method: string; readonly outcome: 'ok' };
  readonly error: { readonly method: string; readonly outcome: 'error' };
}

const methodSeries = (method: string): MethodSeries => ({
  codes: new DeferredCounts((code) => ({ method, code: String(code) })),
  ok: { method, outcome: 'ok' },
  error: { method, outcome: 'error' },
});

const PREFIX = 'rollup_router_';
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
  private readonly upstreamCalls: Counter<'upstream' | 'outcome'>;
  private readonly upstreamFailures: Counter<'upstream' | 'outcome'>;
  private readonly upstreamSeconds: Histogram<'upstream'>;
  private readonly lookups: Counter<'layer'>;
  private readonly probes: Counter<'identity' | 'outcome'>;
  private readonly probeSeconds: Histogram<'identity'>;

  constructor(options: ServerMetricsOptions) {
    const registers = [this.registry];
    const statuses = this.statuses;
    this.methodNames = options.methods;
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    new Gauge({
      name: `${PREFIX}info`,
      help: 'Always 1; the version label says which release runs.',
      labelNames: ['version'],
      registers,
    }).set({ version: options.version }, 1);
    const series = (): Iterable<MethodSeries> => this.series?.values() ?? [];
    this.calls = new Counter({
      name: `${PREFIX}calls_total`,
      help: 'JSON-RPC calls answered, by method and outcome code (0 = success, else the JSON-RPC error code).',
      labelNames: ['method', 'code'],
      registers,
      collect() {
        for (const s of series()) s.codes.flushInto(this);
      },
    });
    this.callSeconds = new Histogram({
      name: `${PREFIX}call_duration_seconds`,
      help: 'Time from dispatch to answer of one JSON-RPC call.',
      labelNames: ['method', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.responses = new Counter({
      name: `${PREFIX}http_responses_total`,
      help: 'HTTP responses by status (401 unauthorized, 413 too large, 429 rate limited, 503 draining, ...).',
      labelNames: ['status'],
      registers,
      collect() {
        statuses.flushInto(this);
      },
    });
    new Gauge({
      name: `${PREFIX}http_inflight_requests`,
      help: 'HTTP requests being answered.',
      registers,
      collect() {
        this.set(options.inflight());
      },
    });
    this.upstreamCalls = new Counter({
      name: `${PREFIX}upstream_requests_total`,
      help: 'HTTP requests to upstream Solana nodes, by upstream (origin only) and outcome.',
      labelNames: ['upstream', 'outcome'],
      registers,
    });
    this.upstreamFailures = new Counter({
      name: `${PREFIX}upstream_failures_total`,
      help: 'Upstream requests that failed (timeout, unreachable, bad_response, rpc_error, aborted).',
      labelNames: ['upstream', 'outcome'],
      registers,
    });
    this.upstreamSeconds = new Histogram({
      name: `${PREFIX}upstream_request_duration_seconds`,
      help: 'Time of one upstream request, from sending to the whole answer read.',
      labelNames: ['upstream'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.lookups = new Counter({
      name: `${PREFIX}status_lookups_total`,
      help: 'Signatures settled per layer of the answer chain: memory and store are cache hits, unknown = nobody knew it.',
      labelNames: ['layer'],
      registers,
    });
    new Gauge({
      name: `${PREFIX}node_available`,
      help: 'Per registered node: 1 when getRoutes lists it, 0 when its health probes fail.',
      labelNames: ['identity', 'fqdn'],
      registers,
      collect() {
        this.reset();
        for (const n of options.nodes())
          this.set({ identity: n.entry.identity, fqdn: n.entry.fqdn }, n.available ? 1 : 0);
      },
    });
    new Gauge({
      name: `${PREFIX}nodes_available`,
      help: 'How many nodes getRoutes lists.',
      registers,
      collect() {
        this.set(options.nodes().filter((n) => n.available).length);
      },
    });
    this.probes = new Counter({
      name: `${PREFIX}node_probes_total`,
      help: 'Health probes of registered nodes, by node identity and outcome (ok or failed).',
      labelNames: ['identity', 'outcome'],
      registers,
    });
    this.probeSeconds = new Histogram({
      name: `${PREFIX}node_probe_duration_seconds`,
      help: 'Round trip of health probes of registered nodes.',
      labelNames: ['identity'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
  }

  readonly observeCall = (e: CallEvent): void => {
    this.series ??= new Map([...this.methodNames(), 'other'].map((m) => [m, methodSeries(m)]));
    const series = this.series.get(e.method) ?? this.series.get('other')!;
    series.codes.add(e.code);
    this.callSeconds.observe(e.code === 0 ? series.ok : series.error, e.durationMs / 1000);
  };

  readonly observeResponse = (status: number): void => {
    this.statuses.add(status);
  };

  readonly observeUpstream = (upstream: string, outcome: string, ms: number): void => {
    this.upstreamCalls.inc({ upstream, outcome });
    if (outcome !== 'ok') this.upstreamFailures.inc({ upstream, outcome });
    this.upstreamSeconds.observe({ upstream }, ms / 1000);
  };

  readonly observeLookup = (layer: string, count: number): void => {
    this.lookups.inc({ layer }, count);
  };

  readonly observeProbe = (report: ProbeView): void => {
    this.probes.inc({ identity: report.identity, outcome: report.ok ? 'ok' : 'failed' });
    if (report.ok) this.probeSeconds.observe({ identity: report.identity }, report.latencyMs / 1000);
  };

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
