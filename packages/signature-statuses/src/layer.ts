import type { PluginContext } from '@rollup-router/core';
import type { LookupLayer } from './events.js';
import type { SignatureStatus } from './status.js';

/** A status some source knew, offered to the layers in front of it. */
export type LearnedStatus = readonly [signature: string, status: SignatureStatus];

/** A call answered by one layer: a status per requested signature, in request order. */
export interface WholeAnswer {
  readonly statuses: SignatureStatus[];
  /** How many distinct signatures the call asked for (what onLookup counts). */
  readonly distinct: number;
}

/**
 * One link of the answer chain in front of the upstreams (memory, the store, Redis). The
 * chain asks each layer only for what the layers before it did not know, and offers each
 * layer what a later source knew: the layer decides what of it its kind may keep.
 */
export interface StatusLayer {
  /** Reported to onLookup with how many signatures it settled. */
  readonly name: LookupLayer;
  /**
   * Puts into `found` the statuses this layer knows among `signatures` (distinct), and
   * returns those it does not know. A local layer answers synchronously, so a lookup
   * served in memory costs no promise; a layer across the network returns a promise.
   */
  find(
    signatures: readonly string[],
    found: Map<string, SignatureStatus | null>,
  ): readonly string[] | Promise<readonly string[]>;
  /**
   * The whole call, when this layer knows every one of `signatures` (any order, duplicates
   * included); undefined as soon as it lacks one. Lets a call answered from memory skip the
   * chain's table of distinct signatures, whose string hashes were its largest cost.
   */
  findAll?(signatures: readonly string[]): WholeAnswer | undefined;
  /** What a later source knew (the store, an upstream); never throws. */
  learn?(statuses: readonly LearnedStatus[]): void;
  start?(log: PluginContext['log']): void | Promise<void>;
  stop?(): void | Promise<void>;
}

/**
 * The layer's find loop: asks `get` for each signature and returns what it did not know:
 * `signatures` itself when it knew none (fresh signatures cost no copy), else a new list.
 */
export function findEach(
  signatures: readonly string[],
  found: Map<string, SignatureStatus | null>,
  get: (signature: string) => SignatureStatus | undefined,
): readonly string[] {
  let missing: string[] | undefined;
  for (let i = 0; i < signatures.length; i++) {
    const signature = signatures[i]!;
    const status = get(signature);
    if (status) {
      found.set(signature, status);
      missing ??= signatures.slice(0, i);
    } else {
      missing?.push(signature);
    }
  }
  return missing ?? signatures;
}
