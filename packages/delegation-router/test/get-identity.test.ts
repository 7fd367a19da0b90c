import { expect } from 'chai';
import { routesPlugin, type RouteEntry } from '@rollup-router/routes';
import { serve, type Served } from '@rollup-router/test-support/serve';
import { newIdentity, routeEntry } from '@rollup-router/test-support/solana';
import { delegationRouterPlugin } from '../src/index.js';

describe('getIdentity', () => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  const identityWith = async (routes: RouteEntry[], identity: { pin?: string; allow?: string[] } = {}) => {
    const plugin = routesPlugin({ routes });
    served = await serve([
      plugin,
      delegationRouterPlugin({
        baseChain: { url: 'http://127.0.0.1:9' },
        identity,
        registry: plugin.registry,
      }),
    ]);
    return (await served.post({ jsonrpc: '2.0', id: 1, method: 'getIdentity', params: [] })).json;
  };

  it('names an available ER with its URL (unprobed nodes in registry order)', async () => {
    const [a, b] = [
      routeEntry({ fqdn: 'https://er-a.example.com' }),
      routeEntry({ fqdn: 'https://er-b.example.com' }),
    ];
    expect(await identityWith([a, b])).to.deep.include({ result: { identity: a.identity, fqdn: a.fqdn } });
  });

  it('names only an ER of the allow-list', async () => {
    const [a, b] = [
      routeEntry({ fqdn: 'https://er-a.example.com' }),
      routeEntry({ fqdn: 'https://er-b.example.com' }),
    ];
    expect(await identityWith([a, b], { allow: [b.identity] })).to.deep.include({
      result: { identity: b.identity, fqdn: b.fqdn },
    });
  });

  it('names the pinned ER', async () => {
    const [a, b] = [
      routeEntry({ fqdn: 'https://er-a.example.com' }),
      routeEntry({ fqdn: 'https://er-b.example.com' }),
    ];
    expect(await identityWith([a, b], { pin: b.identity })).to.deep.include({
      result: { identity: b.identity, fqdn: b.fqdn },
    });
  });

  it('is -32073 with no ER available (never the base chain), none_available with none listed', async () => {
    expect(await identityWith([])).to.deep.include({
      error: {
        code: -32603,
        message: 'No ER node available',
        data: { code: -32073, reason: 'none_available', refused: {} },
      },
    });
  });

  it('is -32073 all_refused, counted by reason, when the allow-list leaves every node out', async () => {
    const a = routeEntry();
    expect(await identityWith([a], { allow: [newIdentity()] })).to.deep.include({
      error: {
        code: -32603,
        message: 'No ER node available: every node was refused (1: not in delegation.identity.allow)',
        data: { code: -32073, reason: 'all_refused', refused: { 'not in delegation.identity.allow': 1 } },
      },
    });
  });
});
