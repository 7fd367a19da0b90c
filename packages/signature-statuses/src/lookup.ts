import type { GetSignatureStatusesResult } from './generated/schemas.js';
import type { Coalescer } from './coalescer.js';
import type { MemoryCache } from './memory-cache.js';
import type { LookupLayer } from './options.js';
import type { SignatureStatus } from './status.js';
import type { StatusStore } from './store.js';

export interface LookupOptions {
  /** Passed to the upstreams: with true they also search their ledger, not only recent statuses. */
  readonly searchTransactionHistory?: boolean;
  /** Ends the wait (the upstream request goes on while another call still waits for it). */
  readonly signal?: AbortSignal;
}

export interface ChainDeps {
  readonly memory: MemoryCache;
  readonly store: () => StatusStore | undefined;
  readonly coalescer: Coalescer;
  /** result.context.apiVersion when no upstream answered this call. */
  readonly apiVersion: string;
  /** The highest slot any upstream has reported so far: a floor for result.context.slot. */
  readonly latestSlot: () => number;
  readonly count: (layer: LookupLayer, n: number) => void;
}

/**
 * The answer chain: memory, then the store, then the upstreams, each asked only for
 * what the ones before did not know, each distinct signature once. The answer has one
 * entry per requested signature, in request order, duplicates included.
 */
export function lookupStatuses(
  deps: ChainDeps,
  signatures: readonly string[],
  options: LookupOptions = {},
): GetSignatureStatusesResult | Promise<GetSignatureStatusesResult> {
  const found = new Map<string, SignatureStatus | null>();
  let slot = deps.latestSlot();
  let fromMemory = 0;
  let fromStore = 0;
  const missing: string[] = [];
  const store = deps.store();
  for (const signature of signatures) {
    if (found.has(signature)) continue;
    let status = deps.memory.get(signature);
    if (status) fromMemory += 1;
    else if (store && (status = store.get(signature))) {
      fromStore += 1;
      deps.memory.set(signature, status);
    }
    if (status) {
      found.set(signature, status);
      if (status.slot > slot) slot = status.slot;
    } else {
      found.set(signature, null);
      missing.push(signature);
    }
  }
  deps.count('memory', fromMemory);
  deps.count('store', fromStore);

  // Answered here without a promise: no deadline timer, no microtask, for the common poll.
  if (missing.length === 0) return answer(signatures, found, deps.apiVersion, slot);
  return askUpstreams(deps, signatures, found, missing, slot, options);
}

async function askUpstreams(
  deps: ChainDeps,
  signatures: readonly string[],
  found: Map<string, SignatureStatus | null>,
  missing: string[],
  localSlot: number,
  options: LookupOptions,
): Promise<GetSignatureStatusesResult> {
  let slot = localSlot;
  let apiVersion = deps.apiVersion;
  const resolved = await deps.coalescer.resolve(
    missing,
    options.searchTransactionHistory === true,
    options.signal,
  );
  let known = 0;
  for (const [signature, status] of resolved.statuses) {
    found.set(signature, status);
    if (status) {
      known += 1;
      if (status.slot > slot) slot = status.slot;
    }
  }
  deps.count('upstream', known);
  deps.count('unknown', missing.length - known);
  const newest = resolved.contexts.reduce<(typeof resolved.contexts)[number] | undefined>(
    (best, c) => (best && best.slot >= c.slot ? best : c),
    undefined,
  );
  if (newest) {
    apiVersion = newest.apiVersion;
    if (newest.slot > slot) slot = newest.slot;
  }
  return answer(signatures, found, apiVersion, slot);
}

function answer(
  signatures: readonly string[],
  found: Map<string, SignatureStatus | null>,
  apiVersion: string,
  slot: number,
): GetSignatureStatusesResult {
  return {
    context: { apiVersion, slot },
    value: signatures.map((s) => found.get(s) ?? null),
  };
}
