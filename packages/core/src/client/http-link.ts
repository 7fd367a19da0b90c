import { JsonRpcClient, type JsonRpcBatchCall, type JsonRpcNoAnswer } from '../jsonrpc-client.js';
import type { JsonrpcResponse } from '../generated/schemas.js';
import { RpcCallError, RpcNoAnswerError, type WireErrorsName } from './errors.js';
import type { CallOptions, Link, LinkCall, Settled } from './link.js';

type Options = Required<Pick<CallOptions, 'timeoutMs'>> & CallOptions;

/** Calls over HTTP through the project's one JSON-RPC client (undici pools, bounded replies). */
export class HttpLink implements Link {
  private readonly client: JsonRpcClient;
  private nextId = 1;

  constructor(
    private readonly url: string,
    headers: Readonly<Record<string, string>> | undefined,
    private readonly wireErrors: WireErrorsName,
  ) {
    this.client = new JsonRpcClient({ headers });
  }

  async call({ method, params }: LinkCall, options: Options): Promise<unknown> {
    const outcome = await this.client.call(this.url, { method, params, ...options });
    if (outcome.kind !== 'reply') throw noAnswer(method, outcome);
    return resultOf(method, outcome.reply, this.wireErrors);
  }

  async batch(calls: readonly LinkCall[], options: Options): Promise<Settled<unknown>[]> {
    const sent: JsonRpcBatchCall[] = calls.map((c) => ({ ...c, id: this.nextId++ }));
    const outcome = await this.client.batch(this.url, sent, options);
    const label = `batch of ${calls.length}`;
    if (outcome.kind === 'reply') resultOf(label, outcome.reply, this.wireErrors); // the whole batch refused: throws
    if (outcome.kind !== 'replies') throw noAnswer(label, outcome as JsonRpcNoAnswer);
    return settle(sent, outcome.replies, this.wireErrors);
  }

  subscribe({ method }: LinkCall): Promise<number> {
    return Promise.reject(
      new RpcNoAnswerError(method, 'unreachable', 'subscriptions need a WebSocket client (ws:// or wss://)'),
    );
  }

  forget(): void {}

  close(): Promise<void> {
    return this.client.close();
  }
}

function noAnswer(method: string, outcome: { kind: string; detail: string }): RpcNoAnswerError {
  const kind =
    outcome.kind === 'timeout' || outcome.kind === 'aborted' || outcome.kind === 'unreachable'
      ? outcome.kind
      : 'bad_reply';
  return new RpcNoAnswerError(method, kind, outcome.detail);
}

/** A response's result, or its error thrown as RpcCallError, its cause read by the server's `wireErrors`. */
export function resultOf(method: string, reply: JsonrpcResponse, wireErrors: WireErrorsName): unknown {
  const { error } = reply as { error?: { code: number; message: string; data?: unknown } | null };
  if (error != null) throw new RpcCallError(method, error.code, error.message, error.data, wireErrors);
  return (reply as { result?: unknown }).result;
}

/** Each call's outcome, by id; a call the server answered nothing for is a bad reply. */
export function settle(
  sent: readonly { method: string; id: number }[],
  replies: readonly JsonrpcResponse[],
  wireErrors: WireErrorsName,
): Settled<unknown>[] {
  const byId = new Map(replies.map((r) => [(r as { id?: unknown }).id, r]));
  return sent.map(({ method, id }) => {
    const reply = byId.get(id);
    if (reply === undefined) throw new RpcNoAnswerError(method, 'bad_reply', `no response for id ${id}`);
    try {
      return { ok: true, result: resultOf(method, reply, wireErrors) };
    } catch (error) {
      return { ok: false, error: error as RpcCallError };
    }
  });
}
