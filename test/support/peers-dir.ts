import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The repository's root directory. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The checkout that owns the repository: in a git worktree `.git` is a file naming
 * `<main checkout>/.git/worktrees/<name>`, and the shared folder sits beside the main one.
 */
function mainCheckout(root: string): string {
  try {
    const gitdir = /^gitdir: (.+)$/m.exec(readFileSync(path.join(root, '.git'), 'utf8'))?.[1];
    return gitdir === undefined ? root : path.resolve(root, gitdir.trim(), '../../..');
  } catch {
    return root; // `.git` is a directory (a plain clone) or absent (an unpacked tarball)
  }
}

/**
 * The real MagicBlock peers' folder (scripts, captures): PEERS_DIR when set, else
 * `../shared/peers` from the repository root (from the main checkout's, in a worktree).
 */
export const PEERS_DIR = process.env.PEERS_DIR ?? path.resolve(mainCheckout(REPO_ROOT), '../shared/peers');
