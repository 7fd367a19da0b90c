// Solana's rules, shared by rollup-router's Solana plugins: the core knows none of them.
export { base58BytesKeyword } from './base58-keyword.js';
export { base58Check, base58DecodedLength, MAX_BASE58_TEXT, type Base58Failure } from './base58.js';
export { COMMITMENT_RANK, type Commitment } from './commitment.js';
export { AGAVE_INVALID_SUBSCRIPTION_ID, SOLANA_CLIENT_HEADER } from './agave.js';
export { pubkeySchema, signatureSchema, type Pubkey, type Signature } from './generated/schemas.js';
export {
  currentWsUrl,
  solanaProviders,
  solanaProviderSet,
  type SolanaChainConfig,
  type SolanaProvider,
} from './chain-providers.js';
export type { ChainProvider } from './generated/schemas.js';
export { SOLANA_CLIENT_CODES, solanaWireErrors } from './wire-errors.js';
export { deriveWsUrl } from './ws-url.js';
export { textKey } from './text-key.js';
export { refusalSummary } from './refusal-summary.js';
