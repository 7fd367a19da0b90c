/** Whether a source has what it needs to serve (GET /ready reports the reason when not). */
export type SourceReadiness = { readonly ready: true } | { readonly ready: false; readonly reason: string };

/**
 * Where nodes come from. The plugin has three kinds: an inline list, a routes file, and
 * this interface, through which an embedder feeds nodes from anywhere else (a database,
 * a service registry). Whatever `load` returns is checked like a routes file; a list
 * that fails keeps the last good one in service.
 */
export interface RouteSource {
  /** Names the source in logs and errors, e.g. `postgres routes table`. */
  readonly name: string;
  /**
   * The current route list: an array of route entries (schemas/route-list.schema.json).
   * Typed `unknown` because it is checked, not trusted; a rejection counts as a bad list.
   */
  load(): Promise<unknown>;
  /**
   * Optional: calls `changed` whenever the list may have changed, after which `load` is
   * called again. Returns a function that stops the notifications (called on stop).
   */
  subscribe?(changed: () => void): () => void;
  /**
   * Optional: not ready until the source has read its list once (the chain registry at
   * start); `load` then returns an empty list rather than failing the start.
   */
  readiness?(): SourceReadiness;
}
