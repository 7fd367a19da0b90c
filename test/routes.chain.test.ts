// The on-chain MDP registry as a route source, against the real program on validator A.
// Every record registered here is unregistered in after hooks: other tests compare our
// getRoutes with the Rust router's, which lists validator B only.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { KeyPairSigner } from '@solana/kit';
import {
  RouteRegistry,
  type ChainRecordsReport,
  type RouteEntry,
  type RoutesOptions,
} from '@rollup-router/routes';
import { memoryLog } from '@rollup-router/test-support/http';
import { waitFor } from '@rollup-router/test-support/wait-for';
import {
  CHAIN_URL,
  CHAIN_WS,
  fundedIdentity,
  recordAddress,
  register,
  registryRecordCount,
  syncStatus,
  unregister,
  validatorBIdentity,
  type RecordFields,
} from '@rollup-router/test-support/mdp';
import { tcpProxy, type TcpProxy } from '@rollup-router/test-support/tcp-proxy';
import { ChainProxy } from '@rollup-router/test-support/chain-proxy';
import { SolanaStandIn } from '@rollup-router/test-support/solana-stand-in';
import { get, startCli, type ServerProcess } from './server.harness.js';

// A confirmed change must show within 2 s: 200 looks 10 ms apart.
const WITHIN_2_S = { attempts: 200, stepMs: 10 };
// After a reconnect, the backoff's next attempt comes first.
const AFTER_RECONNECT = { attempts: 1500, stepMs: 10 };
const CHAIN_HTTP = { host: '127.0.0.1', port: 17799 };

