import type { RouteSource } from './route-source.js';

/** The `routes` option: a list given in the configuration, which never changes. */
export function inlineSource(routes: readonly unknown[]): RouteSource {
  return { name: 'inline routes', load: () => Promise.resolve(routes) };
}
