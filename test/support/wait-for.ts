import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls until `condition` holds and returns its value, at most `attempts` times `stepMs`
 * apart (a bound, not a timing assertion: it only keeps a broken test from hanging).
 */
export async function waitFor<T>(
  condition: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  { attempts = 500, stepMs = 10 } = {},
): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    await sleep(stepMs);
  }
  throw new Error(`gave up waiting for ${what}`);
}
