// Clients of signatureSubscribe over JSON-RPC WebSocket, for the subscription figures, the
// notification delay and the soak: one socket, calls answered by id, notifications counted.
import { once } from 'node:events';
import WebSocket from 'ws';
import { socketUrl } from './socket-load.mjs';

/** Tells the upstream stand-in that `signatures` are unknown (`/pending`) or finalized (`/learn`). */
export async function tellStandIn(helperUrl, list, signatures) {
  const res = await fetch(`${helperUrl}/${list}`, { method: 'POST', body: JSON.stringify(signatures) });
  if (!res.ok) throw new Error(`stand-in /${list}: HTTP ${res.status}`);
  await res.text();
}

/** A socket to `url` (ws://, or an http:// server upgrading at its root); resolves once open. */
export async function openSubscriber(url) {
  const ws = new WebSocket(url.startsWith('ws') ? url : socketUrl(url, '/'), { perMessageDeflate: false });
  await once(ws, 'open');
  const waiting = new Map();
  let nextId = 1;
  const self = { notifications: 0, onNotification: undefined };
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data));
    if (msg.method === 'signatureNotification') {
      self.notifications += 1;
      self.onNotification?.(msg.params.subscription, msg.params.result);
    } else waiting.get(msg.id)?.(msg);
  });
  ws.on('close', () => {
    for (const resolve of waiting.values()) resolve({ error: { message: 'socket closed' } });
  });
  const rpc = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      waiting.set(id, (msg) => (waiting.delete(id), resolve(msg)));
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  /** Subscribes to each signature; resolves with the subscription ids, throws on a refusal. */
  self.subscribe = async (signatures, config) => {
    const params = (s) => (config ? [s, config] : [s]);
    const answers = await Promise.all(signatures.map((s) => rpc('signatureSubscribe', params(s))));
    const refused = answers.find((a) => a.error);
    if (refused) throw new Error(`signatureSubscribe refused: ${JSON.stringify(refused.error)}`);
    return answers.map((a) => a.result);
  };
  self.unsubscribe = (ids) => Promise.all(ids.map((id) => rpc('signatureUnsubscribe', [id])));
  self.close = async () => {
    if (ws.readyState === WebSocket.CLOSED) return;
    ws.close();
    await once(ws, 'close');
  };
  return self;
}

/** Resolves true once `check()` holds, false when `ms` passed first. */
export async function waitUntil(check, ms) {
  for (const give = Date.now() + ms; !check(); await new Promise((r) => setTimeout(r, 50)))
    if (Date.now() > give) return false;
  return true;
}
