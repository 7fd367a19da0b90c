import type { Logger } from 'pino';
import type { Guard } from './guard.js';
import type { AnyMethodDefinition } from './method.js';
import type { AnySubscriptionDefinition } from './subscriptions/definition.js';
import type { WireErrorPolicy } from './wire-errors.js';

export interface PluginContext {
  /** A pino child logger bound to the plugin's name. */
  readonly log: Logger;
}

/**
 * A unit of methods and the background work they need. Like fastify-plugin, a plugin
 * declares its name and the plugins it needs; the server refuses to build when one is
 * missing or two methods share a name, so a mistake shows at start-up, not at a call.
 */
export interface Plugin<C = unknown> {
  readonly name: string;
  readonly dependencies?: readonly string[];
  /** `C`: the host context its methods and guard read (`ctx.host`); a plugin that reads none fits any service. */
  readonly methods?: readonly AnyMethodDefinition<C>[];
  /** Runs for each call of this plugin's methods (its subscriptions' included), after the service's guards and before the method's own. */
  readonly guard?: Guard<C>;
  /** Subscriptions served over persistent connections (WebSocket): each adds its subscribe and unsubscribe methods. */
  readonly subscriptions?: readonly AnySubscriptionDefinition[];
  /**
   * The error codes its methods answer with, beside JSON-RPC's and the core's. Checked
   * against every other code when the service is built, and published in rpc.discover.
   */
  readonly errors?: readonly DeclaredError[];
  /**
   * Request headers its clients send (e.g. `solana-client`), allowed by the CORS
   * pre-flight beside the core's (content-type, authorization, x-request-id).
   */
  readonly allowHeaders?: readonly string[];
  /**
   * The wire error policy its clients need, installed for the whole service it is mounted
   * in (the embedder's own methods included; wire-errors.ts). Two plugins installing
   * different ones refuse the build unless the service option `wireErrors` chooses.
   */
  readonly wireErrors?: WireErrorPolicy;
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

// `const`: its methods stay a tuple, each with its own type; an array would merge them into
// one element type, and a method named by any string would swallow the named ones ApiOf keys.
export function definePlugin<const T extends Plugin<never>>(plugin: T): T {
  return plugin;
}
