// Where a process's resident memory is, from /proc/<pid>/smaps: the malloc heap of the main
// thread ([heap]), the malloc arenas of other threads (glibc reserves each as a 64 MiB-aligned
// anonymous region), other anonymous memory (V8's heap and code), and mapped files.
import { readFileSync } from 'node:fs';

const ARENA = 64 * 2 ** 20;

/**
 * `{ total, mallocHeap, threadArenas, otherAnonymous, files }` in bytes; undefined without /proc.
 * Read from the runner a moment after the target's own reading, it is the settled figure:
 * V8 unmaps the pages a GC freed on a background thread, after process.memoryUsage() saw them.
 */
export function residentBreakdown(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return undefined;
  }
  const out = { total: 0, mallocHeap: 0, threadArenas: 0, otherAnonymous: 0, files: 0 };
  let kind;
  let arenaEnd = 0n;
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      const [start, end, name] = [BigInt(`0x${m[1]}`), BigInt(`0x${m[2]}`), m[3]];
      // An arena's start is 64 MiB-aligned; its used part and its reserved rest follow it.
      if (name === '' && start % BigInt(ARENA) === 0n && start >= arenaEnd) arenaEnd = start + BigInt(ARENA);
      if (name === '[heap]') kind = 'mallocHeap';
      else if (name.startsWith('/')) kind = 'files';
      else if (name === '' && end <= arenaEnd) kind = 'threadArenas';
      else kind = name === '' ? 'otherAnonymous' : undefined;
    } else if (line.startsWith('Rss:')) {
      const bytes = Number(line.split(/\s+/)[1]) * 1024;
      out.total += bytes;
      if (kind) out[kind] += bytes;
    }
  }
  return out;
}
