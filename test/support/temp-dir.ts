import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TempDir {
  readonly dir: string;
  /** A path inside the directory. */
  file(name: string): string;
  /** Removes the directory and everything in it. */
  remove(): void;
}

/** A fresh directory under the system's temp dir, for real files (SQLite stores, routes files, configs). */
export function tempDir(prefix = 'rollup-router-test-'): TempDir {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return {
    dir,
    file: (name) => path.join(dir, name),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
