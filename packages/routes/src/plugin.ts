import { definePlugin, type Plugin } from '@rollup-router/core';
import { getRoutesMethod } from './get-routes-method.js';
import { RouteRegistry, type RoutesOptions } from './registry.js';
import { SOLANA_CLIENT_HEADER, solanaWireErrors } from '@rollup-router/solana';

export interface RoutesPlugin extends Plugin {
  /** Its one method, named by its literal type: `ApiOf<typeof plugin>` includes getRoutes. */
  readonly methods: readonly [ReturnType<typeof getRoutesMethod>];
  /** The node registry: available nodes, health, reload(), change and probe observers. */
  readonly registry: RouteRegistry;
}

/** The `routes` plugin: serves getRoutes from a node registry built from `options`. */
export function routesPlugin(options: RoutesOptions = {}): RoutesPlugin {
  const registry = new RouteRegistry(options);
  return definePlugin({
    name: 'routes',
    allowHeaders: [SOLANA_CLIENT_HEADER],
    wireErrors: solanaWireErrors,
    methods: [getRoutesMethod(registry)],
    start: (ctx) => registry.start(ctx),
    stop: () => registry.stop(),
    registry,
  });
}
