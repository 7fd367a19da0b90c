// What a guard that admits costs per call (goal: under 1 µs): getRoutes through
// rpc.dispatch on two Rpcs in this process, one with a guard that reads the method and the
// host's context as a real one does, the other with none. Rounds alternate between them
// (A B, B A, ...: the garbage one leaves is collected in the other's time either way) so both
// meet the same machine; the cost is the median over rounds of the per-round difference. No HTTP: the socket's noise would drown a microsecond.
import { createLogger, createRpc } from '@rollup-router/core';
import { routesPlugin } from '@rollup-router/routes';
import { benchRoutes } from '../targets/lib/fixtures.mjs';
import { getRoutes } from './requests.mjs';
import { median } from './summary.mjs';

export const GUARD_GOAL_US = 1;

async function routesRpc() {
  const rpc = createRpc({
    logger: createLogger({ level: 'silent' }),
    plugins: [routesPlugin({ routes: benchRoutes(10) })],
  });
  await rpc.start();
  return rpc;
}

/**
 * CPU µs (user + system) per call of `calls` getRoutes dispatched one after the other: CPU
 * time, not wall time, so the time another process had the CPU is not counted.
 */
async function loop(rpc, calls) {
  const text = getRoutes();
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) await rpc.dispatch(text);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

/** `{ rounds, calls, withoutUs, withUs, ratio, addedUs, met }`, or `{ error }`. */
export async function measureGuard(log, { rounds = 40, calls = 15_000 } = {}) {
  log(
    `guard: ${rounds} rounds of ${calls.toLocaleString('en-US')} getRoutes dispatched, without and with a guard`,
  );
  try {
    const without = await routesRpc();
    const guarded = await routesRpc();
    const denied = new Set(['adminOnly']);
    guarded.guard((ctx) => {
      if (denied.has(ctx.method) && ctx.host === undefined) throw new Error('refused');
    });
    for (const rpc of [without, guarded]) await loop(rpc, calls / 2); // JIT
    const pairs = [];
    for (let r = 0; r < rounds; r++) {
      if (r % 2) {
        const b = await loop(guarded, calls);
        pairs.push([await loop(without, calls), b]);
      } else pairs.push([await loop(without, calls), await loop(guarded, calls)]);
    }
    await Promise.all([without.stop(), guarded.stop()]);
    const addedUs = median(pairs.map(([a, b]) => b - a));
    return {
      rounds,
      calls,
      withoutUs: median(pairs.map(([a]) => a)),
      withUs: median(pairs.map(([, b]) => b)),
      ratio: median(pairs.map(([a, b]) => b / a)),
      addedUs,
      met: addedUs < GUARD_GOAL_US,
    };
  } catch (err) {
    return { error: err.message };
  }
}

/** The lines printed under the table. */
export function guardLines(g) {
  const head =
    'guard (a guard that admits, against none): getRoutes through rpc.dispatch in the bench process, CPU time:';
  if (g.error) return `${head}\n  not measured: ${g.error}`;
  return [
    head,
    `  ${g.withoutUs.toFixed(2)} µs per call without, ${g.withUs.toFixed(2)} with (${g.ratio.toFixed(3)}x), ` +
      `${g.rounds} alternating rounds of ${g.calls.toLocaleString('en-US')} calls`,
    `  the guard costs ${g.addedUs >= 0 ? '+' : ''}${g.addedUs.toFixed(3)} µs per call ` +
      `(goal < ${GUARD_GOAL_US} µs: ${g.met ? 'met' : 'MISSED'})`,
  ].join('\n');
}
