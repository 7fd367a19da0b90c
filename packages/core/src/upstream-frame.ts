import { memberText } from './result-text.js';

/** A notification's `params.result` as an upstream sent it. */
export class UpstreamResult {
  constructor(
    /** The result's own text, byte for byte as the upstream wrote it (u64 fields intact). */
    readonly json: string,
    /**
     * The result parsed, for reading its shape (slots, owners): numbers past 2^53 in it are
     * not exact, so what goes to clients is `json`, never this re-serialized.
     */
    readonly value: unknown,
  ) {}
}

/** One message from an upstream's pubsub socket: an answer (`id`) or a notification (`method`). */
export type UpstreamFrame =
  | { readonly kind: 'answer'; readonly id: number; readonly result: unknown; readonly error: unknown }
  | {
      readonly kind: 'notification';
      readonly method: string;
      readonly subscription: unknown;
      readonly result: UpstreamResult | undefined;
    };

type Message = {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly result?: unknown;
  readonly error?: unknown;
  readonly params?: { readonly subscription?: unknown; readonly result?: unknown } | null;
};

/**
 * Reads one upstream message, keeping a notification's result as the upstream wrote it:
 * its text is located in the message (memberText), so what reaches clients is never a
 * re-serialized copy. Undefined for anything that is not one JSON-RPC object.
 */
export function readUpstreamFrame(text: string): UpstreamFrame | undefined {
  let message: Message;
  try {
    message = JSON.parse(text) as Message;
  } catch {
    return undefined;
  }
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  if (typeof message.id === 'number') {
    return { kind: 'answer', id: message.id, result: message.result, error: message.error };
  }
  if (typeof message.method !== 'string') return undefined;
  const { params } = message;
  const paramsText = params == null ? undefined : memberText(text, 'params');
  const resultText = paramsText === undefined ? undefined : memberText(paramsText, 'result');
  return {
    kind: 'notification',
    method: message.method,
    subscription: params?.subscription,
    result: resultText === undefined ? undefined : new UpstreamResult(resultText, params?.result),
  };
}
