import type { ProviderSet } from '@rollup-router/core';
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
 * The registry's reads over HTTP, through the providers of the cluster (the first healthy
 * one; credentials in a URL go as a Basic Authorization header). A failure throws an error
 * whose message names the method and the provider that answered last, by its name (the
 * redacted URL of the one-URL form), never its credentials or path.
 */
export class ChainReader {
  constructor(
    private readonly providers: ProviderSet,
    private readonly commitment: Commitment,
    private readonly timeoutMs: number,
  ) {}

  async programAccounts(programId: string, signal: AbortSignal): Promise<ProgramAccountsAtSlot> {
    const config = { encoding: 'base64', commitment: this.commitment, withContext: true };
    const method = 'getProgramAccounts';
    const { where, result } = await this.call(method, [programId, config], signal, FULL_READ_MAX_BYTES);
    return programAccountsAtSlot(result) ?? this.fail(method, where, 'answered no account list');
  }

  async account(pubkey: string, signal: AbortSignal): Promise<AccountAtSlot> {
    const method = 'getAccountInfo';
    const { where, result } = await this.call(
      method,
      [pubkey, { encoding: 'base64', commitment: this.commitment }],
      signal,
    );
    return accountAtSlot(result) ?? this.fail(method, where, 'answered no account');
  }

  private async call(
    method: string,
    params: unknown,
    signal: AbortSignal,
    maxReplyBytes?: number,
  ): Promise<{ readonly where: string; readonly result: unknown }> {
    let where = this.providers.current().name;
    const outcome = await this.providers.call({
      method,
      params,
      timeoutMs: this.timeoutMs,
      signal,
      ...(maxReplyBytes === undefined ? {} : { maxReplyBytes }),
      onAttempt: (provider) => (where = provider),
    });
    if (outcome.kind !== 'reply') return this.fail(method, where, outcome.detail);
    const { error } = outcome.reply;
    if (error != null) return this.fail(method, where, `${error.code} ${error.message}`);
    return { where, result: outcome.reply.result };
  }

  private fail(method: string, where: string, why: string): never {
    throw new Error(`${method} at ${where}: ${why}`);
  }
}
