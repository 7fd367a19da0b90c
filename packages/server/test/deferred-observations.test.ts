import { expect } from 'chai';
import { Histogram, Registry } from 'prom-client';
import { DeferredObservations } from '../src/metrics/deferred-observations.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];

function histogram(collect?: () => void): { registry: Registry; seconds: Histogram<'method' | 'outcome'> } {
  const registry = new Registry();
  const seconds = new Histogram({
    name: 'seconds',
    help: 'h',
    labelNames: ['method', 'outcome'],
    buckets: BUCKETS,
    registers: [registry],
    ...(collect && { collect }),
  });
  return { registry, seconds };
}

const countOf = async (h: Histogram<'method' | 'outcome'>): Promise<number | undefined> =>
  (await h.get()).values.find((v) => v.metricName === 'seconds_count')?.value;

describe('server metrics: DeferredObservations', () => {
  const labels = { method: 'getRoutes', outcome: 'ok' } as const;
  const values = Array.from({ length: 700 }, (_, i) => (i % 37) / 200);

  it('a scrape shows exactly what observing each value directly shows', async () => {
    const direct = histogram();
    for (const v of values) direct.seconds.observe(labels, v);
    // Collected only by the scrapes below, after `kept` exists.
    const deferred = histogram(() => kept.flush());
    const kept = new DeferredObservations(deferred.seconds, labels, 256);
    for (const v of values) kept.observe(v);
    expect(await deferred.registry.metrics()).to.equal(await direct.registry.metrics());
    // A second scrape adds nothing twice.
    expect(await deferred.registry.metrics()).to.equal(await direct.registry.metrics());
  });

  it('observes into the histogram once `capacity` have gathered, with no scrape', async () => {
    const { seconds } = histogram();
    const kept = new DeferredObservations(seconds, labels, 4);
    for (const v of [0.1, 0.2, 0.3]) kept.observe(v);
    expect(await countOf(seconds)).to.equal(undefined);
    kept.observe(0.4);
    expect(await countOf(seconds)).to.equal(4);
    kept.observe(0.5);
    expect(await countOf(seconds)).to.equal(4);
    kept.flush();
    expect(await countOf(seconds)).to.equal(5);
  });

  it('drops a value prom-client would refuse, so a later scrape never fails on it', async () => {
    const { seconds } = histogram();
    const kept = new DeferredObservations(seconds, labels, 4);
    for (const v of [0.1, Number.NaN, Number.POSITIVE_INFINITY, 0.2]) kept.observe(v);
    kept.flush();
    expect(await countOf(seconds)).to.equal(2);
  });
});
