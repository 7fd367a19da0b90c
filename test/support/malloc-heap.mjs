// Shared by the bench's targets (plain Node) and the packages' tests (tsx), like redis-launch.mjs.
import { readFileSync } from 'node:fs';

/**
 * Resident bytes of this process's malloc heap (`[heap]` in /proc/self/smaps): native memory
 * such as SQLite's page cache, apart from V8's heap. The soak's rise hid there for sessions
 * while the JS heap stayed flat. Undefined without /proc.
 */
export function mallocHeapBytes() {
  try {
    let inHeap = false;
    let kib = 0;
    for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
      if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inHeap = line.endsWith('[heap]');
      else if (inHeap && line.startsWith('Rss:')) kib += Number(line.split(/\s+/)[1]);
    }
    return kib * 1024;
  } catch {
    return undefined;
  }
}
