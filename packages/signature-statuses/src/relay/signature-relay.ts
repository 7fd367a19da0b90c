import { deriveWsUrl } from '@rollup-router/solana';
import { UpstreamPool } from '@rollup-router/core/upstream-pool';
import type { UpstreamResult, UpstreamSubscription } from '@rollup-router/core/upstream-socket';
import type { Logger } from 'pino';
import { providedUpstream, type ResolvedOptions, type SignatureStatusesHooks } from '../options.js';
import type { SignatureNotification } from '../signature-watch.js';
import { finalizedStatus, type ConfirmationStatus, type SignatureStatus } from '../status.js';
import { upstreamNames } from '../upstream/upstream-names.js';
import { signatureNotificationOf } from './signature-notification.js';

/** What the relay tells the watch. */
export interface RelayListener {
  /** An upstream acknowledged `signature`'s subscription: check its status once (it may be there already). */
  acked(signature: string): void;
  /** The first notification of (signature, commitment) from any configured upstream. */
  notified(signature: string, commitment: ConfirmationStatus, result: SignatureNotification): void;
}

interface Held {
  readonly signature: string;
  readonly commitment: ConfirmationStatus;
  holders: number;
}

const keyOf = (signature: string, commitment: ConfirmationStatus): string => `${commitment}:${signature}`;

/** signatureSubscribe as sent upstream: Solana ends it with its notification. */
const signatureSubscription = (signature: string, commitment: ConfirmationStatus): UpstreamSubscription => ({
  subscribe: 'signatureSubscribe',
  unsubscribe: 'signatureUnsubscribe',
  notification: 'signatureNotification',
  params: [signature, { commitment }],
  oneShot: true,
});

/**
 * Relays signatureSubscribe to the websockets of the configured upstreams (never to extra
 * ones: only an operator's upstream is trusted to say a transaction landed). Each pending
 * (signature, commitment) is one subscription on each upstream socket, however many
 * clients hold it; the first notification from any of them wins; the last holder leaving
 * unsubscribes upstream.
 */
export class SignatureRelay {
  readonly sockets: readonly UpstreamPool[];
  /** Whether every configured upstream has a websocket: only then can a signature go unpolled. */
  private readonly everyUpstream: boolean;
  private readonly held = new Map<string, Held>();
  private listener: RelayListener | undefined;

  constructor(
    options: Pick<ResolvedOptions, 'upstreams' | 'upstreamTimeoutMs' | 'apiVersion' | 'subscriptions'>,
    log: () => Logger | undefined,
    /**
     * Where a finalized notification is learned, as a configured upstream's answer to a poll
     * would be (a finalized status is whole: slot and error; earlier levels carry a
     * confirmation count a notification does not give, so they are not kept).
     */
    learn?: (signature: string, status: SignatureStatus) => void,
    upstreamProviders?: SignatureStatusesHooks['upstreamProviders'],
  ) {
    const names = upstreamNames(options.upstreams);
    const eventsOf = (upstream: string) => ({
      acked: (key: string) => {
        const held = this.held.get(key);
        if (held) this.listener?.acked(held.signature);
      },
      notified: (key: string, sent: UpstreamResult) => {
        const result = signatureNotificationOf(sent.value, options.apiVersion);
        if (result === undefined) {
          log()?.warn({ upstream }, 'upstream sent a signatureNotification of another shape; ignored');
          return false;
        }
        const held = this.held.get(key);
        if (held === undefined) return true;
        if (held.commitment === 'finalized')
          learn?.(held.signature, finalizedStatus(result.context.slot, result.value.err));
        this.listener?.notified(held.signature, held.commitment, result);
        return true;
      },
    });
    const { pingIntervalMs, reconnectMaxDelayMs, perUpstreamSocket } = options.subscriptions;
    this.sockets = options.upstreams.flatMap((u, i) =>
      u.wsUrl === false
        ? []
        : [
            new UpstreamPool(
              names[i]!,
              providedUpstream(upstreamProviders, names[i]!)?.wsUrl ?? u.wsUrl ?? deriveWsUrl(u.url),
              eventsOf(names[i]!),
              {
                pingIntervalMs,
                reconnectMaxDelayMs,
                handshakeTimeoutMs: u.timeoutMs ?? options.upstreamTimeoutMs,
                subscriptionsPerSocket: perUpstreamSocket,
                fallback: 'such signatures are polled',
              },
              log,
            ),
          ],
    );
    this.everyUpstream = this.sockets.length > 0 && this.sockets.length === options.upstreams.length;
  }

  /** Who hears acknowledgements and notifications (the watch). */
  listen(listener: RelayListener): void {
    this.listener = listener;
  }

  /** Whether a new subscription will be acknowledged by some upstream soon (else check it at once). */
  get relaying(): boolean {
    return this.sockets.some((s) => s.isOpen);
  }

  /** Distinct (signature, commitment) relayed now. */
  get size(): number {
    return this.held.size;
  }

  /** Whether every configured upstream acknowledged (signature, commitment): no poll needed. */
  covers(signature: string, commitment: ConfirmationStatus): boolean {
    if (!this.everyUpstream) return false;
    const key = keyOf(signature, commitment);
    return this.sockets.every((s) => s.covers(key));
  }

  /** One client's share of (signature, commitment). Returns what releases it (once; later calls do nothing). */
  hold(signature: string, commitment: ConfirmationStatus): () => void {
    const key = keyOf(signature, commitment);
    let held = this.held.get(key);
    if (held === undefined) {
      this.held.set(key, (held = { signature, commitment, holders: 0 }));
      const subscription = signatureSubscription(signature, commitment);
      for (const s of this.sockets) s.subscribe(key, subscription);
    }
    held.holders += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      held.holders -= 1;
      if (held.holders > 0 || this.held.get(key) !== held) return;
      this.held.delete(key);
      for (const s of this.sockets) s.unsubscribe(key);
    };
  }

  start(): void {
    for (const s of this.sockets) s.start();
  }

  stop(): void {
    for (const s of this.sockets) s.stop();
    this.held.clear();
  }
}
