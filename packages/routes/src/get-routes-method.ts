import { defineMethod, type MethodDefinition } from '@rollup-router/core';
import { routesParamsSchema, type RoutesParams } from './generated/schemas.js';
import type { RouteRegistry } from './registry.js';
import type { RouteEntry } from './generated/schemas.js';

/**
 * getRoutes: the available nodes, straight from the registry's snapshot, already
 * serialized. Nothing here waits on a node, a file or a probe.
 */
export function getRoutesMethod(
  registry: RouteRegistry,
): MethodDefinition<RoutesParams, RouteEntry[], unknown, 'getRoutes'> {
  return defineMethod<RoutesParams, RouteEntry[], unknown, 'getRoutes'>({
    name: 'getRoutes',
    summary: 'Lists the available ephemeral rollup nodes.',
    description:
      'One entry per available node: registered and, where health checking is on, answering its health probe. The order is stable between calls. Takes no params (absent or []).',
    params: routesParamsSchema,
    result: registry.resultSchema,
    handler: () => registry.snapshot().raw,
  });
}
