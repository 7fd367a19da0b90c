/** Agave's text for an unsubscribe naming no live subscription of its kind (SubscriptionDefinition.unknownIdMessage). */
export const AGAVE_INVALID_SUBSCRIPTION_ID = 'Invalid subscription id.';

/**
 * The header Solana's clients send with every call (web3.js: `solana-client: js/<version>`),
 * so a browser's CORS pre-flight asks for it (Plugin.allowHeaders).
 */
export const SOLANA_CLIENT_HEADER = 'solana-client';
