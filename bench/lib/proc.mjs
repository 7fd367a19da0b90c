// What /proc says (Linux), for the figures and the notes: CPU time in µs of one process, of
// the machine and of every process at one instant (so that the CPU used between two instants
// can be split by who used it); a process's memory (its peak, its resident memory by kind);
// and the machine the figures were measured on.
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

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

/** One process's user and system CPU time in µs. */
export function processCpuUs(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const [user, system] = text
    .slice(text.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 13)
    .map(Number);
  return { user: user * TICK_US, system: system * TICK_US };
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

/** VmRSS and VmHWM (the peak resident set since the process started) of `pid`, in kB. */
export function readMemory(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
    return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

/** Polls VmRSS every `intervalMs`; `stop()` gives the highest seen, in kB. */
export function sampleRss(pid, intervalMs = 100) {
  let peakKb = readMemory(pid)?.rssKb ?? NaN;
  const timer = setInterval(() => {
    const m = readMemory(pid);
    if (m && Number.isFinite(m.rssKb) && !(m.rssKb <= peakKb)) peakKb = m.rssKb;
  }, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      return peakKb;
    },
  };
}

export const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);

/**
 * A process's resident memory in bytes (/proc/<pid>/smaps_rollup), undefined without /proc.
 * Read a moment after the target's own reading, it is the settled figure: V8 unmaps the
 * pages a GC freed on a background thread, after process.memoryUsage() saw them.
 */
export function residentBytes(pid) {
  try {
    const rss = /^Rss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1];
    return rss === undefined ? undefined : Number(rss) * 1024;
  } catch {
    return undefined;
  }
}

/** What the figures were measured on; they mean little without it. */
export function machineInfo() {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  try {
    cpuModel =
      /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpuModel;
  } catch {
    // not Linux: os.cpus() it is
  }
  return {
    nproc: os.availableParallelism(),
    cpuModel,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
    loadAvgAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

/** A file-name-safe name of the machine class, e.g. `2cpu-amd-epyc-23g`. */
export const machineSlug = (m) =>
  `${m.nproc}cpu-${m.cpuModel
    .toLowerCase()
    .replace(/\(r\)|\(tm\)|cpu|processor|@.*$/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}-${Math.round(m.memoryGiB)}g`;
