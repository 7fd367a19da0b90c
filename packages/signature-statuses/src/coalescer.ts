import { ErrorCode, RpcError } from '@rollup-router/core';
import { textKey } from '@rollup-router/solana';
import type { SignatureStatus } from './status.js';
import type { UpstreamContext } from './answer-context.js';
import type { UpstreamAnswer } from './upstream/fan-out.js';
import { noUpstreamError } from './upstream/failure.js';

/** Asks the upstreams about one batch of signatures. */
export type BatchRunner = (
  signatures: readonly string[],
  searchTransactionHistory: boolean,
  signal: AbortSignal,
) => Promise<UpstreamAnswer>;

export interface CoalescedAnswer {
  /** A status or null for each signature asked, in the order asked (an array made for the caller). */
  readonly statuses: (SignatureStatus | null)[];
  /** The contexts of the upstream answers used (one per batch that had one). */
  readonly contexts: readonly UpstreamContext[];
  /** Positions (in the signatures asked) whose status only an extra upstream gave; undefined when none. */
  readonly untrusted: ReadonlySet<number> | undefined;
}

/** Upstream requests carry at most this many signatures, as Solana nodes accept. */
const MAX_BATCH = 256;
/** A position in a batch takes the low bits of an in-flight entry (MAX_BATCH = 2 ** 8). */
const POSITION_BITS = 8;
const POSITION_MASK = MAX_BATCH - 1;
/** Serials wrap below 2 ** 22, so an entry, serial and position, stays in 30 bits: a small integer. */
const SERIALS = 1 << 22;

/**
 * One upstream lookup shared by every call that needs the same signatures. Signatures
 * asked in the same event-loop turn go out together (a micro-batch, flushed by
 * setImmediate); a signature already on its way joins the lookup under way instead of
 * starting another. A lookup is abandoned only when every call waiting for it is gone.
 */
export class Coalescer {
  /**
   * Per searchTransactionHistory, the signatures on their way, keyed by textKey: a map by
   * the text hashed each fresh signature over its 88 characters on the way in and again on
   * the way out, a seventh of a fresh 256-signature call (--cpu-prof, issue 12). A
   * signature whose key another one holds is asked for in its own right, not joined.
   * An entry is a small integer, its batch's serial and its position there: an object per
   * entry was 256 allocations per fresh call that lived as long as the upstream request,
   * so each was copied by the young generation's collections (issue 12).
   */
  private readonly inFlight = new Map<boolean, Map<number, number>>([
    [false, new Map()],
    [true, new Map()],
  ]);
  /** The batches not yet answered, by serial. */
  private readonly batches = new Map<number, Batch>();
  private lastSerial = 0;
  private readonly filling = new Map<boolean, Batch>();

  constructor(
    private readonly runner: BatchRunner,
    private readonly deadlineMs: number,
  ) {}

  async resolve(
    signatures: readonly string[],
    searchTransactionHistory: boolean,
    signal?: AbortSignal,
  ): Promise<CoalescedAnswer> {
    // Arrays by position, not maps by signature: a lookup of 256 fresh signatures made
    // three maps of 256 entries, a third of this method's time (--cpu-prof). For each
    // signature: which of `batches` asks for it, and where in that batch's signatures.
    const batchIndex = new Array<number>(signatures.length);
    const position = new Array<number>(signatures.length);
    const batches: Batch[] = [];
    const inFlight = this.inFlight.get(searchTransactionHistory)!;
    for (let i = 0; i < signatures.length; i++) {
      const signature = signatures[i]!;
      const key = textKey(signature);
      // The batch holding the key, unless its lookup was abandoned (then it is taken over).
      const entry = inFlight.get(key);
      let holder = entry === undefined ? undefined : this.batches.get(entry >>> POSITION_BITS);
      if (holder?.abandoned) holder = undefined;
      let batch: Batch;
      if (holder !== undefined && holder.signatures[entry! & POSITION_MASK] === signature) {
        batch = holder;
        position[i] = entry! & POSITION_MASK;
      } else {
        batch = this.fillingBatch(searchTransactionHistory);
        const at = batch.signatures.push(signature) - 1;
        position[i] = at;
        // Another signature holding the key keeps it: this one is asked for, not joinable.
        if (holder === undefined) inFlight.set(key, entryOf(batch.serial, at));
        batch.keys.push(holder === undefined ? key : NOT_HELD);
      }
      // Mostly one batch per call: the check against the last one spares the search.
      let at = batches.length - 1;
      if (batches[at] !== batch) {
        at = batches.indexOf(batch);
        if (at < 0) at = batches.push(batch) - 1;
      }
      batchIndex[i] = at;
    }
    const answers = await waitFor(batches, signal);
    const statuses = new Array<SignatureStatus | null>(signatures.length);
    let untrusted: Set<number> | undefined;
    for (let i = 0; i < signatures.length; i++) {
      const answer = answers[batchIndex[i]!]!;
      const at = position[i]!;
      const status = answer.statuses[at];
      if (status === undefined) throw answer.error ?? noUpstreamError();
      statuses[i] = status;
      if (answer.untrusted?.has(at)) (untrusted ??= new Set()).add(i);
    }
    return { statuses, contexts: answers.flatMap((a) => (a.context ? [a.context] : [])), untrusted };
  }

