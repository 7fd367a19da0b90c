/** Whether the Solana node at `url` answers getHealth with "ok" within `timeoutMs`. */
export async function reachable(url: string, timeoutMs = 2000): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"getHealth"}',
      signal: AbortSignal.timeout(timeoutMs),
    });
    return ((await res.json()) as { result?: unknown }).result === 'ok';
  } catch {
    return false;
  }
}

/**
 * Skips the suite (from its `before`) with a visible line when validator A is not reachable
 * at `url`: the real-validator tests need the peers running, the rest of the suite does not.
 */
export async function skipUnlessValidatorA(ctx: Mocha.Context, url: string, hint = ''): Promise<void> {
  if (await reachable(url)) return;
  console.log(`      skipped: validator A is not reachable at ${url}${hint}`);
  ctx.skip();
}
