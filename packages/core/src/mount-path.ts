/**
 * A mount path as a prefix of the paths below it: without trailing slashes, so that `/rpc/`
 * mounts what `/rpc` does and the root (`/`, or none) is the empty prefix.
 */
export function mountPrefix(path: string | undefined): string {
  return (path ?? '').replace(/\/+$/, '');
}
