// CPU time from /proc (Linux), in microseconds: of one process (utime + stime of all its
// threads), of the whole machine (busy, steal), and of every process at one instant, so
// that the CPU used between two instants can be split by who used it.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_US = 1e6 / 100; // USER_HZ is 100 on every Linux ABI Node runs on

// The command name (field 2) is in parentheses and may contain spaces: split after it.
function parseStat(text) {
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  // fields[0] is field 3 (state): utime and stime are fields 14 and 15.
  return {
    name: text.slice(text.indexOf('(') + 1, close),
    cpuUs: (Number(fields[11]) + Number(fields[12])) * TICK_US,
  };
}

/**
 * The machine's CPU time in µs: `busyUs` = user + nice + system (what processes ran;
 * interrupt time is left out, it is mostly the loopback traffic of the load itself),
 * `stealUs` = time the hypervisor gave our vCPUs to someone else.
 */
export function machineCpuUs() {
  try {
    const [user, nice, system, , , , , steal = 0] = readFileSync('/proc/stat', 'utf8')
      .split('\n', 1)[0]
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return { busyUs: (user + nice + system) * TICK_US, stealUs: steal * TICK_US };
  } catch {
    return undefined;
  }
}

/** Every process's CPU time now: Map pid -> { name, cpuUs }. */
export function allProcessesCpuUs() {
  const out = new Map();
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return out; // not Linux
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      out.set(Number(entry), parseStat(readFileSync(`/proc/${entry}/stat`, 'utf8')));
    } catch {
      // ended between readdir and read
    }
  }
  return out;
}

/** "node .bin/tsc" rather than "node": the command and what it runs, for notes. */
export function describeProcess(pid, name) {
  try {
    const [, ...args] = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const script = args.find((a) => a && !a.startsWith('-'));
    return script ? `${name} ${script.split('/').slice(-2).join('/')}` : name;
  } catch {
    return name; // ended since
  }
}
