import type { AccountSubscribeParams } from '../generated/schemas.js';

type Config = NonNullable<AccountSubscribeParams[1]>;

/**
 * An accountSubscribe's params as relayed: only the config members Solana reads
 * (unknown ones are dropped, as Agave ignores them), in one order, no config when none is
 * left. What a client may vary without changing what it is notified does not split one
 * upstream subscription into many: the relay's key is this, and it is what goes upstream.
 */
export function normalizedAccountParams([account, config]: AccountSubscribeParams):
  [string] | [string, Config] {
  const kept: { -readonly [K in keyof Config]: Config[K] } = {};
  if (config?.commitment !== undefined) kept.commitment = config.commitment;
  if (config?.dataSlice !== undefined)
    kept.dataSlice = { offset: config.dataSlice.offset, length: config.dataSlice.length };
  if (config?.encoding !== undefined) kept.encoding = config.encoding;
  if (config?.minContextSlot !== undefined) kept.minContextSlot = config.minContextSlot;
  return Object.keys(kept).length === 0 ? [account] : [account, kept];
}
