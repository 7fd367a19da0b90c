import type { Logger } from 'pino';
import type { AnyMethodDefinition } from './method.js';
import type { AnySubscriptionDefinition } from './subscriptions/definition.js';

export interface PluginContext {
  /** A pino child logger bound to the plugin's name. */
  readonly log: Logger;
}

/**
 * A unit of methods and the background work they need. Like fastify-plugin, a plugin
 * declares its name and the plugins it needs; the server refuses to build when one is
 * missing or two methods share a name, so a mistake shows at start-up, not at a call.
 */
export interface Plugin {
  readonly name: string;
  readonly dependencies?: readonly string[];
  readonly methods?: readonly AnyMethodDefinition[];
  /** Subscriptions served over persistent connections (WebSocket): each adds its subscribe and unsubscribe methods. */
  readonly subscriptions?: readonly AnySubscriptionDefinition[];
  /**
   * The error codes its methods answer with, beside JSON-RPC's and the core's. Checked
   * against every other code when the service is built, and published in rpc.discover.
   */
  readonly errors?: readonly DeclaredError[];
  /** Starts background work (probes, file watchers). Awaited before the server listens. */
  readonly start?: (ctx: PluginContext) => void | Promise<void>;
  /** Stops background work and releases resources. Called in reverse start order. */
  readonly stop?: () => void | Promise<void>;
}

/** An error code a plugin declares: clients and dashboards key on it, so it is stable. */
export interface DeclaredError {
  readonly code: number;
  readonly message: string;
  /** When it is answered, for the documentation and rpc.discover. */
  readonly meaning: string;
}

/** Declares a plugin's error codes by name, for `RpcError.from(Errors.NAME)` and `Plugin.errors`. */
export function defineErrors<const T extends Record<string, DeclaredError>>(errors: T): T {
  return errors;
}

export function definePlugin<T extends Plugin>(plugin: T): T {
  return plugin;
}
