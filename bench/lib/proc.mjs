// What /proc says (Linux), for the figures and the notes: CPU time in µs of one process, of
// the machine and of every process at one instant (so that the CPU used between two instants
// can be split by who used it); a process's memory (its peak, its resident memory by kind);
// and the machine the figures were measured on.
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

const TICK_US = 1e6 / 100; // USER_HZ is 100 on every Linux ABI Node runs on

/** A /proc file's text; undefined when there is none (not Linux, or the process ended since). */
function readProc(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

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
  const cpu = readProc('/proc/stat')?.split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
  if (!cpu) return undefined;
  const [user, nice, system, , , , , steal = 0] = cpu;
  return { busyUs: (user + nice + system) * TICK_US, stealUs: steal * TICK_US };
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
  for (const entry of entries.filter((e) => /^\d+$/.test(e))) {
    const stat = readProc(`/proc/${entry}/stat`); // undefined: ended between readdir and read
    if (stat) out.set(Number(entry), parseStat(stat));
  }
  return out;
}

/** "node .bin/tsc" rather than "node": the command and what it runs, for notes. */
export function describeProcess(pid, name) {
  const [, ...args] = readProc(`/proc/${pid}/cmdline`)?.split('\0') ?? [];
  const script = args.find((a) => a && !a.startsWith('-'));
  return script ? `${name} ${script.split('/').slice(-2).join('/')}` : name;
}

/** VmRSS and VmHWM (the peak resident set since the process started) of `pid`, in kB. */
export function readMemory(pid) {
  const text = readProc(`/proc/${pid}/status`);
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return text === undefined ? undefined : { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
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
  const rss = /^Rss:\s+(\d+) kB/m.exec(readProc(`/proc/${pid}/smaps_rollup`) ?? '')?.[1];
  return rss === undefined ? undefined : Number(rss) * 1024;
}

/** What the figures were measured on; they mean little without it. */
export function machineInfo() {
  const fromProc = /^model name\s*:\s*(.+)$/m.exec(readProc('/proc/cpuinfo') ?? '')?.[1]?.trim();
  const cpuModel = fromProc ?? os.cpus()[0]?.model ?? 'unknown';
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
