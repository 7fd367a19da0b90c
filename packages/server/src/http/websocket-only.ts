import type { RequestListener } from 'node:http';
import { ErrorCode, RpcError } from '@rollup-router/core';

/**
 * The second listener's answer to plain HTTP: 426 Upgrade Required with a JSON-RPC error
 * naming the server's own URL. That listener is where @solana/web3.js looks for the
 * socket of http://host:PORT (PORT + 1), not a second copy of the server: answering
 * /health or calls there would let a health check reach whichever instance holds that port.
 */
export function websocketOnly(httpUrl: () => string): RequestListener {
  return (req, res) => {
    const data = `this port serves JSON-RPC over WebSocket only; send HTTP requests to ${httpUrl()}`;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      error: RpcError.of(ErrorCode.INVALID_REQUEST, data).toJSON(),
      id: null,
    });
    res.writeHead(426, {
      upgrade: 'websocket',
      connection: 'Upgrade',
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
