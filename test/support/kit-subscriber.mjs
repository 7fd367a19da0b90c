// A @solana/kit subscriptions client in its own process, so that a test can see whether
// something the router sends kills it: kit's development build (NODE_ENV not
// 'production') builds its error messages in the socket's message listener, where a
// throw is uncaught whatever the caller's try/catch.
//
// Usage: node kit-subscriber.mjs <ws url> <signature> <signature>
// Subscribes to the first signature, prints {"step":"first",...}, waits for a line on
// stdin, subscribes to the second and prints {"step":"second",...}, then exits 0.
import { createInterface } from 'node:readline';
import { createSolanaRpcSubscriptions, isSolanaError, signature } from '@solana/kit';

const [url, first, second] = process.argv.slice(2);
const print = (line) => process.stdout.write(JSON.stringify(line) + '\n');

/** What a caller of kit can read of a failure. */
const readable = (err) => ({
  name: err instanceof Error ? err.name : typeof err,
  message: err instanceof Error ? err.message : String(err),
  solanaError: isSolanaError(err),
  context: isSolanaError(err) ? { ...err.context } : undefined,
});

async function subscribe(rpc, sig, abortSignal) {
  try {
    await rpc.signatureNotifications(signature(sig), { commitment: 'confirmed' }).subscribe({ abortSignal });
    return { ok: true };
  } catch (err) {
    return { ok: false, error: readable(err) };
  }
}

print({ step: 'env', nodeEnv: process.env.NODE_ENV ?? null });
const rpc = createSolanaRpcSubscriptions(url);
const abort = new AbortController();
print({ step: 'first', ...(await subscribe(rpc, first, abort.signal)) });
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once('line', resolve));
lines.close();
print({ step: 'second', ...(await subscribe(rpc, second, abort.signal)) });
abort.abort();
process.exit(0);
