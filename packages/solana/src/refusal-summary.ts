/**
 * Refused records or nodes counted by reason, as one line of a message ("2: reason; 1: other"):
 * the chain registry's read warning and getIdentity's -32073 say them alike.
 */
export function refusalSummary(refused: Readonly<Record<string, number>>): string {
  return Object.entries(refused)
    .map(([reason, n]) => `${n}: ${reason}`)
    .join('; ');
}
