// The checks a case's answers must pass: each returns a reason when the answer is not what
// the row claims to measure, undefined when it is.
const parse = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const success = (msg) =>
  msg && typeof msg === 'object' && 'result' in msg && (msg.error === undefined || msg.error === null);

export const expectResult = (predicate, what) => (text) => {
  const msg = parse(text);
  if (!success(msg)) return `not a JSON-RPC success: ${text.slice(0, 160)}`;
  return predicate(msg.result) ? undefined : `unexpected result (${what}): ${text.slice(0, 160)}`;
};

/** The answer to getRoutes against the bench's ten nodes. */
export const tenRoutes = expectResult((r) => Array.isArray(r) && r.length === 10, '10 routes');

export const expectStatuses = (n, { allKnown }) =>
  expectResult(
    (r) => Array.isArray(r?.value) && r.value.length === n && (!allKnown || r.value.every((s) => s !== null)),
    `${n} statuses${allKnown ? ', all known' : ''}`,
  );

export const expectBatch = (n) => (text) => {
  const msg = parse(text);
  if (!Array.isArray(msg) || msg.length !== n) return `not a batch of ${n}: ${text.slice(0, 160)}`;
  return msg.every(success) ? undefined : `a call of the batch failed: ${text.slice(0, 160)}`;
};
