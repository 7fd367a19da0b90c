// autocannon's own histogram keeps whole milliseconds, too coarse for sub-millisecond
// loopback calls; this one keeps 10 µs buckets up to 1 s and 1 ms buckets up to 60 s.
const FINE_US = 10;
const FINE_LIMIT_US = 1_000_000;
const COARSE_US = 1_000;
const FINE = FINE_LIMIT_US / FINE_US;
const SIZE = FINE + 59_000;

export class LatencyHistogram {
  counts = new Uint32Array(SIZE);
  total = 0;
  sumMs = 0;

  record(ms) {
    const us = ms * 1000;
    const i =
      us < FINE_LIMIT_US
        ? Math.floor(us / FINE_US)
        : Math.min(SIZE - 1, FINE + Math.floor((us - FINE_LIMIT_US) / COARSE_US));
    this.counts[i]++;
    this.total++;
    this.sumMs += ms;
  }

  /** The latency (ms, upper edge of its bucket) below which `p` percent of calls fell. */
  percentile(p) {
    if (this.total === 0) return NaN;
    const rank = Math.ceil((p / 100) * this.total);
    let seen = 0;
    for (let i = 0; i < SIZE; i++) {
      seen += this.counts[i];
      if (seen >= rank)
        return i < FINE ? ((i + 1) * FINE_US) / 1000 : (FINE_LIMIT_US + (i - FINE + 1) * COARSE_US) / 1000;
    }
    return NaN;
  }

  get meanMs() {
    return this.total ? this.sumMs / this.total : NaN;
  }
}
