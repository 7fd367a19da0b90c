// One load run with autocannon's programmatic API, in this (the parent) process:
// a warm-up that is not counted, then the measured run with the same settings for
// every target. Latency percentiles come from our own 10 µs histogram.
import autocannon from 'autocannon';
import { LatencyHistogram } from './latency-histogram.mjs';

const HEADERS = { 'content-type': 'application/json' };

function fire(opts, onResponse) {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ method: 'POST', headers: HEADERS, timeout: 10, ...opts }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
    if (onResponse) instance.on('response', onResponse);
  });
}

/** A request whose body rotates through `bodies`, one after the other over all connections. */
function rotating({ path, bodies }) {
  let next = 0;
  return {
    method: 'POST',
    path,
    headers: HEADERS,
    body: bodies[0],
    setupRequest: (req) => ({ ...req, body: bodies[next++ % bodies.length] }),
  };
}

/**
 * `requests`: [{ path, body } | { path, bodies }] cycled by every connection; `settings`: { warmup,
 * duration, connections, pipelining } or `amount` for a fixed number of calls.
 */
export async function runLoad(url, requests, settings) {
  // One fixed request goes as autocannon's plain url+body (prebuilt once, cheapest for the client).
  const single = requests.length === 1 && !requests[0].bodies;
  const base = {
    url: single ? new URL(requests[0].path, url).href : url,
    connections: settings.connections,
    pipelining: settings.pipelining,
    ...(single
      ? { body: requests[0].body }
      : {
          requests: requests.map((r) =>
            r.bodies ? rotating(r) : { method: 'POST', path: r.path, body: r.body, headers: HEADERS },
          ),
        }),
  };
  if (settings.warmup > 0) await fire({ ...base, duration: settings.warmup });

  const histogram = new LatencyHistogram();
  const measured = settings.amount ? { amount: settings.amount } : { duration: settings.duration };
  const r = await fire({ ...base, ...measured }, (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) histogram.record(ms);
  });
  const seconds = (r.finish - r.start) / 1000;
  return {
    reqPerSec: r.requests.total / seconds,
    reqPerSecAutocannonAvg: r.requests.average,
    reqPerSecStddev: r.requests.stddev,
    totalRequests: r.requests.total,
    seconds,
    latencyMs: {
      p50: histogram.percentile(50),
      p90: histogram.percentile(90),
      p99: histogram.percentile(99),
      mean: histogram.meanMs,
      max: r.latency.max,
      autocannonP50: r.latency.p50,
      autocannonP99: r.latency.p99,
    },
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    mismatches: r.mismatches ?? 0,
    bytesPerSec: r.throughput.average,
  };
}