  private fillingBatch(history: boolean): Batch {
    const current = this.filling.get(history);
    if (current && current.signatures.length < MAX_BATCH) return current;
    const batch = new Batch(this.freeSerial());
    this.batches.set(batch.serial, batch);
    this.filling.set(history, batch);
    setImmediate(() => this.flush(batch, history));
    return batch;
  }

  /** The next serial no batch under way holds (after 2 ** 22 batches they come round again). */
  private freeSerial(): number {
    do this.lastSerial = (this.lastSerial + 1) % SERIALS;
    while (this.batches.has(this.lastSerial));
    return this.lastSerial;
  }

  private flush(batch: Batch, history: boolean): void {
    if (this.filling.get(history) === batch) this.filling.delete(history);
    batch.settle(
      this.runner(batch.signatures, history, batch.start(this.deadlineMs)).finally(() => {
        const inFlight = this.inFlight.get(history)!;
        const { keys, serial } = batch;
        // An entry a later lookup took over (this one was abandoned) is that lookup's.
        for (let at = 0; at < keys.length; at++) {
          const key = keys[at]!;
          if (key !== NOT_HELD && inFlight.get(key) === entryOf(serial, at)) inFlight.delete(key);
        }
        this.batches.delete(serial);
      }),
    );
  }
}

/** An in-flight entry: the batch's serial in the high bits, the position in the low ones. */
const entryOf = (serial: number, position: number): number => (serial << POSITION_BITS) | position;

/** In a batch's keys: the signature at that position does not hold its key (another one does). */
const NOT_HELD = -1;

/** Signatures that go to the upstreams in one request, and the calls waiting for them. */
class Batch {
  readonly signatures: string[] = [];
  /** By position, the textKey of each signature, or NOT_HELD where another signature holds it. */
  readonly keys: number[] = [];
  readonly done: Promise<UpstreamAnswer>;
  private resolveDone!: (answer: Promise<UpstreamAnswer>) => void;
  private readonly controller = new AbortController();
  private waiting = 0;
  private settled = false;
  private deadline: NodeJS.Timeout | undefined;

  constructor(readonly serial: number) {
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    // Every caller may be gone when it fails; that is not an unhandled rejection.
    this.done.catch(() => undefined);
  }

  /**
   * The lookup's one signal: it fires when every caller is gone, or with a TimeoutError once
   * `deadlineMs` have passed. A timer cleared when the lookup ends, instead of
   * AbortSignal.any over AbortSignal.timeout, whose timer and signals lived on until the
   * deadline for every lookup.
   */
  start(deadlineMs: number): AbortSignal {
    const expire = () => this.controller.abort(new DOMException('lookup deadline passed', 'TimeoutError'));
    this.deadline = setTimeout(expire, deadlineMs).unref();
    return this.controller.signal;
  }

  /** Every caller gone, or the deadline passed: a later lookup starts another request instead of joining it. */
  get abandoned(): boolean {
    return this.controller.signal.aborted;
  }

  /** Counts a caller in. */
  join(): void {
    this.waiting += 1;
  }

  /** A caller went away before the answer: when it was the last, the lookup is abandoned. */
  leave(): void {
    if (this.settled) return;
    this.waiting -= 1;
    if (this.waiting === 0) this.controller.abort();
  }

  settle(answer: Promise<UpstreamAnswer>): void {
    this.resolveDone(answer);
    const ended = () => {
      this.settled = true;
      clearTimeout(this.deadline);
    };
    answer.then(ended, ended);
  }
}

/**
 * Waits for the answers of `batches`, counted in each as a caller. When the caller's
 * signal fires first, it leaves each (the last caller to leave abandons a lookup) and this
 * throws at once. One listener for all the batches, without options: a `{ once: true }`
 * listener per batch, and another for the wait, were half of a fresh 1-signature lookup's
 * time in the coalescer on Node 20 (--cpu-prof).
 */
function waitFor(batches: readonly Batch[], signal: AbortSignal | undefined): Promise<UpstreamAnswer[]> {
  if (signal?.aborted) return Promise.reject(RpcError.of(ErrorCode.DEADLINE_EXCEEDED));
  for (const batch of batches) batch.join();
  const answers = Promise.all(batches.map((b) => b.done));
  if (!signal) return answers;
  return new Promise((resolve, reject) => {
    let waiting = true;
    const leave = () => {
      if (!waiting) return;
      waiting = false;
      for (const batch of batches) batch.leave();
    };
    const onAbort = () => {
      leave();
      reject(RpcError.of(ErrorCode.DEADLINE_EXCEEDED));
    };
    signal.addEventListener('abort', onAbort);
    answers.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        // Not waiting any more: a batch still under way counts this caller gone.
        signal.removeEventListener('abort', onAbort);
        leave();
        reject(e);
      },
    );
  });
}
