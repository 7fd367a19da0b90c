// Memory of a process from /proc/<pid>/status (Linux): VmHWM is the peak resident set
// since the process started; VmRSS polled during a run gives the peak of that run for
// processes we did not start (the peers).
import { readFileSync } from 'node:fs';

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
