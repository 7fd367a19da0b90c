import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import bs58 from 'bs58';
import type { SignatureStatus, TransactionError } from '../../src/index.js';

/** A random, valid (64-byte) signature no node has seen. */
export const randomSignature = (): string => bs58.encode(randomBytes(64));

export const randomSignatures = (n: number): string[] => Array.from({ length: n }, randomSignature);

/** A status as a Solana node writes it (keys in the validator's alphabetical order). */
export function status(
  confirmationStatus: SignatureStatus['confirmationStatus'],
  slot: number,
  err: TransactionError | null = null,
  confirmations: number | null = confirmationStatus === 'finalized' ? null : 1,
): SignatureStatus {
  return { confirmationStatus, confirmations, err, slot, status: err === null ? { Ok: null } : { Err: err } };
}

/** A fresh temp directory, removed by the returned function. */
export function tempDir(): { dir: string; file: (name: string) => string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sigstatus-'));
  return {
    dir,
    file: (name) => path.join(dir, name),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Polls `condition` (bounded) instead of sleeping a fixed time. */
export async function waitFor(condition: () => boolean, what: string, tries = 500): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}
