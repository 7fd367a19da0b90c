// Who used the CPUs during one measured round. The machine's busy time minus what the
// bench knows about (the load generator, the server and its upstream, the peers, our
// idle targets) is "others": another helper's build, a test run, a cron job. Above
// NOTE_SHARE of one CPU, the round gets a note naming the biggest of them.
import { allProcessesCpuUs, describeProcess, machineCpuUs } from './proc.mjs';

export const NOTE_SHARE = 0.05;

/** Starts a window; `stop(knownPids)` says how the CPU time since was shared. */
export function cpuWindow() {
  const t0 = process.hrtime.bigint();
  const machine0 = machineCpuUs();
  const procs0 = allProcessesCpuUs();
  return {
    stop(knownPids) {
      const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
      const machine1 = machineCpuUs();
      const procs1 = allProcessesCpuUs();
      if (!machine0 || !machine1) return undefined;
      const known = new Set(knownPids.filter(Boolean));
      let knownUs = 0;
      const knownByPid = new Map();
      const others = [];
      for (const [pid, p] of procs1) {
        const used = p.cpuUs - (procs0.get(pid)?.cpuUs ?? 0);
        if (known.has(pid)) {
          knownUs += used;
          knownByPid.set(pid, used);
        } else if (used > 0) others.push({ pid, name: p.name, us: used });
      }
      const busyUs = machine1.busyUs - machine0.busyUs;
      // Processes that started and ended inside the window are only in the total.
      const othersUs = Math.max(0, busyUs - knownUs);
      return {
        wallUs,
        busyUs,
        knownUs,
        /** CPU µs one of the known processes used in the window (undefined: not running). */
        usedBy: (pid) => knownByPid.get(pid),
        othersUs,
        othersShare: othersUs / wallUs,
        stealShare: (machine1.stealUs - machine0.stealUs) / wallUs,
        topOthers: others
          .sort((a, b) => b.us - a.us)
          .slice(0, 3)
          .map((o) => ({ ...o, name: describeProcess(o.pid, o.name) })),
      };
    },
  };
}

/** A note when others (or the hypervisor) took more than NOTE_SHARE of one CPU, else undefined. */
export function contentionNote(w) {
  if (!w) return undefined;
  const parts = [];
  if (w.othersShare >= NOTE_SHARE) {
    const names = w.topOthers
      .filter((o) => o.us / w.wallUs >= 0.01)
      .map((o) => `${o.name} ${pct(o.us / w.wallUs)}`)
      .join(', ');
    parts.push(`other processes used ${pct(w.othersShare)} of a CPU${names ? ` (${names})` : ''}`);
  }
  if (w.stealShare >= NOTE_SHARE) parts.push(`hypervisor steal ${pct(w.stealShare)} of a CPU`);
  return parts.length ? parts.join('; ') : undefined;
}

const pct = (x) => `${Math.round(x * 100)}%`;
