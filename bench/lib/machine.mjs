// What the figures were measured on; they mean little without it.
import { readFileSync } from 'node:fs';
import os from 'node:os';

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
