/**
 * What became of one request to one upstream, in the words every plugin reports it with
 * (onUpstreamCall), so metrics and readiness read one vocabulary: `ok`; `rpc_error`, the
 * upstream answered with a JSON-RPC error of its own; `timeout`; `unreachable`;
 * `bad_response`, an answer that is not a JSON-RPC reply (or not the method's); `aborted`,
 * every caller went away first.
 */
export type UpstreamCallOutcome = 'ok' | 'rpc_error' | 'timeout' | 'unreachable' | 'bad_response' | 'aborted';

/** A plugin's onUpstreamCall hook: the upstream's label, what became of the request, and how long it took. */
export type UpstreamCallObserver = (upstream: string, outcome: UpstreamCallOutcome, ms: number) => void;
