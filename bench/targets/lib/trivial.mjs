// The one trivial method every framework baseline serves, and the exact bytes our
// core answers it with (the bare node:http ceiling returns these same bytes).
export const TRIVIAL_METHOD = 'ping';
export const TRIVIAL_RESULT = 'pong';
export const TRIVIAL_REQUEST = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
export const TRIVIAL_RESPONSE = '{"jsonrpc":"2.0","result":"pong","id":1}';
