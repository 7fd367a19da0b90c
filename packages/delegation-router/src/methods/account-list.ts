import { elementTexts, memberText, type RawJson } from '@rollup-router/core';
import type { UpstreamCaller } from '../upstream/upstream-caller.js';
import type { Upstream } from '../upstream/upstream.js';

/** A getMultipleAccounts answer as the chain wrote it: its context's text and value, each account's text and value. */
export interface AccountList {
  readonly context: { readonly text: string; readonly value: unknown };
  readonly texts: readonly string[];
  readonly values: readonly unknown[];
}

/**
 * `answer`, `upstream`'s getMultipleAccounts of `count` keys, taken apart for merging
 * without re-serialising what the chain wrote; a reply of another shape or length is the
 * caller's bad reply naming `upstream`.
 */
export function accountListOf(
  caller: UpstreamCaller,
  upstream: Upstream,
  answer: RawJson,
  count: number,
): AccountList {
  const values = (answer.value as { value?: unknown } | null)?.value;
  const valueText = memberText(answer.json, 'value');
  const texts = valueText === undefined ? undefined : elementTexts(valueText);
  const context = memberText(answer.json, 'context');
  if (!Array.isArray(values) || values.length !== count || texts?.length !== count || context === undefined) {
    throw caller.badReply(upstream, 'getMultipleAccounts', 'no account list of the right length');
  }
  return { context: { text: context, value: (answer.value as { context: unknown }).context }, texts, values };
}
