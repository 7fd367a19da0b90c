import { JsonRpcClient } from '@rollup-router/core';
import { redactUrl } from '@rollup-router/core/internal';
import type { Commitment } from '@rollup-router/solana';
import {
  accountAtSlot,
  programAccountsAtSlot,
  type AccountAtSlot,
  type ProgramAccountsAtSlot,
} from './chain-answers.js';

/**
 * A full read answers every record the program owns, and anyone may register one: a cap
 * against a runaway answer, far above any real registry (a record is under 1 KB of JSON).
 */
const FULL_READ_MAX_BYTES = 256 << 20;

/**
 * The registry's reads over HTTP, on core's JSON-RPC client (credentials in the URL go as
 * a Basic Authorization header). A failure throws an error whose message names the method
 * and the node by its redacted URL, never its credentials or path.
 */
export class ChainReader {
  private readonly client = new JsonRpcClient();
  private readonly where: string;

  constructor(
    private readonly url: string,
    private readonly commitment: Commitment,
    private readonly timeoutMs: number,
  ) {
    this.where = redactUrl(url);
  }

  async programAccounts(programId: string, signal: AbortSignal): Promise<ProgramAccountsAtSlot> {
    const config = { encoding: 'base64', commitment: this.commitment, withContext: true };
    const method = 'getProgramAccounts';
    const result = await this.call(method, [programId, config], signal, FULL_READ_MAX_BYTES);
    return programAccountsAtSlot(result) ?? this.fail(method, 'answered no account list');
  }

  async account(pubkey: string, signal: AbortSignal): Promise<AccountAtSlot> {
    const method = 'getAccountInfo';
    const result = await this.call(
      method,
      [pubkey, { encoding: 'base64', commitment: this.commitment }],
      signal,
    );
    return accountAtSlot(result) ?? this.fail(method, 'answered no account');
  }

  close(): Promise<void> {
    return this.client.close();
  }

  private async call(
    method: string,
    params: unknown,
    signal: AbortSignal,
    maxReplyBytes?: number,
  ): Promise<unknown> {
    const outcome = await this.client.call(this.url, {
      method,
      params,
      timeoutMs: this.timeoutMs,
      signal,
      ...(maxReplyBytes === undefined ? {} : { maxReplyBytes }),
    });
    if (outcome.kind !== 'reply') return this.fail(method, outcome.detail);
    const { error } = outcome.reply;
    if (error != null) return this.fail(method, `${error.code} ${error.message}`);
    return outcome.reply.result;
  }

  private fail(method: string, why: string): never {
    throw new Error(`${method} at ${this.where}: ${why}`);
  }
}
