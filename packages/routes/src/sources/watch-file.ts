import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

export interface WatchFileOptions {
  readonly debounceMs: number;
  readonly onError: (err: Error) => void;
}

/**
 * Calls `changed` once things have been quiet for `debounceMs` after the file may have
 * changed. Watches the directory, not the file: editors that save by writing a new file
 * and renaming it over the old one replace the inode a file watch would follow, and
 * Kubernetes swaps a `..data` symlink in the directory. Returns a function that stops.
 */
export function watchFile(file: string, changed: () => void, options: WatchFileOptions): () => void {
  const dir = path.dirname(file);
  const base = path.basename(file);
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher;
  try {
    watcher = watch(dir, { persistent: true }, onEvent);
  } catch (err) {
    // No such directory: loading reports the missing file; there is nothing to follow.
    options.onError(err as Error);
    return () => {};
  }
  watcher.on('error', options.onError);
  return () => {
    if (timer) clearTimeout(timer);
    watcher.close();
  };

  function onEvent(_event: string, name: string | null): void {
    const relevant = name === null || name === base || name.startsWith('..');
    if (!relevant) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      changed();
    }, options.debounceMs);
  }
}
