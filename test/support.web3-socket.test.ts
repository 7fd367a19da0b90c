// Tests leave no web3.js Connection retrying a server they stopped: closeWeb3Socket closes its
// WebSocket with 1000 (rpc-websockets does not reconnect after it) before it resolves, where
// web3.js alone would still hold it open for 500 ms, and a server stopped in that time would
// leave it reconnecting and logging "ws error" once a second for the rest of the run.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Connection } from '@solana/web3.js';
import { WebSocket, WebSocketServer } from 'ws';
import { waitFor } from '@rollup-router/test-support/wait-for';
import { closeWeb3Socket } from '@rollup-router/test-support/web3-socket';

describe('test support: closeWeb3Socket', () => {
  let server: WebSocketServer;
  const sockets: WebSocket[] = [];
  const closeCodes: number[] = [];
  const subscribed: string[] = [];

  before(async () => {
    // A node's websocket as far as slotSubscribe goes: every call answered, subscriptions numbered.
    server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(server, 'listening');
    server.on('connection', (socket) => {
      sockets.push(socket);
      socket.on('close', (code) => closeCodes.push(code));
      socket.on('message', (data) => {
        const call = JSON.parse(String(data)) as { id: number; method: string };
        subscribed.push(call.method);
        const result = call.method === 'slotSubscribe' ? 7 : true;
        socket.send(JSON.stringify({ jsonrpc: '2.0', result, id: call.id }));
      });
    });
  });
  after(() => server.close());

  it('resolves once the socket is closed with 1000: the server has the close frame, and web3.js will not reconnect', async () => {
    const { port } = server.address() as AddressInfo;
    const connection = new Connection(`http://127.0.0.1:${port}`, { wsEndpoint: `ws://127.0.0.1:${port}` });
    const id = connection.onSlotChange(() => undefined);
    await waitFor(() => subscribed.includes('slotSubscribe'), 'the slot subscription');
    await connection.removeSlotChangeListener(id);
    await closeWeb3Socket(connection);
    // The client saw the server's answer to its close frame: the server has that frame already.
    // (Left to web3.js, the socket would still be open here, for 500 ms more.)
    expect(sockets.map((s) => s.readyState === WebSocket.OPEN)).to.deep.equal([false]);
    await waitFor(() => closeCodes.length > 0, 'the server seeing the socket close');
    expect(closeCodes).to.deep.equal([1000]);
  });
});
