import { redactUrl, type JsonRpcClient, type RpcError } from '@rollup-router/core';
import type { UpstreamContext } from '../answer-context.js';
import type { StatusEvents } from '../events.js';
import { isMoreAdvanced, normalizedStatus, type SignatureStatus } from '../status.js';
import { callUpstream, type UpstreamOutcome } from './call-upstream.js';
import type { UpstreamDirectory, UpstreamPlan, UpstreamTarget } from './directory.js';
import { failureError, type UpstreamFailure } from './failure.js';

/** What the upstreams said about a set of signatures. */
export interface UpstreamAnswer {
  /** A status, or null, for each signature at least one upstream answered for. */
  readonly statuses: ReadonlyMap<string, SignatureStatus | null>;
  /** The context of the answer with the highest slot; undefined when none came. */
  readonly context: UpstreamContext | undefined;
  /** Why the signatures missing from `statuses` got no answer. */
  readonly error: RpcError | undefined;
}

/**
 * Settles signatures that the layers do not know, in the directory's order: tracked ones
 * are asked of the upstream they were sent to first; every one still unknown is then asked
 * of every upstream at once (each only for what it has not already answered). Per
 * signature, the most advanced status wins.
 */
export class UpstreamFanOut {
  constructor(
    private readonly client: JsonRpcClient,
    private readonly directory: UpstreamDirectory,
    private readonly events: StatusEvents,
  ) {}

  async resolve(
    signatures: readonly string[],
    history: boolean,
    signal: AbortSignal,
  ): Promise<UpstreamAnswer> {
    const plan = await this.directory.plan(signatures);
    const tally = new Tally();
    const ask = (target: UpstreamTarget, sigs: readonly string[]) =>
      this.ask(tally, target, sigs, history, signal);
    // Nothing tracked (fresh signatures): every one is still unknown, with no pass over them.
    const unknown =
      plan.tracked.length === 0 ? signatures : await this.askTracked(plan, ask, signatures, tally);
    if (unknown.length > 0) {
      await Promise.all(
        plan.all.map((target) => {
          const sigs = tally.notAnsweredBy(target.url, unknown);
          return sigs.length > 0 ? ask(target, sigs) : undefined;
        }),
      );
    }
    // Only asked signatures are tallied: as many as asked means each got an answer (the
    // walk is for a list with repeats).
    const unanswered =
      tally.statuses.size < signatures.length && signatures.some((s) => !tally.statuses.has(s));
    return {
      statuses: tally.statuses,
      context: tally.context,
      error: unanswered ? failureError(tally.failures) : undefined,
    };
  }

  /** Asks each tracked signature of the upstream it was sent to; returns those still unknown. */
  private async askTracked(
    plan: UpstreamPlan,
    ask: (target: UpstreamTarget, sigs: readonly string[]) => Promise<void>,
    signatures: readonly string[],
    tally: Tally,
  ): Promise<readonly string[]> {
    await Promise.all(plan.tracked.map(([target, sigs]) => ask(target, sigs)));
    return signatures.filter((s) => !tally.statuses.get(s));
  }

  /** Closes the connections to every upstream. */
  close(): Promise<void> {
    return this.client.close();
  }

  private async ask(
    tally: Tally,
    target: UpstreamTarget,
    signatures: readonly string[],
    history: boolean,
    signal: AbortSignal,
  ): Promise<void> {
    const started = performance.now();
    const outcome = await callUpstream(this.client, target, signatures, history, signal);
    const url = redactUrl(target.url);
    this.events.upstreamCall(url, outcome.kind, performance.now() - started);
    if (outcome.kind === 'ok') return tally.merge(target.url, signatures, outcome.result);
    const failure = failureOf(url, outcome);
    tally.failures.push(failure);
    if (outcome.kind !== 'aborted')
      this.events.log.warn(
        { upstream: url, cause: failure.cause, detail: failure.detail },
        'upstream skipped',
      );
  }
}

function failureOf(url: string, outcome: Exclude<UpstreamOutcome, { kind: 'ok' }>): UpstreamFailure {
  return outcome.kind === 'rpc_error'
    ? {
        url,
        cause: 'rpc_error',
        detail: `${outcome.error.code} ${outcome.error.message}`,
        error: outcome.error,
      }
    : { url, cause: outcome.kind, detail: outcome.detail };
}

/** Who answered what, during one fan-out. */
class Tally {
  readonly statuses = new Map<string, SignatureStatus | null>();
  readonly failures: UpstreamFailure[] = [];
  context: UpstreamContext | undefined;
  /** The signatures each upstream answered for, as asked: a set is made only when needed. */
  private readonly answered = new Map<string, (readonly string[])[]>();

  /** Those of `signatures` that `url` has not answered for yet (all of them, unless it was asked before). */
  notAnsweredBy(url: string, signatures: readonly string[]): readonly string[] {
    const lists = this.answered.get(url);
    if (!lists) return signatures;
    const answered = new Set(lists.flat());
    return signatures.filter((s) => !answered.has(s));
  }

  merge(
    url: string,
    signatures: readonly string[],
    { context, value }: { context: UpstreamContext; value: readonly (SignatureStatus | null)[] },
  ): void {
    const lists = this.answered.get(url);
    if (lists) lists.push(signatures);
    else this.answered.set(url, [signatures]);
    value.forEach((status, i) => {
      const signature = signatures[i]!;
      const previous = this.statuses.get(signature);
      if (status === null) {
        if (previous === undefined) this.statuses.set(signature, null);
      } else if (!previous || isMoreAdvanced(status, previous)) {
        this.statuses.set(signature, normalizedStatus(status));
      }
    });
    if (!this.context || context.slot > this.context.slot) {
      this.context = { apiVersion: context.apiVersion, slot: context.slot };
    }
  }
}
