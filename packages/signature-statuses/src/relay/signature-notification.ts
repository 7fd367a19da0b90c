import type { SignatureNotification } from '../signature-watch.js';

/**
 * A signatureNotification's result in Solana's shape and member order, `apiVersion`
 * filled in when the upstream sent none; undefined for anything else (e.g. a
 * receivedSignature notification).
 */
export function signatureNotificationOf(
  result: unknown,
  apiVersion: string,
): SignatureNotification | undefined {
  const r = result as { context?: { apiVersion?: unknown; slot?: unknown }; value?: unknown } | null;
  const slot = r?.context?.slot;
  const value = r?.value as { err?: unknown } | null | undefined;
  if (typeof slot !== 'number' || !Number.isSafeInteger(slot) || slot < 0) return undefined;
  if (value === null || typeof value !== 'object' || !('err' in value)) return undefined;
  const err = value.err;
  if (err !== null && typeof err !== 'object' && typeof err !== 'string') return undefined;
  const version = typeof r!.context!.apiVersion === 'string' ? r!.context!.apiVersion : apiVersion;
  return {
    context: { apiVersion: version, slot },
    value: { err: err as SignatureNotification['value']['err'] },
  };
}
