import { parse as parseLossless, isLosslessNumber } from 'lossless-json';

/**
 * Request ids are echoed byte for byte. JSON.parse turns 9007199254740993 into
 * 9007199254740992, so for the rare body whose id is a number beyond 2^53 the id's
 * source text is recovered with lossless-json and handed to the dispatcher beside the
 * body, keyed by the call object (which is left as parsed). Every other body pays for
 * one JSON.parse only.
 */
export type ExactIds = ReadonlyMap<object, string>;

const isUnsafeNumberId = (v: unknown): boolean =>
  v !== null &&
  typeof v === 'object' &&
  typeof (v as { id?: unknown }).id === 'number' &&
  !Number.isSafeInteger((v as { id: number }).id);

export type ParsedBody = { ok: true; value: unknown; exactIds: ExactIds | undefined } | { ok: false };

export function parseBody(text: string): ParsedBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false };
  }
  const calls = Array.isArray(value) ? value : [value];
  const exactIds = calls.some(isUnsafeNumberId) ? sourceIds(text, calls) : undefined;
  return { ok: true, value, exactIds };
}

function sourceIds(text: string, calls: unknown[]): ExactIds | undefined {
  let exact: unknown;
  try {
    exact = parseLossless(text);
  } catch {
    // JSON.parse took it but lossless-json would not (a repeated member, nesting past its
    // stack): the id stays unrecovered and the call is refused as -32600, never a 500.
    return undefined;
  }
  const exactCalls = Array.isArray(exact) ? exact : [exact];
  const ids = new Map<object, string>();
  calls.forEach((call, i) => {
    if (!isUnsafeNumberId(call)) return;
    const id = (exactCalls[i] as { id?: unknown } | null | undefined)?.id;
    if (isLosslessNumber(id) && PLAIN_INTEGER.test(id.value)) ids.set(call as object, id.value);
  });
  return ids;
}

// A number id beyond 2^53 written otherwise (1e300, 1.5e20) cannot be echoed exactly.
const PLAIN_INTEGER = /^-?(0|[1-9][0-9]*)$/;

/** The id's JSON text, as the client wrote it when JSON numbers could not hold it. */
export function idJson(call: unknown, id: unknown, exactIds: ExactIds | undefined): string {
  const source =
    exactIds !== undefined && call !== null && typeof call === 'object' ? exactIds.get(call) : undefined;
  return source ?? JSON.stringify(id ?? null);
}

/** True for a number id that could not be recovered as written. */
export function hasUnechoableId(call: object, exactIds: ExactIds | undefined): boolean {
  return exactIds?.has(call) !== true && isUnsafeNumberId(call);
}
