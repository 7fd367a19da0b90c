import { type PluginContext } from '@rollup-router/core';
import { textKey } from '@rollup-router/solana';
import { AnswerContext, type UpstreamContext } from './answer-context.js';
import { Coalescer } from './coalescer.js';
import type { StatusEvents } from './events.js';
import type { GetSignatureStatusesResult } from './generated/schemas.js';
import type { LearnedStatus, StatusLayer } from './layer.js';
import type { SignatureStatus } from './status.js';
import type { UpstreamAnswer, UpstreamFanOut } from './upstream/fan-out.js';

export interface LookupOptions {
  /** Passed to the upstreams: with true they also search their ledger, not only recent statuses. */
  readonly searchTransactionHistory?: boolean;
  /** Ends the wait (the upstream request goes on while another call still waits for it). */
  readonly signal?: AbortSignal;
}

export interface StatusChainParts {
  /** In the order they are asked: memory, then the store, then Redis when shared. */
  readonly layers: readonly StatusLayer[];
  readonly fanOut: UpstreamFanOut;
  /** The longest a shared upstream lookup may take. */
  readonly deadlineMs: number;
  /** result.context.apiVersion when no upstream answered the call. */
  readonly apiVersion: string;
  readonly events: StatusEvents;
}

type Found = Map<string, SignatureStatus | null>;
type Answer = GetSignatureStatusesResult | Promise<GetSignatureStatusesResult>;

/**
 * The answer chain: the layers, each asked only for what the ones before did not know,
 * then the upstreams (coalesced across calls) for what no layer knew; each distinct
 * signature once. What a source knew is learned by the layers in front of it.
 */
export class StatusChain {
  private readonly layers: readonly StatusLayer[];
  private readonly fanOut: UpstreamFanOut;
  private readonly events: StatusEvents;
  private readonly context: AnswerContext;
  private readonly coalescer: Coalescer;
  private running = false;

  constructor(parts: StatusChainParts) {
    this.layers = parts.layers;
    this.fanOut = parts.fanOut;
    this.events = parts.events;
    this.context = new AnswerContext(parts.apiVersion);
    this.coalescer = new Coalescer(
      (s, history, signal) => this.askUpstreams(s, history, signal),
      parts.deadlineMs,
    );
  }

  /** Synchronous when the layers know every signature; a promise only when an upstream is asked. */
  lookup(signatures: readonly string[], options: LookupOptions = {}): Answer {
    if (!this.running) throw new Error('signature-statuses: lookup before start() or after stop()');
    // A call the first layer (memory) knows whole needs none of the bookkeeping below,
    // whose map hashes each signature's whole text.
    const first = this.layers[0];
    const whole = first?.findAll?.(signatures);
    if (first && whole) {
      this.events.lookup(first.name, whole.distinct);
      return this.context.answer(whole.statuses);
    }
    // `found` holds what the layers know: for fresh signatures it stays empty, and none of
    // their texts is ever hashed.
    return this.fromLayer(0, distinctOf(signatures), signatures, new Map(), options);
  }

