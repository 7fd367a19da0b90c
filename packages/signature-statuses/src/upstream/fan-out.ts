import type { JsonRpcClient, RpcError } from '@rollup-router/core';
import type { UpstreamContext } from '../answer-context.js';
import type { StatusEvents } from '../events.js';
import { isMoreAdvanced, normalizedStatus, type SignatureStatus } from '../status.js';
import { callUpstream, type UpstreamOutcome } from './call-upstream.js';
import type { UpstreamDirectory, UpstreamTarget } from './directory.js';
import { failureError, type UpstreamFailure } from './failure.js';

/** What the upstreams said about a set of signatures. */
export interface UpstreamAnswer {
  /**
   * By position in the signatures asked: a status, null when the upstreams that answered
   * did not know it, undefined when no upstream answered for it. Positions, not a map by
   * signature: a map hashed each fresh signature's 88 characters (issue 12).
   */
  readonly statuses: readonly (SignatureStatus | null | undefined)[];
  /** The context of the answer with the highest slot; undefined when none came. */
  readonly context: UpstreamContext | undefined;
  /** Why the signatures left undefined in `statuses` got no answer. */
  readonly error: RpcError | undefined;
}

/** Positions in the signatures of one fan-out; undefined is all of them, in order. */
type Positions = readonly number[] | undefined;

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
    const tally = new Tally(signatures.length);
    const ask = (target: UpstreamTarget, at: Positions) =>
      this.ask(tally, target, signatures, at, history, signal);
    if (plan.tracked.length === 0) {
      // Nothing tracked (fresh signatures): every upstream is asked for all, with no pass over them.
      await Promise.all(plan.all.map((target) => ask(target, undefined)));
    } else {
      await Promise.all(plan.tracked.map(([target, at]) => ask(target, at)));
      const unknown = tally.unsettled();
      if (unknown.length > 0) {
        await Promise.all(
          plan.all.map((target) => {
            const at = tally.notAnsweredBy(target.url, unknown);
            return at.length > 0 ? ask(target, at) : undefined;
          }),
        );
      }
    }
    return {
      statuses: tally.statuses,
      context: tally.context,
      error: tally.statuses.includes(undefined) ? failureError(tally.failures) : undefined,
    };
  }

  /** Closes the connections to every upstream. */
  close(): Promise<void> {
    return this.client.close();
  }

  private async ask(
    tally: Tally,
    target: UpstreamTarget,
    all: readonly string[],
    at: Positions,
    history: boolean,
    signal: AbortSignal,
  ): Promise<void> {
    const signatures = at === undefined ? all : at.map((i) => all[i]!);
    const started = performance.now();
    const outcome = await callUpstream(this.client, target, signatures, history, signal);
    this.events.upstreamCall(target.name, outcome.kind, performance.now() - started);
    if (outcome.kind === 'ok') return tally.merge(target.url, at, outcome.result);
    const failure = failureOf(target.name, outcome);
    tally.failures.push(failure);
    if (outcome.kind !== 'aborted')
      this.events.log.warn(
        { upstream: target.name, cause: failure.cause, detail: failure.detail },
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

/** Who answered what, during one fan-out, by position in its signatures. */
class Tally {
  readonly statuses: (SignatureStatus | null | undefined)[];
  readonly failures: UpstreamFailure[] = [];
  context: UpstreamContext | undefined;
  /** Per upstream, the positions it answered for (true), made at its first answer. */
  private readonly answered = new Map<string, boolean[]>();

  constructor(size: number) {
    this.statuses = new Array<SignatureStatus | null | undefined>(size).fill(undefined);
  }

  /** The positions with no status yet (unknown to every upstream that answered, or not answered). */
  unsettled(): number[] {
    const at: number[] = [];
    this.statuses.forEach((status, i) => {
      if (!status) at.push(i);
    });
    return at;
  }

  /** Those of the positions `at` that `url` has not answered for yet (all of them, unless it answered before). */
  notAnsweredBy(url: string, at: readonly number[]): readonly number[] {
    const answered = this.answered.get(url);
    return answered ? at.filter((i) => !answered[i]) : at;
  }

  merge(
    url: string,
    at: Positions,
    { context, value }: { context: UpstreamContext; value: readonly (SignatureStatus | null)[] },
  ): void {
    let answered = this.answered.get(url);
    if (!answered) this.answered.set(url, (answered = new Array<boolean>(this.statuses.length).fill(false)));
    for (let k = 0; k < value.length; k++) {
      const i = at === undefined ? k : at[k]!;
      const status = value[k]!;
      const previous = this.statuses[i];
      answered[i] = true;
      if (status === null) {
        if (previous === undefined) this.statuses[i] = null;
      } else if (!previous || isMoreAdvanced(status, previous)) {
        this.statuses[i] = normalizedStatus(status);
      }
    }
    if (!this.context || context.slot > this.context.slot) {
      this.context = { apiVersion: context.apiVersion, slot: context.slot };
    }
  }
}
