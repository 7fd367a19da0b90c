import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The heap after a full collection: a count of bytes, compared at two points of a test (never a timing). */
export function heapAfterGc(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