  async start(log: PluginContext['log']): Promise<void> {
    this.events.attach(log);
    for (const layer of this.layers) await layer.start?.(log);
    this.running = true;
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const layer of this.layers) await layer.stop?.();
    await this.fanOut.close();
  }

  private fromLayer(
    first: number,
    missing: readonly string[],
    signatures: readonly string[],
    found: Found,
    options: LookupOptions,
  ): Answer {
    for (let i = first; i < this.layers.length && missing.length > 0; i++) {
      const asked = missing;
      const left = this.layers[i]!.find(asked, found);
      if (left instanceof Promise) {
        return left.then((rest) => {
          this.settled(i, asked, rest, found);
          return this.fromLayer(i + 1, rest, signatures, found, options);
        });
      }
      this.settled(i, asked, left, found);
      missing = left;
    }
    if (missing.length === 0) return this.context.answer(valueOf(signatures, found));
    return this.fromUpstreams(signatures, missing, found, options);
  }

  /** Counts what layer `index` settled, and offers it to the layers in front of it. */
  private settled(index: number, asked: readonly string[], left: readonly string[], found: Found): void {
    const count = asked.length - left.length;
    this.events.lookup(this.layers[index]!.name, count);
    if (index === 0 || count === 0) return;
    const known: LearnedStatus[] = [];
    for (const signature of asked) {
      const status = found.get(signature);
      if (status) known.push([signature, status]);
    }
    this.learn(known, index);
  }

  private async fromUpstreams(
    signatures: readonly string[],
    missing: readonly string[],
    found: Found,
    options: LookupOptions,
  ): Promise<GetSignatureStatusesResult> {
    const resolved = await this.coalescer.resolve(
      missing,
      options.searchTransactionHistory === true,
      options.signal,
    );
    let known = 0;
    for (const status of resolved.statuses) if (status) known += 1;
    this.events.lookup('upstream', known);
    this.events.lookup('unknown', missing.length - known);
    const context = newest(resolved.contexts);
    // No layer knew any and none repeats (fresh signatures): the upstream's answers, in
    // order, are the value; `found` is not read back.
    if (missing === signatures) return this.context.answer(resolved.statuses, context, resolved.untrusted);
    resolved.statuses.forEach((status, i) => found.set(missing[i]!, status));
    const value = valueOf(signatures, found);
    return this.context.answer(value, context, untrustedAt(resolved.untrusted, missing, signatures));
  }

  /** One upstream request for the coalescer: what it teaches is learned once, whoever still waits. */
  private async askUpstreams(
    signatures: readonly string[],
    history: boolean,
    signal: AbortSignal,
  ): Promise<UpstreamAnswer> {
    const answer = await this.fanOut.resolve(signatures, history, signal);
    if (answer.context && !answer.context.untrusted) this.context.observe(answer.context.slot);
    const known: LearnedStatus[] = [];
    // What only an extra upstream said (anyone can register a route node) is served,
    // never learned: no layer keeps it, so no later call is answered from it.
    const { untrusted } = answer;
    answer.statuses.forEach((status, i) => {
      if (status && !untrusted?.has(i)) known.push([signatures[i]!, status]);
    });
    this.learn(known, this.layers.length);
    return answer;
  }

  /**
   * A status a configured upstream pushed (a relayed notification), learned as its answer
   * to a lookup would be. Never call it with what an extra upstream said.
   */
  learnFromUpstream(signature: string, status: SignatureStatus): void {
    this.learn([[signature, status]], this.layers.length);
  }

  /**
   * The one rule of what is learned where: what a source knew is offered to every layer in
   * front of it (an upstream's answer to all of them), and each layer keeps what its kind may.
   */
  private learn(known: readonly LearnedStatus[], before: number): void {
    if (known.length === 0) return;
    for (let i = 0; i < before; i++) this.layers[i]!.learn?.(known);
  }
}

/**
 * `signatures` without repeats, first occurrences in order: `signatures` itself when none
 * repeats. Found by textKey, not by text: a table by text hashed each fresh signature's 88
 * characters, a fifth of a fresh 256-signature call (--cpu-prof, issue 12). Two texts
 * sharing a key send it to the exact way.
 */
function distinctOf(signatures: readonly string[]): readonly string[] {
  if (signatures.length < 2) return signatures;
  const seen = new Map<number, string>();
  let distinct: string[] | undefined;
  for (let i = 0; i < signatures.length; i++) {
    const signature = signatures[i]!;
    const key = textKey(signature);
    const held = seen.get(key);
    if (held === undefined) {
      seen.set(key, signature);
      distinct?.push(signature);
    } else if (held !== signature) {
      return [...new Set(signatures)];
    } else {
      distinct ??= signatures.slice(0, i);
    }
  }
  return distinct ?? signatures;
}

/** One entry per requested signature, in request order, duplicates included; null for an unknown one. */
const valueOf = (signatures: readonly string[], found: Found): (SignatureStatus | null)[] =>
  signatures.map((s) => found.get(s) ?? null);

/** The context with the highest slot, a configured upstream's before any extra one's. */
const newest = (contexts: readonly UpstreamContext[]): UpstreamContext | undefined =>
  contexts.reduce<UpstreamContext | undefined>((best, c) => {
    if (!best) return c;
    if (!best.untrusted !== !c.untrusted) return best.untrusted ? c : best;
    return best.slot >= c.slot ? best : c;
  }, undefined);

/**
 * The positions in `signatures` (duplicates included) of the signatures at the positions
 * `untrusted` of `missing`; undefined when there are none.
 */
function untrustedAt(
  untrusted: ReadonlySet<number> | undefined,
  missing: readonly string[],
  signatures: readonly string[],
): ReadonlySet<number> | undefined {
  if (untrusted === undefined) return undefined;
  const texts = new Set([...untrusted].map((i) => missing[i]!));
  const at = new Set<number>();
  signatures.forEach((signature, i) => {
    if (texts.has(signature)) at.add(i);
  });
  return at;
}
