// Upstream requests per poll round of the pending signatureSubscribe subscriptions:
// the stand-in's request count (`GET /hits`) over whole rounds, the rounds counted by
// the server itself (`rollup_router_signature_poll_rounds_total` on /metrics). Readings
// are taken just after a round ends, in the pause before the next (400 ms apart).
const ROUNDS = 'rollup_router_signature_poll_rounds_total';

// A busy server answers /metrics between poll rounds of 10,000 signatures: be patient.
const getText = async (url) => (await fetch(url, { signal: AbortSignal.timeout(30_000) })).text();

/** The value of an unlabelled Prometheus counter, or NaN when absent. */
export function counterValue(text, metric) {
  const m = new RegExp(`^${metric} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

const roundsDone = async (metricsUrl) => counterValue(await getText(metricsUrl), ROUNDS);

/** Polls until the server counted more than `after` rounds; resolves with the count. */
async function roundEnded(metricsUrl, after, timeoutMs) {
  const give = Date.now() + timeoutMs;
  for (;;) {
    const n = await roundsDone(metricsUrl);
    if (!Number.isFinite(n)) throw new Error(`no ${ROUNDS} on ${metricsUrl}`);
    if (n > after) return n;
    if (Date.now() > give) throw new Error(`no poll round ended within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Over `rounds` whole poll rounds: `{ rounds, requests, perRound }`. The first round is
 * skipped: the lookups of the subscriptions just made may still be under way.
 */
export async function requestsPerRound(metricsUrl, helperUrl, { rounds = 5, timeoutMs = 60_000 } = {}) {
  let seen = await roundEnded(metricsUrl, await roundsDone(metricsUrl), timeoutMs);
  seen = await roundEnded(metricsUrl, seen, timeoutMs);
  const hitsBefore = Number(await getText(`${helperUrl}/hits`));
  const first = seen;
  while (seen < first + rounds) seen = await roundEnded(metricsUrl, seen, timeoutMs);
  const requests = Number(await getText(`${helperUrl}/hits`)) - hitsBefore;
  return { rounds: seen - first, requests, perRound: requests / (seen - first) };
}
