import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { pino } from 'pino';
import { redactUrl } from '@rollup-router/core';
import { readinessReport } from '../src/readiness/readiness.js';
import { UpstreamWatch } from '../src/readiness/upstream-watch.js';

/**
 * A node answering getHealth like the captured validator. With `basicAuth` it behaves like
 * a provider behind HTTP basic auth: without the right Authorization header, 401.
 */
async function healthyNode(
  basicAuth?: string,
): Promise<{ url: string; hits: () => number; refused: () => number; close: () => Promise<void> }> {
  let hits = 0;
  let refused = 0;
  const expected = basicAuth && `Basic ${Buffer.from(basicAuth).toString('base64')}`;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (expected && req.headers.authorization !== expected) {
        refused += 1;
        res.writeHead(401, { 'www-authenticate': 'Basic realm="rpc"' });
        res.end();
        return;
      }
      hits += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"jsonrpc":"2.0","result":"ok","id":1}\n');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    hits: () => hits,
    refused: () => refused,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

const until = async (check: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never happened: ${what}`);
};

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const silent = pino({ level: 'silent' });
const report = (watch: UpstreamWatch, storeOpen: boolean | undefined = true) =>
  readinessReport({
    started: () => true,
    draining: () => false,
    storeOpen: () => storeOpen,
    nodes: () => ({ registered: 1, available: 1 }),
    upstreams: watch,
  });

describe('UpstreamWatch and the readiness report', () => {
  it('with no upstream configured, readiness does not depend on one', () => {
    const watch = new UpstreamWatch(
      { urls: [], freshMs: 1000, probeIntervalMs: 0, probeTimeoutMs: 100 },
      silent,
    );
    expect(report(watch).ready).to.equal(true);
    expect(report(watch).checks.upstreams).to.equal('none configured');
  });

  it('is not ready until an upstream answers; a probe of a quiet upstream makes it ready', async () => {
    const node = await healthyNode();
    const watch = new UpstreamWatch(
      { urls: [node.url], freshMs: 60_000, probeIntervalMs: 50, probeTimeoutMs: 1000 },
      silent,
    );
    try {
      expect(report(watch).ready).to.equal(false);
      expect(report(watch).reasons).to.deep.equal(['no upstream has answered yet']);
      watch.start();
      await until(() => report(watch).ready, 'ready after the probe');
      expect(node.hits()).to.be.at.least(1);
    } finally {
      watch.stop();
      await node.close();
    }
  });

  it('probes an upstream whose URL carries credentials, sending them as basic auth', async () => {
    const node = await healthyNode('operator:s3cr3t é');
    const url = node.url.replace('http://', 'http://operator:s3cr3t%20%C3%A9@');
    const watch = new UpstreamWatch(
      { urls: [url], freshMs: 60_000, probeIntervalMs: 50, probeTimeoutMs: 1000 },
      silent,
    );
    try {
      watch.start();
      await until(() => report(watch).ready, 'ready after a probe with credentials');
      expect(node.hits()).to.be.at.least(1);
      expect(node.refused()).to.equal(0);
      // The credentials never show: the upstream is named as everywhere else.
      expect(watch.describe()).to.match(/^http:\/\/127\.0\.0\.1:\d+\/…: answered/);
    } finally {
      watch.stop();
      await node.close();
    }
  });

  it('names a probed upstream by its redacted URL until told the names the statuses plugin gives', async () => {
    const node = await healthyNode();
    const url = `${node.url}secret-key?api-key=hunter2`;
    const watch = new UpstreamWatch(
      { urls: [url], freshMs: 60_000, probeIntervalMs: 50, probeTimeoutMs: 1000 },
      silent,
    );
    try {
      expect(watch.describe()).to.match(new RegExp(`^${escape(redactUrl(url))}: none answered yet$`));
      expect(redactUrl(url)).to.equal(node.url.replace(/\/$/, '/…'));
      watch.useNames([{ url, name: 'provider-a' }]);
      watch.start();
      await until(() => report(watch).ready, 'ready after the probe');
      expect(watch.describe()).to.match(/^provider-a: answered \d+ ms ago$/);
    } finally {
      watch.stop();
      await node.close();
    }
  });

  it('one entry per configured upstream; an answer from an upstream it does not know (an extra one) is no evidence', () => {
    const watch = new UpstreamWatch(
      {
        urls: ['http://127.0.0.1:9/key-a', 'http://127.0.0.1:9/key-b'],
        freshMs: 60_000,
        probeIntervalMs: 0,
        probeTimeoutMs: 100,
      },
      silent,
    );
    watch.useNames([
      { url: 'http://127.0.0.1:9/key-a', name: 'http://127.0.0.1:9/…' },
      { url: 'http://127.0.0.1:9/key-b', name: 'http://127.0.0.1:9/… #2' },
    ]);
    watch.record('http://127.0.0.1:9/… (extra)', 'ok');
    expect(report(watch).ready).to.equal(false);
    watch.record('http://127.0.0.1:9/… #2', 'ok');
    expect(report(watch).ready).to.equal(true);
    expect(watch.describe()).to.match(
      /^http:\/\/127\.0\.0\.1:9\/…: none answered yet; http:\/\/127\.0\.0\.1:9\/… #2: answered \d+ ms ago$/,
    );
  });

  it('a real call reported by the plugin counts as an answer; a failed one does not', () => {
    const watch = new UpstreamWatch(
      { urls: ['http://127.0.0.1:9/'], freshMs: 60_000, probeIntervalMs: 0, probeTimeoutMs: 100 },
      silent,
    );
    watch.record('http://127.0.0.1:9', 'unreachable');
    expect(report(watch).ready).to.equal(false);
    watch.record('http://127.0.0.1:9', 'rpc_error');
    expect(report(watch).ready).to.equal(true);
  });

  it('a failure since the last answer is shown beside it, with its outcome; an aborted call says nothing', () => {
    const watch = new UpstreamWatch(
      { urls: ['http://127.0.0.1:9/'], freshMs: 60_000, probeIntervalMs: 0, probeTimeoutMs: 100 },
      silent,
    );
    watch.useNames([{ url: 'http://127.0.0.1:9/', name: 'base-chain' }]);
    watch.record('base-chain', 'aborted');
    expect(watch.describe()).to.equal('base-chain: none answered yet');
    watch.record('base-chain', 'unreachable');
    expect(watch.describe()).to.match(/^base-chain: none answered yet, last call unreachable \d+ ms ago$/);
    watch.record('base-chain', 'ok');
    expect(watch.describe()).to.match(/^base-chain: answered \d+ ms ago$/);
    watch.record('base-chain', 'timeout');
    expect(watch.describe()).to.match(/^base-chain: answered \d+ ms ago, last call timeout \d+ ms ago$/);
    expect(report(watch).ready, 'one rule: an answer within the fresh window').to.equal(true);
  });

  it('an answer older than the fresh window no longer counts', () => {
    const watch = new UpstreamWatch(
      { urls: ['http://127.0.0.1:9/'], freshMs: 1000, probeIntervalMs: 0, probeTimeoutMs: 100 },
      silent,
    );
    watch.record('http://127.0.0.1:9', 'ok');
    expect(watch.problem(Date.now() + 5000)).to.match(/no upstream answered in the last 1 s/);
  });

  it('a closed store and draining are reasons not to be ready', () => {
    const watch = new UpstreamWatch(
      { urls: [], freshMs: 1000, probeIntervalMs: 0, probeTimeoutMs: 100 },
      silent,
    );
    expect(report(watch, false).reasons).to.deep.equal(['the status store is not open']);
    const draining = readinessReport({
      started: () => true,
      draining: () => true,
      storeOpen: () => undefined,
      nodes: () => ({ registered: 0, available: 0 }),
      upstreams: watch,
    });
    expect(draining.reasons).to.deep.equal(['shutting down']);
  });
});
