// `--fanout [HOLDERS] [--kb N] [--notifications N]`: what one accountNotification costs the
// reference server when many clients hold the account. A base-chain stand-in in this
// process (getAccountInfo: no delegation record; its websocket acknowledges
// accountSubscribe and sends what it is told) is the delegation router's base chain;
// HOLDERS client sockets (default 1,000) each subscribe to one account; then N
// notifications (default 50) of a KB-sized account (default 100 KB of data) are sent one
// at a time, the next once every holder got the last. Prints the server process's CPU time
// (user + system, /proc) per notification: its event loop reading the upstream frame and
// writing it to every holder.
import { once } from 'node:events';
import http from 'node:http';
import WebSocket, { WebSocketServer } from 'ws';
import { processCpuUs } from './proc.mjs';
import { startTarget } from './processes.mjs';

const ACCOUNT = 'SysvarC1ock11111111111111111111111111111111';

/** The base chain: every read answers "no such account", every accountSubscribe is acknowledged. */
async function baseChainStandIn() {
  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    let id = null;
    try {
      id = JSON.parse(body).id ?? null;
    } catch {
      // answered with id null
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', result: { context: { slot: 1 }, value: null }, id }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await once(wss, 'listening');
  const subscribers = [];
  let nextId = 1;
  wss.on('connection', (socket) =>
    socket.on('message', (data) => {
      const call = JSON.parse(String(data));
      const result = call.method === 'accountSubscribe' ? nextId++ : true;
      if (call.method === 'accountSubscribe' && call.params[0] === ACCOUNT)
        subscribers.push({ socket, id: result });
      socket.send(JSON.stringify({ jsonrpc: '2.0', result, id: call.id }));
    }),
  );
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    wsUrl: `ws://127.0.0.1:${wss.address().port}`,
    subscribers,
    /** One accountNotification to every subscriber of ACCOUNT, as a validator writes it (u64 rentEpoch). */
    notify(slot, data) {
      for (const { socket, id } of subscribers) {
        socket.send(
          `{"jsonrpc":"2.0","method":"accountNotification","params":{"result":{"context":{"slot":${slot}},"value":` +
            `{"data":["${data}","base64"],"executable":false,"lamports":18446744073709551615,` +
            `"owner":"11111111111111111111111111111111","rentEpoch":18446744073709551615,"space":${(data.length * 3) / 4}}},` +
            `"subscription":${id}}}`,
        );
      }
    },
    close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.close();
      server.closeAllConnections();
    },
  };
}

/** A client holding ACCOUNT: counts the notifications it receives (without parsing them). */
async function holder(url) {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  await once(ws, 'open');
  const self = { notifications: 0, ws };
  const answered = new Promise((resolve, reject) => {
    ws.on('message', (data) => {
      const text = data.toString('latin1', 0, 64);
      if (text.includes('"accountNotification"')) self.notifications += 1;
      else if (text.includes('"error"')) reject(new Error(`accountSubscribe refused: ${String(data)}`));
      else resolve();
    });
  });
  ws.send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'accountSubscribe',
      params: [ACCOUNT, { encoding: 'base64' }],
    }),
  );
  await answered;
  return self;
}

export async function fanout(args) {
  const holders = Number(args.find((a) => /^\d+$/.test(a)) ?? 1000);
  const kb = args.includes('--kb') ? Number(args[args.indexOf('--kb') + 1]) : 100;
  const n = args.includes('--notifications') ? Number(args[args.indexOf('--notifications') + 1]) : 50;
  const chain = await baseChainStandIn();
  const router = await startTarget('server.mjs', [
    ...['--settings', 'lean', '--delegation', chain.url, '--delegation-ws', chain.wsUrl],
  ]);
  if (router.absent) throw new Error(`reference server absent: ${router.absent}`);
  const clients = [];
  try {
    const url = `ws://127.0.0.1:${router.port}/`;
    for (let i = 0; i < holders; i += 50) {
      clients.push(
        ...(await Promise.all(Array.from({ length: Math.min(50, holders - i) }, () => holder(url)))),
      );
    }
    // base64 of kb KB of data: 4 characters per 3 bytes.
    const data = 'A'.repeat(Math.ceil((kb * 1024) / 3) * 4);
    const received = (k) => clients.every((c) => c.notifications >= k);
    const until = (k) =>
      new Promise((resolve) => {
        const check = () => (received(k) ? resolve() : setTimeout(check, 1));
        check();
      });
    chain.notify(1, data); // warm-up: the first one pays for compiling the path
    await until(1);
    const before = processCpuUs(router.child.pid);
    for (let i = 2; i <= n + 1; i++) {
      chain.notify(i, data);
      await until(i);
    }
    const after = processCpuUs(router.child.pid);
    const user = (after.user - before.user) / n / 1000;
    const system = (after.system - before.system) / n / 1000;
    const line =
      `fanout: one accountNotification of a ${kb} KB account to ${holders} holders (${chain.subscribers.length} ` +
      `upstream subscription${chain.subscribers.length === 1 ? '' : 's'}): ${(user + system).toFixed(1)} ms of the ` +
      `server's CPU per notification, ${user.toFixed(1)} ms user + ${system.toFixed(1)} ms system (kernel: the ` +
      `socket writes) (mean of ${n}; /proc, 10 ms ticks)`;
    console.log(line);
    return 0;
  } finally {
    for (const c of clients) c.ws.terminate();
    await router.stop();
    chain.close();
  }
}