describe('routes: the on-chain MDP registry on the real validator', function () {
  this.timeout(60_000);
  let bIdentity: string;
  const registered = new Set<KeyPairSigner>();
  const registries: RouteRegistry[] = [];
  const proxies: (TcpProxy | ChainProxy)[] = [];
  let logs: ReturnType<typeof memoryLog>;

  before(async function () {
    try {
      bIdentity = await validatorBIdentity();
    } catch (err) {
      console.log(`      (validator B is not reachable: ${(err as Error).message})`);
      this.skip();
    }
  });
  beforeEach(() => {
    logs = memoryLog();
  });
  afterEach(async () => {
    await Promise.all(registries.splice(0).map((r) => r.stop()));
    await Promise.all(proxies.splice(0).map((p) => p.close()));
  });
  after(async () => {
    for (const signer of registered) await unregister(signer);
    registered.clear();
  });

  // Validator B registered itself on loopback: the local registry's nodes are called only
  // with allowPrivateAddresses.
  async function chainRegistry(options: Partial<RoutesOptions> = {}, chain = {}): Promise<RouteRegistry> {
    const registry = new RouteRegistry({
      allowInsecure: true,
      chain: { url: CHAIN_URL, allowPrivateAddresses: true, ...chain },
      ...options,
    });
    registries.push(registry);
    await registry.start({ log: logs.log });
    return registry;
  }

  async function registered_(fields: RecordFields): Promise<KeyPairSigner> {
    const signer = await fundedIdentity();
    await register(signer, fields);
    registered.add(signer);
    return signer;
  }

  async function unregistered(signer: KeyPairSigner): Promise<void> {
    await unregister(signer);
    registered.delete(signer);
  }

  const listed = (registry: RouteRegistry, identity: string): RouteEntry | undefined =>
    registry.available().find((e) => e.identity === identity);

  async function proxied(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = await tcpProxy(target);
    proxies.push(proxy);
    return proxy;
  }

  it("lists validator B with B's real record once started", async () => {
    const registry = await chainRegistry();
    expect(listed(registry, bIdentity)).to.deep.equal({
      identity: bIdentity,
      fqdn: 'http://127.0.0.1:18899',
      baseFee: 5000,
      blockTimeMs: 50,
      countryCode: 'DEU',
    });
    expect(registry.readiness()).to.deep.equal({ ready: true });
  });

  it('follows registrations through the real program: Active appears, Draining does not, Unregister disappears', async () => {
    const registry = await chainRegistry();
    const draining = await registered_({ status: 'Draining', addr: 'http://127.0.0.1:1/draining' });
    const active = await registered_({ addr: 'http://127.0.0.1:1/active', baseFee: 7, countryCode: 'FRA' });
    const entry = await waitFor(() => listed(registry, active.address), 'the Active record', WITHIN_2_S);
    expect(entry).to.deep.equal({
      identity: active.address,
      fqdn: 'http://127.0.0.1:1/active',
      baseFee: 7,
      blockTimeMs: 50,
      countryCode: 'FRA',
    });
    expect(listed(registry, draining.address)).to.equal(undefined);
    await unregistered(active);
    await waitFor(() => !listed(registry, active.address), 'the unregistered record to go', WITHIN_2_S);
    expect(listed(registry, bIdentity)).to.not.equal(undefined);
  });

  it('follows a status change in place (Sync): Draining leaves the list, Active again comes back', async () => {
    const registry = await chainRegistry();
    const node = await registered_({ addr: 'http://127.0.0.1:1/syncing' });
    await waitFor(() => listed(registry, node.address), 'the Active record', WITHIN_2_S);
    await syncStatus(node, 'Draining');
    await waitFor(() => !listed(registry, node.address), 'the Draining record to leave', WITHIN_2_S);
    await syncStatus(node, 'Active');
    await waitFor(() => listed(registry, node.address), 'the record Active again', WITHIN_2_S);
  });

  it('skips a record the route-entry schema refuses, naming its account once, and keeps the others', async () => {
    const registry = await chainRegistry({ allowInsecure: false });
    const bad = await registered_({ addr: 'http://127.0.0.1:1/not-https' });
    const good = await registered_({ addr: 'https://er.example.com' });
    await waitFor(() => listed(registry, good.address), 'the good record', WITHIN_2_S);
    expect(listed(registry, bad.address)).to.equal(undefined);
    const skips = logs.lines.filter(
      (l) => String(l.msg).includes('skipped') && String(l.reason).includes('fqdn'),
    );
    expect(skips.filter((l) => l.msg === skips[0]!.msg)).to.have.length(1);
  });

  it('reconnects after a websocket drop and re-reads everything: changes made while down show up', async () => {
    const http = await proxied(CHAIN_HTTP);
    const ws = await proxied(CHAIN_WS);
    const leaving = await registered_({ addr: 'http://127.0.0.1:1/leaving' });
    const registry = await chainRegistry(
      {},
      { url: `http://127.0.0.1:${http.port}`, wsUrl: `ws://127.0.0.1:${ws.port}` },
    );
    await waitFor(() => listed(registry, leaving.address), 'the record registered before start', WITHIN_2_S);

    await Promise.all([http.close(), ws.close()]);
    const arriving = await registered_({ addr: 'http://127.0.0.1:1/arriving' });
    await unregistered(leaving);
    expect(listed(registry, leaving.address), 'the last good list is kept while down').to.not.equal(
      undefined,
    );
    await Promise.all([http.open(), ws.open()]);

    await waitFor(
      () => listed(registry, arriving.address) && !listed(registry, leaving.address),
      'the changes made while down',
      AFTER_RECONNECT,
    );
    // Live again: a registration after the reconnect arrives by notification.
    const later = await registered_({ addr: 'http://127.0.0.1:1/later' });
    await waitFor(() => listed(registry, later.address), 'a registration after the reconnect', WITHIN_2_S);
  });

  it('replaces a websocket that went silent (no pong) and reads everything again: a registration meanwhile shows', async () => {
    const ws = await proxied(CHAIN_WS);
    // No resync to fall back on: only noticing the dead socket can list the new record.
    const registry = await chainRegistry({}, { wsUrl: `ws://127.0.0.1:${ws.port}`, resyncMs: 600_000 });
    await waitFor(
      () => logs.lines.some((l) => l.msg === 'chain registry following live'),
      'live',
      AFTER_RECONNECT,
    );
    // The connection stays open but passes nothing either way, as a half-open one behind a NAT does.
    ws.freeze();
    const arriving = await registered_({ addr: 'http://127.0.0.1:1/while-silent' });
    await waitFor(() => listed(registry, arriving.address), 'the registration made while silent', {
      attempts: 3000,
      stepMs: 10,
    });
    expect(ws.accepted, 'a second connection').to.be.greaterThan(1);
  });

  it('probes chain nodes when health is on: a registered node that does not answer is not listed', async () => {
    const dead = await registered_({ addr: 'http://127.0.0.1:1' });
    const registry = await chainRegistry({ health: { intervalMs: 50, timeoutMs: 1000 } });
    await waitFor(
      () => registry.nodes().find((n) => n.entry.identity === dead.address && n.health === 'down'),
      'the dead node to be probed',
      WITHIN_2_S,
    );
    expect(listed(registry, dead.address)).to.equal(undefined);
    await waitFor(() => listed(registry, bIdentity), 'validator B, which answers its probe', WITHIN_2_S);
  });

  describe("a record's URL into the operator's network (loopback here)", () => {
    let node: SolanaStandIn;
    beforeEach(async () => {
      node = await SolanaStandIn.start();
    });
    afterEach(() => node.close());

    const REFUSED = / is loopback; routes\.chain\.allowPrivateAddresses allows it$/;
    const statusOf = (registry: RouteRegistry, identity: string) =>
      registry.nodes().find((n) => n.entry.identity === identity);

    it('is never probed without allowPrivateAddresses, by IP address or by a name (localhost): not listed, and the node receives nothing', async () => {
      const byAddress = await registered_({ addr: node.url });
      const byName = await registered_({ addr: node.url.replace('127.0.0.1', 'localhost') });
      const registry = await chainRegistry(
        { health: { intervalMs: 50, timeoutMs: 1000 } },
        { allowPrivateAddresses: false },
      );
      for (const { address } of [byAddress, byName]) {
        const down = await waitFor(
          () => statusOf(registry, address)?.lastError !== undefined && statusOf(registry, address),
          'the node probed',
          WITHIN_2_S,
        );
        expect(down.health).to.equal('down');
        expect(down.fromChain).to.equal(true);
        expect(down.lastError)
          .to.match(/^unreachable: /)
          .and.match(REFUSED);
        expect(listed(registry, address)).to.equal(undefined);
      }
      expect(statusOf(registry, byName.address)!.lastError).to.match(/localhost resolves to /);
      // Validator B registered itself on loopback too.
      expect(statusOf(registry, bIdentity)?.health).to.equal('down');
      expect(node.methods).to.deep.equal([]);
    });

    it('is probed and listed with allowPrivateAddresses', async () => {
      const byName = await registered_({ addr: node.url.replace('127.0.0.1', 'localhost') });
      const registry = await chainRegistry({ health: { intervalMs: 50, timeoutMs: 1000 } });
      await waitFor(() => listed(registry, byName.address), 'the node listed', WITHIN_2_S);
      expect(node.healthChecks).to.be.greaterThan(0);
      expect(statusOf(registry, byName.address)).to.include({ fromChain: true, addressGuard: undefined });
    });

    it("the operator's own nodes on loopback are probed whatever the option", async () => {
      const mine: RouteEntry = {
        identity: bIdentity,
        fqdn: node.url,
        baseFee: 1,
        blockTimeMs: 50,
        countryCode: 'DEU',
      };
      const registry = await chainRegistry(
        { routes: [mine], health: { intervalMs: 50, timeoutMs: 1000 } },
        { allowPrivateAddresses: false },
      );
      await waitFor(() => listed(registry, bIdentity), 'the inline node listed', WITHIN_2_S);
      expect(node.healthChecks).to.be.greaterThan(0);
      expect(statusOf(registry, bIdentity)).to.include({ fromChain: false, addressGuard: undefined });
    });
  });

  it('an identity also in the inline list is served from the list, not from the chain', async () => {
    const mine: RouteEntry = {
      identity: bIdentity,
      fqdn: 'http://127.0.0.1:18899/pinned',
      baseFee: 1,
      blockTimeMs: 50,
      countryCode: 'DEU',
    };
    const registry = await chainRegistry({ routes: [mine] });
    expect(registry.available().filter((e) => e.identity === bIdentity)).to.deep.equal([mine]);
  });

  it('starts with the chain unreachable, says why it is not ready, serves nothing from it, and reads it when it comes back', async () => {
    const http = await tcpProxy(CHAIN_HTTP, { listening: false });
    const ws = await tcpProxy(CHAIN_WS, { listening: false });
    proxies.push(http, ws);
    const registry = await chainRegistry(
      {},
      { url: `http://127.0.0.1:${http.port}`, wsUrl: `ws://127.0.0.1:${ws.port}` },
    );
    const readiness = registry.readiness();
    expect(readiness.ready).to.equal(false);
    expect((readiness as { reason: string }).reason).to.match(/^chain registry .* not read yet: /);
    expect(registry.available()).to.deep.equal([]);
    await Promise.all([http.open(), ws.open()]);
    await waitFor(() => listed(registry, bIdentity), 'validator B once the chain is back', AFTER_RECONNECT);
    expect(registry.readiness()).to.deep.equal({ ready: true });
    const warnings = logs.lines.filter((l) => String(l.msg).startsWith('the chain registry is unreachable'));
    const failures = warnings.map((l) => l.failures as number);
    expect(
      failures.every((n) => (n & (n - 1)) === 0),
      `logged at failures ${failures.join(', ')}`,
    ).to.equal(true);
  });

  it('with only the websocket down, still reads the list over HTTP and goes live when the websocket is back', async () => {
    const ws = await tcpProxy(CHAIN_WS, { listening: false });
    proxies.push(ws);
    const registry = await chainRegistry({}, { wsUrl: `ws://127.0.0.1:${ws.port}` });
    expect(listed(registry, bIdentity)).to.not.equal(undefined);
    expect(registry.readiness()).to.deep.equal({ ready: true });
    await ws.open();
    await waitFor(
      () => logs.lines.some((l) => l.msg === 'chain registry following live'),
      'live',
      AFTER_RECONNECT,
    );
    const node = await registered_({ addr: 'http://127.0.0.1:1/ws-back' });
    await waitFor(() => listed(registry, node.address), 'a registration by notification', WITHIN_2_S);
  });

  async function chainProxy(): Promise<ChainProxy> {
    const proxy = await ChainProxy.start();
    proxies.push(proxy);
    return proxy;
  }

  // The proxy stands in for a fault the real validator cannot be made to produce: one
  // record's accountSubscribe refused while every other request is answered by A.
  it("one record's failing accountSubscribe retries that record alone, with backoff; the others stay subscribed", async () => {
    const proxy = await chainProxy();
    const refused = await registered_({ addr: 'http://127.0.0.1:1/refused-subscribe' });
    const other = await registered_({ addr: 'http://127.0.0.1:1/other' });
    const refusedRecord = await recordAddress(refused.address);
    let refusing = true;
    proxy.refuseWs = (call) =>
      refusing && call.method === 'accountSubscribe' && call.first === refusedRecord
        ? { code: -32603, message: 'Internal error' }
        : undefined;
    const registry = await chainRegistry({}, { url: proxy.url(), wsUrl: proxy.wsUrl() });
    expect(listed(registry, refused.address), 'listed from the full read').to.not.equal(undefined);
    await waitFor(
      () => proxy.wsCount('accountSubscribe', refusedRecord) >= 4,
      'the refused record to be retried',
      AFTER_RECONNECT,
    );
    expect(proxy.wsCount('programSubscribe'), 'the program subscription is not restarted').to.equal(1);
    expect(proxy.httpCount('getProgramAccounts'), 'no full re-read').to.equal(1);
    const others = proxy.wsCalls.filter((c) => c.method === 'accountSubscribe' && c.first !== refusedRecord);
    const perRecord = new Map<unknown, number>();
    for (const c of others) perRecord.set(c.first, (perRecord.get(c.first) ?? 0) + 1);
    expect(perRecord.get(await recordAddress(other.address))).to.equal(1);
    expect(
      [...perRecord.values()].every((n) => n === 1),
      'every other record subscribed once',
    ).to.equal(true);

    // Once its subscription is accepted, the record is followed live: its unregistration shows.
    refusing = false;
    const accepted = proxy.wsCount('accountSubscribe', refusedRecord) + 1;
    await waitFor(
      () => proxy.wsCount('accountSubscribe', refusedRecord) >= accepted,
      'the next retry',
      AFTER_RECONNECT,
    );
    await unregistered(refused);
    await waitFor(() => !listed(registry, refused.address), 'the unregistration', WITHIN_2_S);
    expect(proxy.wsCount('programSubscribe')).to.equal(1);
    const failures = logs.lines
      .filter((l) => l.account === refusedRecord && String(l.msg).startsWith('following registry record'))
      .map((l) => l.failures as number);
    expect(failures.length, 'logged').to.be.greaterThan(0);
    expect(
      failures.every((n) => (n & (n - 1)) === 0),
      `logged at failures ${failures.join(', ')}`,
    ).to.equal(true);
  });

  it('a full read answered late, at a slot before an unregistration, does not list the node again', async () => {
    const proxy = await chainProxy();
    const leaving = await registered_({ addr: 'http://127.0.0.1:1/late-read' });
    const registry = await chainRegistry({}, { url: proxy.url(), wsUrl: proxy.wsUrl(), resyncMs: 1000 });
    expect(listed(registry, leaving.address)).to.not.equal(undefined);
    await waitFor(
      () => logs.lines.some((l) => l.msg === 'chain registry following live'),
      'live',
      WITHIN_2_S,
    );

    // The next full read is answered by A at once (the record still there) but reaches
    // the registry only after the unregistration and a newer read: a lagging RPC node.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    proxy.holdHttp = (call) => {
      if (held || call.method !== 'getProgramAccounts') return undefined;
      held = true;
      return gate;
    };
    await waitFor(() => held, 'a full read held', AFTER_RECONNECT);
    await unregistered(leaving);
    await waitFor(() => !listed(registry, leaving.address), 'the unregistration', WITHIN_2_S);
    const answered = () => proxy.httpAnswered.filter((m) => m === 'getProgramAccounts').length;
    const before = answered();
    await waitFor(() => answered() >= before + 2, 'two newer full reads', AFTER_RECONNECT);

    const lists: (readonly RouteEntry[])[] = [];
    registry.onChange((list) => lists.push(list));
    release();
    await waitFor(() => answered() >= before + 4, 'the late read and another one', AFTER_RECONNECT);
    expect(lists.some((list) => list.some((e) => e.identity === leaving.address))).to.equal(false);
    expect(listed(registry, leaving.address)).to.equal(undefined);
  });

  it('follows at most maxRecords: past it new records are not listed, one warning, and the nodes followed stay', async () => {
    const proxy = await chainProxy();
    const room = (await registryRecordCount()) + 1;
    const registry = await chainRegistry(
      {},
      { url: proxy.url(), wsUrl: proxy.wsUrl(), maxRecords: room, resyncMs: 1000 },
    );
    const reports: ChainRecordsReport[] = [];
    registry.onChainRecords((r) => reports.push(r));
    const capWarnings = () =>
      logs.lines.filter((l) => String(l.msg).includes('chain.maxRecords') && l.level === 40);

    const kept = await registered_({ addr: 'http://127.0.0.1:1/kept' });
    await waitFor(() => listed(registry, kept.address), 'the last record there is room for', WITHIN_2_S);
    const flood = [
      await registered_({ addr: 'http://127.0.0.1:1/flood-1' }),
      await registered_({ addr: 'http://127.0.0.1:1/flood-2' }),
    ];
    await waitFor(() => reports.at(-1)?.notFollowed === 2, 'both new records left out', WITHIN_2_S);
    expect(reports.at(-1)).to.include({ followed: room, maxRecords: room });
    for (const f of flood) expect(listed(registry, f.address)).to.equal(undefined);
    // Several full reads later: the nodes followed are still the same, and one warning in all.
    const reads = proxy.httpCount('getProgramAccounts');
    await waitFor(
      () => proxy.httpCount('getProgramAccounts') >= reads + 2,
      'two more full reads',
      AFTER_RECONNECT,
    );
    expect(listed(registry, kept.address)).to.not.equal(undefined);
    expect(listed(registry, bIdentity)).to.not.equal(undefined);
    for (const f of flood) expect(listed(registry, f.address)).to.equal(undefined);
    expect(capWarnings()).to.have.length(1);
    // Logged when the cap was reached, at the first record left out.
    expect(capWarnings()[0]).to.include({ notFollowed: 1, maxRecords: room, followed: room });
    const subscribed = new Set(
      proxy.wsCalls.filter((c) => c.method === 'accountSubscribe').map((c) => c.first),
    );
    for (const f of flood)
      expect(subscribed.has(await recordAddress(f.address)), 'no subscription').to.equal(false);

    // A node leaving makes room: the next full read takes one of the two.
    await unregistered(kept);
    await waitFor(
      () => flood.filter((f) => listed(registry, f.address)).length === 1,
      'one new record taken',
      AFTER_RECONNECT,
    );
    expect(reports.at(-1)).to.include({ notFollowed: 1 });
    expect(capWarnings()).to.have.length(1);
    for (const f of flood) await unregistered(f);
    await waitFor(() => reports.at(-1)?.notFollowed === 0, 'all records followed again', AFTER_RECONNECT);
    expect(
      logs.lines.some((l) => String(l.msg).startsWith('every chain registry record is followed again')),
    ).to.equal(true);
  });

  describe('a chain URL with user:password@ (a provider gateway asking for Basic auth)', () => {
    const PASSWORD = 's3cret-pass';
    const CREDENTIALS = `reader:${PASSWORD}`;

    it('works: Basic auth on every HTTP request and on the websocket upgrade, followed live', async () => {
      const proxy = await chainProxy();
      proxy.basicAuth = CREDENTIALS;
      const registry = await chainRegistry(
        {},
        { url: proxy.url(CREDENTIALS), wsUrl: proxy.wsUrl(CREDENTIALS) },
      );
      expect(registry.readiness()).to.deep.equal({ ready: true });
      expect(listed(registry, bIdentity)).to.not.equal(undefined);
      await waitFor(
        () => logs.lines.some((l) => l.msg === 'chain registry following live'),
        'live',
        AFTER_RECONNECT,
      );
      const node = await registered_({ addr: 'http://127.0.0.1:1/behind-basic-auth' });
      await waitFor(() => listed(registry, node.address), 'a registration by notification', WITHIN_2_S);
      expect(proxy.unauthorized).to.equal(0);
      expect(proxy.wsCount('programSubscribe')).to.equal(1);
      expect(JSON.stringify(logs.lines)).to.not.include(PASSWORD);
    });

    it('refused: not ready, saying why, and the password is in neither the reason nor the log', async () => {
      const proxy = await chainProxy();
      proxy.basicAuth = 'reader:the-right-one';
      const registry = await chainRegistry(
        {},
        { url: proxy.url(CREDENTIALS), wsUrl: proxy.wsUrl(CREDENTIALS) },
      );
      const readiness = registry.readiness() as { ready: boolean; reason: string };
      expect(readiness.ready).to.equal(false);
      expect(readiness.reason).to.match(/401/);
      expect(readiness.reason).to.include('http://127.0.0.1:');
      expect(readiness.reason).to.not.include(PASSWORD);
      expect(proxy.unauthorized).to.be.greaterThan(0);
      await waitFor(
        () => logs.lines.some((l) => String(l.msg).startsWith('the chain registry is unreachable')),
        'the warning',
        AFTER_RECONNECT,
      );
      expect(JSON.stringify(logs.lines)).to.not.include(PASSWORD);
    });
  });

  describe('the reference server with the chain down at start', () => {
    let server: ServerProcess | undefined;
    let dir: string;
    afterEach(async () => {
      await server?.kill();
      server = undefined;
      rmSync(dir, { recursive: true, force: true });
    });

    it('starts, is not ready and says why, and becomes ready when the chain comes back', async () => {
      const http = await tcpProxy(CHAIN_HTTP, { listening: false });
      const ws = await tcpProxy(CHAIN_WS, { listening: false });
      proxies.push(http, ws);
      dir = mkdtempSync(join(tmpdir(), 'rollup-router-chain-'));
      const config = join(dir, 'config.json');
      const chain = {
        url: 'http://unused.invalid',
        wsUrl: `ws://127.0.0.1:${ws.port}`,
        allowPrivateAddresses: true,
      };
      writeFileSync(
        config,
        JSON.stringify({ routes: { allowInsecure: true, chain }, statuses: { store: false } }),
      );
      // The variable overrides the file's url: the operator's usual way in containers.
      server = await startCli(['--config', config, '--port', '0'], {
        ROLLUP_ROUTER_CHAIN_URL: `http://127.0.0.1:${http.port}`,
      });
      const notReady = await get(`${server.base}/ready`);
      expect(notReady.status).to.equal(503);
      expect(notReady.text).to.match(/chain registry .* not read yet/);

      await Promise.all([http.open(), ws.open()]);
      await waitFor(
        async () => (await get(`${server!.base}/ready`)).status === 200,
        'ready',
        AFTER_RECONNECT,
      );
      const routes = await fetch(`${server.base}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"getRoutes"}',
      }).then((r) => r.json() as Promise<{ result: RouteEntry[] }>);
      expect(routes.result.map((e) => e.identity)).to.include(bIdentity);
    });

    it('reports the cap in /metrics and warns once in the log when records are left out', async () => {
      const count = await registryRecordCount();
      dir = mkdtempSync(join(tmpdir(), 'rollup-router-chain-'));
      const config = join(dir, 'config.json');
      const chain = { url: CHAIN_URL, maxRecords: count, allowPrivateAddresses: true };
      writeFileSync(
        config,
        JSON.stringify({ routes: { allowInsecure: true, chain }, statuses: { store: false } }),
      );
      server = await startCli(['--config', config, '--port', '0']);
      const metric = async (name: string): Promise<number | undefined> => {
        const text = (await get(`${server!.base}/metrics`)).text;
        const line = text.split('\n').find((l) => l.startsWith(`rollup_router_${name} `));
        return line === undefined ? undefined : Number(line.split(' ')[1]);
      };
      expect(await metric('chain_records_followed')).to.equal(count);
      expect(await metric('chain_records_not_followed')).to.equal(0);
      const left = await registered_({ addr: 'http://127.0.0.1:1/left-out' });
      await waitFor(async () => (await metric('chain_records_not_followed')) === 1, 'the metric', WITHIN_2_S);
      const capWarnings = () => server!.logs().filter((l) => String(l.msg).includes('chain.maxRecords'));
      await waitFor(() => capWarnings().length > 0, 'the warning', WITHIN_2_S);
      const warnings = capWarnings();
      expect(warnings).to.have.length(1);
      expect(warnings[0]).to.include({ level: 40, notFollowed: 1, maxRecords: count });
      await unregistered(left);
    });

    it('with user:password@ in the chain URL, reads through Basic auth; /ready and the log never show the password', async () => {
      const password = 'pa55-in-the-url';
      const proxy = await chainProxy();
      proxy.basicAuth = `reader:${password}`;
      dir = mkdtempSync(join(tmpdir(), 'rollup-router-chain-'));
      const config = join(dir, 'config.json');
      const chain = {
        url: proxy.url(`reader:${password}`),
        wsUrl: proxy.wsUrl(`reader:${password}`),
        allowPrivateAddresses: true,
      };
      writeFileSync(
        config,
        JSON.stringify({ routes: { allowInsecure: true, chain }, statuses: { store: false } }),
      );
      server = await startCli(['--config', config, '--port', '0']);
      await waitFor(
        async () => (await get(`${server!.base}/ready`)).status === 200,
        'ready',
        AFTER_RECONNECT,
      );
      const ready = await get(`${server.base}/ready`);
      expect(ready.text).to.not.include(password);
      expect(proxy.unauthorized).to.equal(0);

      // Wrong credentials: not ready, and still no password anywhere.
      proxy.basicAuth = 'reader:changed';
      await server.kill();
      server = await startCli(['--config', config, '--port', '0']);
      const notReady = await get(`${server.base}/ready`);
      expect(notReady.status).to.equal(503);
      expect(notReady.text).to.match(/401/);
      expect(notReady.text).to.include(`http://127.0.0.1:${proxy.port}/…`);
      expect(notReady.text).to.not.include(password);
      await waitFor(
        () => server!.output().includes('the chain registry is unreachable'),
        'the warning in the log',
        AFTER_RECONNECT,
      );
      expect(server.output()).to.not.include(password);
    });
  });
});
