/**
 * The router's cause of an error as a client reads it off the wire: a code clients do not
 * know goes as -32603 with the cause in `data.code` (docs/error-codes.md); any other code is
 * its own cause.
 */
export function causeOf(error: { code: number; data?: unknown } | undefined): number | undefined {
  if (error === undefined) return undefined;
  const data = error.data as { code?: unknown } | undefined;
  return error.code === -32603 && typeof data?.code === 'number' ? data.code : error.code;
}
