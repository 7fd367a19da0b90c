import type { Counter } from 'prom-client';

/**
 * Counts of a prom-client counter kept as plain numbers per label set, and added to the
 * counter when it is collected (a scrape). Per event that is a Map lookup and an add,
 * not prom-client's label validation and hashing; the exposition is the same, since
 * every scrape collects first.
 */
export class DeferredCounts<K, L extends string> {
  private readonly pending = new Map<K, number>();

  constructor(private readonly labelsOf: (key: K) => Partial<Record<L, string>>) {}

  add(key: K, n = 1): void {
    this.pending.set(key, (this.pending.get(key) ?? 0) + n);
  }

  /** Adds what was counted since the last call to `counter`; call it from the counter's `collect`. */
  flushInto(counter: Counter<L>): void {
    for (const [key, n] of this.pending) {
      if (n === 0) continue;
      counter.inc(this.labelsOf(key), n);
      this.pending.set(key, 0);
    }
  }
}
