// Load with autocannon's programmatic API, in this (the parent) process: warm-up that
// is not counted, and measured runs with the same settings for every target. Latency
// percentiles come from our own histogram.
import autocannon from 'autocannon';
import { createHistogram } from 'node:perf_hooks';

const HEADERS = { 'content-type': 'application/json' };

/** Latencies in ms, kept in µs: autocannon's own histogram keeps whole ms, too coarse on loopback. */
export function latencyHistogram() {
  const h = createHistogram();
  return {
    record: (ms) => h.record(Math.max(1, Math.round(ms * 1000))),
    percentile: (p) => (h.count ? h.percentile(p) / 1000 : NaN),
    get meanMs() {
      return h.count ? h.mean / 1000 : NaN;
    },
  };
}

function fire(opts, onResponse) {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ method: 'POST', headers: HEADERS, timeout: 10, ...opts }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
    if (onResponse) instance.on('response', onResponse);
  });
}

/**
 * `request` for autocannon. With `bodies`, its body rotates through them, one after the other
 * over all connections, and on from where the last run (or nextBody) left off: a pool of
 * single-use bodies (signed transactions) is not sent twice while it lasts.
 */
const toAutocannon = (request) => ({
  method: 'POST',
  path: request.path,
  headers: HEADERS,
  body: request.body ?? request.bodies[0],
  ...(request.bodies && { setupRequest: (req) => ({ ...req, body: nextBody(request) }) }),
});

/** The body `request` sends next: its own, or the next of its rotating `bodies`. */
export function nextBody(request) {
  if (request.body !== undefined) return request.body;
  request.next ??= 0;
  return request.bodies[request.next++ % request.bodies.length];
}

/** The autocannon options of `requests`: one fixed request goes as plain url+body (cheapest for the client). */
function loadOptions(url, requests, connections) {
  const single = requests.length === 1 && !requests[0].bodies;
  return {
    url: single ? new URL(requests[0].path, url).href : url,
    connections,
    ...(single ? { body: requests[0].body } : { requests: requests.map(toAutocannon) }),
  };
}

/** Load that is not measured: JIT, connections, caches; `seconds` of it, or a fifth of `amount` calls. */
export async function warmUp(url, requests, { connections, amount }, seconds) {
  const length = amount ? { amount: Math.ceil(amount / 5) } : { duration: seconds };
  if (seconds > 0) await fire({ ...loadOptions(url, requests, connections), ...length });
}

/**
 * `requests`: [{ path, body } | { path, bodies }] cycled by every connection; `settings`: { duration,
 * connections } or `amount` for a fixed number of calls. `onStart` runs just before the first
 * measured request goes out.
 */
export async function measureLoad(url, requests, settings, onStart) {
  const base = loadOptions(url, requests, settings.connections);
  const histogram = latencyHistogram();
  const measured = settings.amount ? { amount: settings.amount } : { duration: settings.duration };
  onStart?.();
  const started = performance.now();
  let last = started;
  const r = await fire({ ...base, ...measured }, (_client, status, _bytes, ms) => {
    last = performance.now();
    if (status >= 200 && status < 300) histogram.record(ms);
  });
  // autocannon ends a run of `amount` calls on its next 1-s tick: the calls took until the last answer.
  const seconds = settings.amount ? (last - started) / 1000 : (r.finish - r.start) / 1000;
  return loadResult(r.requests.total, seconds, histogram, r, r.throughput.average);
}

/** A measured run's figures, over HTTP or sockets; `failed`: { errors, timeouts, non2xx, latency.max }. */
export function loadResult(requests, seconds, histogram, failed, bytesPerSec) {
  const { errors, timeouts = 0, non2xx } = failed;
  const latencyMs = Object.fromEntries([50, 90, 99].map((p) => [`p${p}`, histogram.percentile(p)]));
  const max = failed.latency?.max ?? histogram.percentile(100);
  return {
    reqPerSec: requests / seconds,
    totalRequests: requests,
    seconds,
    latencyMs: { ...latencyMs, mean: histogram.meanMs, max },
    errors,
    timeouts,
    non2xx,
    bytesPerSec,
  };
}
