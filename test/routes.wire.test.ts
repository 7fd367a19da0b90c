// getRoutes on the wire, through createNodeListener, on both endpoint styles: exact
// bytes, params rules of the wire contract, and a registry that changes underneath
// (file edits, nodes going down and back) without a restart.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createLogger, createNodeListener, createRpc, type Rpc } from '@rollup-router/core';
import { routesPlugin, type RouteEntry, type RoutesOptions, type RoutesPlugin } from '@rollup-router/routes';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';
import { CAPTURES_DIR } from '@rollup-router/test-support/captures';
import { newIdentity } from '@rollup-router/test-support/solana';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { listen, memoryLog, post, type Listening } from '@rollup-router/test-support/http';

const CAPTURE = path.join(CAPTURES_DIR, 'router.getRoutes.json');

interface Served {
  rpc: Rpc;
  plugin: RoutesPlugin;
  http: Listening;
}

async function serve(options: RoutesOptions): Promise<Served> {
  const plugin = routesPlugin(options);
  const rpc = createRpc({
    plugins: [plugin],
    validateResults: true,
    logger: createLogger({ level: 'warn', destination: memoryLog().stream }),
  });
  await rpc.start();
  return { rpc, plugin, http: await listen(createNodeListener(rpc)) };
}

const call = (url: string, params?: string) =>
  post(
    url,
    `{"jsonrpc":"2.0","id":1,"method":"getRoutes"${params === undefined ? '' : `,"params":${params}`}}`,
  );

describe('getRoutes on the wire', () => {
  let served: Served | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];

  afterEach(async () => {
    await served?.http.close();
    await served?.rpc.stop();
    served = undefined;
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it("answers with the Magic Router's result bytes, on the root and at POST /getRoutes, with no error key", async function () {
    if (!existsSync(CAPTURE)) this.skip(); // the peers' captures are not on this machine
    const capture = JSON.parse(readFileSync(CAPTURE, 'utf8')) as {
      response: { body: string; json: { result: RouteEntry[] } };
    };
    const routerResult = /"result":(\[.*\])\}$/.exec(capture.response.body)![1]!;
    served = await serve({ routes: capture.response.json.result, allowInsecure: true });

    for (const endpoint of ['/', '/getRoutes']) {
      for (const params of [undefined, '[]']) {
        const res = await call(served.http.url + endpoint, params);
        expect(res.status).to.equal(200);
        expect(res.headers['content-type']).to.match(/^application\/json/);
        // Member order is the core's (Agave's: jsonrpc, result, id); the result is the router's, byte for byte.
        expect(res.text, `${endpoint} params ${params}`).to.equal(
          `{"jsonrpc":"2.0","result":${routerResult},"id":1}`,
        );
      }
    }
  });

  it('answers [] when no node is available', async () => {
    served = await serve({ routes: [] });
    const res = await call(served.http.url + '/getRoutes');
    expect(res.text).to.equal('{"jsonrpc":"2.0","result":[],"id":1}');
  });

  it('refuses any params but none or [] with -32602 naming the path and rule, on both endpoints', async () => {
    served = await serve({ routes: [] });
    const cases: [string, { path: string; rule: string }][] = [
      ['["extra"]', { path: '/params', rule: 'maxItems' }],
      ['{}', { path: '/params', rule: 'type' }],
      ['null', { path: '/params', rule: 'type' }],
      ['[[]]', { path: '/params', rule: 'maxItems' }],
    ];
    for (const endpoint of ['/', '/getRoutes']) {
      for (const [params, where] of cases) {
        const res = await call(served.http.url + endpoint, params);
        const body = JSON.parse(res.text) as { error: { code: number; message: string; data: object } };
        expect(res.status).to.equal(200);
        expect(body.error.code, params).to.equal(-32602);
        expect(body.error.message).to.equal('Invalid params');
        expect(body.error.data).to.include(where);
        expect(body).to.not.have.property('result');
      }
    }
  });

  it('publishes getRoutes with its params and result schemas in rpc.discover', async () => {
    served = await serve({ routes: [] });
    const method = served.rpc.discover().methods.find((m) => m.name === 'getRoutes');
    expect(method, 'getRoutes in rpc.discover').to.not.equal(undefined);
    expect(JSON.stringify(method!.result.schema))
      .to.contain('"base58Bytes":32')
      .and.contain('"pattern":"^https://"');
  });

  it('answers at once while a node is slow to answer its probe', async () => {
    const slow = await SolanaStandIn.start();
    cleanups.push(() => slow.close());
    const entry: RouteEntry = {
      identity: newIdentity(),
      fqdn: slow.url,
      baseFee: 0,
      blockTimeMs: 50,
      countryCode: 'DEU',
    };
    served = await serve({
      routes: [entry],
      allowInsecure: true,
      health: { intervalMs: 10, timeoutMs: 60_000 },
    });
    slow.health = 'hang';
    await waitFor(() => slow.inFlight === 1, 'a probe to hang');
    // The probe can take a minute; the call would time the test out if it waited for it.
    const res = await call(served.http.url);
    expect(JSON.parse(res.text)).to.deep.equal({ jsonrpc: '2.0', result: [entry], id: 1 });
    expect(slow.inFlight).to.equal(1);
  });

  it('follows file edits and node health without a restart', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'routes-wire-'));
    const nodes = await Promise.all([SolanaStandIn.start(), SolanaStandIn.start(), SolanaStandIn.start()]);
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    cleanups.push(() => Promise.all(nodes.map((n) => n.close())));
    const [a, b, c] = nodes.map((n, i): RouteEntry => ({
      identity: newIdentity(),
      fqdn: n.url,
      baseFee: i * 1000,
      blockTimeMs: 50,
      countryCode: (['DEU', 'USA', 'SGP'] as const)[i]!,
    }));
    const file = path.join(dir, 'routes.json');
    await writeFile(file, JSON.stringify([a, b]));
    served = await serve({
      file,
      allowInsecure: true,
      watchDebounceMs: 20,
      health: { intervalMs: 10, timeoutMs: 1000, unhealthyAfter: 2 },
    });
    const routes = async () =>
      (JSON.parse((await call(served!.http.url)).text) as { result: RouteEntry[] }).result;
    expect(await routes()).to.deep.equal([a, b]);

    await nodes[0]!.down();
    await waitFor(async () => (await routes()).length === 1, 'node a to be dropped');
    expect(await routes()).to.deep.equal([b]);

    await writeFile(file, JSON.stringify([a, b, c]));
    await waitFor(async () => (await routes()).length === 2, 'node c to be added');
    expect(await routes()).to.deep.equal([b, c]);

    await nodes[0]!.up();
    await waitFor(async () => (await routes()).length === 3, 'node a to come back');
    expect(await routes()).to.deep.equal([a, b, c]);

    await writeFile(file, '[not json');
    await served.plugin.registry.reload();
    expect(await routes()).to.deep.equal([a, b, c]);
  });
});
