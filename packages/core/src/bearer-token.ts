/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750), or undefined when the
 * header is absent, of another scheme, or carries more than one token. The scheme is
 * matched in any case, and any whitespace may separate it from the token.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}
