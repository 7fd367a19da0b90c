// Clients of signatureSubscribe over JSON-RPC WebSocket, for the subscription
// measurements and the soak: one socket, calls answered by id, notifications counted.
import bs58 from 'bs58';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import WebSocket from 'ws';
import { socketUrl } from './socket-load.mjs';

/** `n` random signatures nobody knows (until the stand-in is told to learn them). */
export const unknownSignatures = (n) => Array.from({ length: n }, () => bs58.encode(randomBytes(64)));

/** Tells the upstream stand-in that `signatures` are unknown (`/pending`) or finalized (`/learn`). */
export async function tellStandIn(helperUrl, list, signatures) {
  const res = await fetch(`${helperUrl}/${list}`, { method: 'POST', body: JSON.stringify(signatures) });
  if (!res.ok) throw new Error(`stand-in /${list}: HTTP ${res.status}`);
  await res.text();
}

/** A socket to the server at `httpUrl`; resolves once open. */
export async function openSubscriber(httpUrl) {
  const ws = new WebSocket(socketUrl(httpUrl, '/'), { perMessageDeflate: false });
  await once(ws, 'open');
  const waiting = new Map();
  let nextId = 1;
  const self = { notifications: 0, onNotification: undefined };
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data));
    if (msg.method === 'signatureNotification') {
      self.notifications += 1;
      self.onNotification?.(msg.params.subscription);
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
  self.subscribe = async (signatures) => {
    const answers = await Promise.all(signatures.map((s) => rpc('signatureSubscribe', [s])));
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
