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
import { waitUntil } from './subscribers.mjs';

const ACCOUNT = 'SysvarC1ock11111111111111111111111111111111';
const answer = (result, id) => JSON.stringify({ jsonrpc: '2.0', result, id: id ?? null });

/** The base chain: every read answers "no such account", every accountSubscribe is acknowledged. */
async function baseChainStandIn() {
  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const id = /"id":\s*(\d+)/.exec(body)?.[1];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(answer({ context: { slot: 1 }, value: null }, id && Number(id)));
  });
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await Promise.all([once(server.listen(0, '127.0.0.1'), 'listening'), once(wss, 'listening')]);
  const subscribers = [];
  let nextId = 1;
  wss.on('connection', (socket) =>
    socket.on('message', (data) => {
      const call = JSON.parse(String(data));
      const result = call.method === 'accountSubscribe' ? nextId++ : true;
      if (result !== true && call.params[0] === ACCOUNT) subscribers.push({ socket, id: result });
      socket.send(answer(result, call.id));
    }),
  );
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    wsUrl: `ws://127.0.0.1:${wss.address().port}`,
    subscribers,
    /** One accountNotification to every subscriber of ACCOUNT, as a validator writes it (u64 rentEpoch). */
    notify(slot, data) {
      const value =
        `{"data":["${data}","base64"],"executable":false,"lamports":18446744073709551615,` +
        `"owner":"11111111111111111111111111111111","rentEpoch":18446744073709551615,"space":${(data.length * 3) / 4}}`;
      for (const { socket, id } of subscribers)
        socket.send(
          `{"jsonrpc":"2.0","method":"accountNotification","params":{"result":{"context":{"slot":${slot}},"value":${value}},"subscription":${id}}}`,
        );
    },
    close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      server.close();
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
  const params = [ACCOUNT, { encoding: 'base64' }];
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'accountSubscribe', params }));
  await answered;
  return self;
}

const option = (args, name, fallback) =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;

export async function fanout(args) {
  const holders = Number(args.find((a) => /^\d+$/.test(a)) ?? 1000);
  const [kb, n] = [option(args, '--kb', 100), option(args, '--notifications', 50)];
  const chain = await baseChainStandIn();
  const delegation = ['--delegation', chain.url, '--delegation-ws', chain.wsUrl];
  const router = await startTarget('server.mjs', ['--settings', 'lean', ...delegation]);
  if (router.absent) throw new Error(`reference server absent: ${router.absent}`);
  const clients = [];
  try {
    const url = `ws://127.0.0.1:${router.port}/`;
    for (let i = 0; i < holders; i += 50)
      clients.push(
        ...(await Promise.all(Array.from({ length: Math.min(50, holders - i) }, () => holder(url)))),
      );
    const data = 'A'.repeat(Math.ceil((kb * 1024) / 3) * 4); // base64 of kb KB: 4 characters per 3 bytes
    const delivered = (k) => waitUntil(() => clients.every((c) => c.notifications >= k), 60_000);
    chain.notify(1, data); // warm-up: the first one pays for compiling the path
    await delivered(1);
    const before = processCpuUs(router.child.pid);
    for (let i = 2; i <= n + 1; i++) {
      chain.notify(i, data);
      await delivered(i);
    }
    const after = processCpuUs(router.child.pid);
    const [user, system] = ['user', 'system'].map((k) => (after[k] - before[k]) / n / 1000);
    const upstream = `${chain.subscribers.length} upstream subscription${chain.subscribers.length === 1 ? '' : 's'}`;
    console.log(
      `fanout: one accountNotification of a ${kb} KB account to ${holders} holders (${upstream}): ` +
        `${(user + system).toFixed(1)} ms of the server's CPU per notification, ${user.toFixed(1)} ms user + ` +
        `${system.toFixed(1)} ms system (kernel: the socket writes) (mean of ${n}; /proc, 10 ms ticks)`,
    );
    return 0;
  } finally {
    for (const c of clients) c.ws.terminate();
    await router.stop();
    chain.close();
  }
}
