// Other work on the machine (builds, tests) steals the cores the figures depend on.
// Before each case, wait (bounded) until the machine is nearly idle and record how busy
// it was, so a noisy row can be told from a slow target.
import { readFileSync } from 'node:fs';

function cpuTimes() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + (fields[4] ?? 0);
  return { idle, total: fields.reduce((a, b) => a + b, 0) };
}

/** Share (0..1) of all CPUs busy over `ms`. */
export async function busyShare(ms = 1000) {
  try {
    const a = cpuTimes();
    await new Promise((r) => setTimeout(r, ms));
    const b = cpuTimes();
    return 1 - (b.idle - a.idle) / Math.max(1, b.total - a.total);
  } catch {
    return NaN; // not Linux
  }
}

/** Waits up to `maxWaitMs` for the machine to be under `threshold` busy; returns the last share seen. */
export async function waitForQuiet({ threshold = 0.15, maxWaitMs = 60_000 } = {}) {
  const until = Date.now() + maxWaitMs;
  let share = await busyShare();
  while (share > threshold && Date.now() < until) share = await busyShare();
  return share;
}
