// Where a process's resident memory is, from /proc/<pid>/smaps: the malloc heap of the main
// thread ([heap]), the malloc arenas of other threads, other anonymous memory (V8's heap and
// code, large mallocs) and mapped files.
import { readFileSync } from 'node:fs';

const ARENA = 64n * 2n ** 20n;

export const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);

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
  const maps = [];
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m)
      maps.push({ start: BigInt(`0x${m[1]}`), end: BigInt(`0x${m[2]}`), perms: m[3], name: m[4], rss: 0 });
    else if (line.startsWith('Rss:')) maps.at(-1).rss = Number(line.split(/\s+/)[1]) * 1024;
  }
  const out = { total: 0, mallocHeap: 0, threadArenas: 0, otherAnonymous: 0, files: 0 };
  maps.forEach((map, i) => {
    out.total += map.rss;
    if (map.name === '[heap]') out.mallocHeap += map.rss;
    else if (map.name.startsWith('/')) out.files += map.rss;
    else if (map.name === '' && isArena(map, maps[i + 1])) out.threadArenas += map.rss;
    else if (map.name === '') out.otherAnonymous += map.rss;
  });
  return out;
}

/** glibc reserves a thread's arena as 64 MiB at a 64 MiB boundary: the part in use, then the rest ---p. */
function isArena(map, next) {
  if (map.start % ARENA !== 0n || !map.perms.startsWith('rw')) return false;
  if (map.end - map.start === ARENA) return true;
  return (
    next?.start === map.end &&
    next.name === '' &&
    next.perms.startsWith('---') &&
    next.end === map.start + ARENA
  );
}
