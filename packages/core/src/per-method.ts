import type { CoreOptionsResolved } from './generated/schemas.js';

export type PerMethodOptions = CoreOptionsResolved['perMethod'];

/**
 * The operator's word on each method (the `perMethod` option): what a call costs of its
 * payer's budget, and whether the method is served at all. The one cost model: the
 * admission step charges a message what its calls cost; the dispatcher answers a
 * switched-off method's calls with -32055.
 */
export class PerMethod {
  private readonly costs = new Map<string, number>();
  private readonly off = new Set<string>();

  constructor(options: PerMethodOptions = {}) {
    for (const [name, setting] of Object.entries(options)) {
      const { cost, enabled } = setting ?? {};
      // A call of a method switched off runs nothing: it costs the one point every call costs.
      if (enabled === false) this.off.add(name);
      else if (cost !== undefined && cost !== 1) this.costs.set(name, cost);
    }
  }

  /**
   * The settings of a service that serves `served`: a name it lacks is refused, since a typo
   * would otherwise price or switch off nothing.
   */
  static forService(options: PerMethodOptions, served: readonly string[]): PerMethod {
    const known = new Set(served);
    const unknown = Object.keys(options).filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new TypeError(`perMethod names methods this service does not serve: ${unknown.join(', ')}`);
    }
    return new PerMethod(options);
  }

  isSwitchedOff(method: string): boolean {
    return this.off.has(method);
  }

  /**
   * What a parsed body costs: each call its method's cost, a batch the sum of its calls'.
   * Whatever is no call with a method name (garbage, an empty batch) costs one point.
   */
  pointsFor(body: unknown): number {
    if (!Array.isArray(body)) return this.costOf(body);
    if (this.costs.size === 0) return Math.max(1, body.length);
    let points = 0;
    for (const call of body) points += this.costOf(call);
    return Math.max(1, points);
  }

  private costOf(call: unknown): number {
    if (this.costs.size === 0) return 1;
    const method = (call as { method?: unknown } | null)?.method;
    return typeof method === 'string' ? (this.costs.get(method) ?? 1) : 1;
  }
}
