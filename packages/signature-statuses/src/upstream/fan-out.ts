import type { JsonRpcClient, RpcError } from '@rollup-router/core';
import type { UpstreamContext } from '../answer-context.js';
import type { StatusEvents } from '../events.js';
import { isMoreAdvanced, normalizedStatus, type SignatureStatus } from '../status.js';
import { callUpstream, type UpstreamAttemptReport, type UpstreamOutcome } from './call-upstream.js';
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
  /**
   * Positions whose status only an extra upstream gave (no configured upstream knew it):
   * served, never learned. Undefined when there are none.
   */
  readonly untrusted: ReadonlySet<number> | undefined;
  /**
   * The context of the configured upstream answer with the highest slot; when none came,
   * an extra upstream's, marked untrusted. Undefined when no upstream answered.
   */
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
 * signature, the most advanced status a configured upstream gave wins; an extra
 * upstream's fills only what no configured upstream knew.
 */
export class UpstreamFanOut {
  constructor(
    private readonly client: JsonRpcClient,
    private readonly directory: UpstreamDirectory,
    private readonly events: StatusEvents,
  ) {}

  private readonly report: UpstreamAttemptReport = (label, kind, ms) =>
    this.events.upstreamCall(label, kind, ms);

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
    return tally.answer();
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
    const outcome = await callUpstream(this.client, target, signatures, history, signal, this.report);
    if (outcome.kind === 'ok') return tally.merge(target, at, outcome.result);
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

type Statuses = (SignatureStatus | null | undefined)[];

/**
 * Who answered what, during one fan-out, by position in its signatures. The configured
 * upstreams' answers and the extra ones' are kept apart, so an extra upstream can never
 * override a configured one's answer, and what it alone knew is marked as such.
 */
class Tally {
  /** What configured upstreams said: a status, null when those that answered did not know it, undefined when none answered. */
  private readonly trusted: Statuses;
  /** What extra upstreams said, made at the first extra answer. */
  private extra: Statuses | undefined;
  readonly failures: UpstreamFailure[] = [];
  private trustedContext: UpstreamContext | undefined;
  private extraContext: UpstreamContext | undefined;
  /** Per upstream URL, the positions it answered for (true), made at its first answer. */
  private readonly answered = new Map<string, boolean[]>();

  constructor(private readonly size: number) {
    this.trusted = new Array<SignatureStatus | null | undefined>(size).fill(undefined);
  }

  /** The positions no configured upstream knows yet (unknown to every one that answered, or not answered). */
  unsettled(): number[] {
    const at: number[] = [];
    this.trusted.forEach((status, i) => {
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
    target: UpstreamTarget,
    at: Positions,
    { context, value }: { context: UpstreamContext; value: readonly (SignatureStatus | null)[] },
  ): void {
    let answered = this.answered.get(target.url);
    if (!answered) this.answered.set(target.url, (answered = new Array<boolean>(this.size).fill(false)));
    const statuses = target.trusted
      ? this.trusted
      : (this.extra ??= new Array<SignatureStatus | null | undefined>(this.size).fill(undefined));
    for (let k = 0; k < value.length; k++) {
      const i = at === undefined ? k : at[k]!;
      const status = value[k]!;
      const previous = statuses[i];
      answered[i] = true;
      if (status === null) {
        if (previous === undefined) statuses[i] = null;
      } else if (!previous || isMoreAdvanced(status, previous)) {
        statuses[i] = normalizedStatus(status);
      }
    }
    if (target.trusted) {
      if (!this.trustedContext || context.slot > this.trustedContext.slot)
        this.trustedContext = { apiVersion: context.apiVersion, slot: context.slot };
    } else if (!this.extraContext || context.slot > this.extraContext.slot) {
      this.extraContext = { apiVersion: context.apiVersion, slot: context.slot, untrusted: true };
    }
  }

  /** The configured upstreams' statuses, with what only an extra upstream knew filled in and marked. */
  answer(): UpstreamAnswer {
    const { extra } = this;
    let statuses = this.trusted;
    let untrusted: Set<number> | undefined;
    if (extra !== undefined) {
      statuses = this.trusted.map((status, i) => {
        if (status) return status;
        const other = extra[i];
        if (!other) return status === undefined ? other : status;
        (untrusted ??= new Set()).add(i);
        return other;
      });
    }
    return {
      statuses,
      untrusted,
      context: this.trustedContext ?? this.extraContext,
      error: statuses.includes(undefined) ? failureError(this.failures) : undefined,
    };
  }
}
