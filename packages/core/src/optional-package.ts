import { createRequire } from 'node:module';

/**
 * A package that is an optional peer, needed by a setting that was not given, or a
 * function that was not called. Its message says what asked for it and how to install it.
 */
export class MissingPackageError extends Error {
  constructor(
    readonly packageName: string,
    readonly neededBy: string,
    options?: ErrorOptions,
  ) {
    super(`${neededBy} but ${packageName} is not installed: npm install ${packageName}`, options);
    this.name = 'MissingPackageError';
  }
}

/**
 * Loads `name`, an optional peer of the package whose module is `from` (its
 * `import.meta.url`, so the peer resolves from there, as a static import would), the
 * first time a setting needs it. Synchronous, so the constructors and factories that
 * need one stay synchronous: the optional peers are CommonJS, and Node's require loads
 * ESM too on the Node versions the packages support. `neededBy` says what asked, as a
 * clause: "core option /rateLimit is set".
 */
export function loadOptionalPackage<T>(from: string, name: string, neededBy: string): T {
  try {
    return createRequire(from)(name) as T;
  } catch (err) {
    if (isNotFound(err, name)) throw new MissingPackageError(name, neededBy, { cause: err });
    throw err;
  }
}

/** Whether `err` says `name` itself cannot be found (not one of its own imports). */
function isNotFound(err: unknown, name: string): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    err instanceof Error &&
    (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') &&
    err.message.includes(`'${name}'`)
  );
}
