import { RawJson } from '@rollup-router/core';
import type { GetSignatureStatusesResult } from './generated/schemas.js';
import type { SignatureStatus } from './status.js';

/**
 * Each status's JSON text, made the first time it is served. A status is never changed
 * once made (a newer one is a new object), and clients poll the same signatures, so a
 * status served again costs a lookup instead of a JSON.stringify, which was a fifth of a
 * 256-signature call from memory (--cpu-prof). Two generations of plain Maps bound the
 * memory; a WeakMap cost more than the stringify it saved for statuses seen once (fresh
 * ones from an upstream): its entries are ephemerons, which every GC must trace.
 */
const GENERATION_SIZE = 4_096;
let young = new Map<SignatureStatus, string>();
let old = new Map<SignatureStatus, string>();

function textOf(status: SignatureStatus | null): string {
  if (status === null) return 'null';
  let text = young.get(status);
  if (text !== undefined) return text;
  text = old.get(status) ?? JSON.stringify(status);
  if (young.size >= GENERATION_SIZE) {
    old = young;
    young = new Map();
  }
  young.set(status, text);
  return text;
}

/** The result's JSON text, the bytes JSON.stringify(result) makes, with the statuses' texts reused. */
export function resultJson(result: GetSignatureStatusesResult): RawJson<GetSignatureStatusesResult> {
  const keys = Object.keys(result);
  // The members in the order AnswerContext makes them; any other shape is serialized whole.
  if (keys.length !== 2 || keys[0] !== 'context' || keys[1] !== 'value') return RawJson.of(result);
  // join() makes one flat string; appending would make a rope that the write flattens.
  const texts = result.value.map(textOf);
  return new RawJson(`{"context":${JSON.stringify(result.context)},"value":[${texts.join(',')}]}`, result);
}
