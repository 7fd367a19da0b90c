import type { ProxySide } from './tcp-proxy.js';

/** One text message seen passing through a proxy, with the number of its connection. */
export interface TappedMessage {
  readonly side: ProxySide;
  readonly connection: number;
  readonly text: string;
  /** The message's JSON (undefined when it is none). */
  readonly json: { readonly method?: unknown; readonly params?: unknown } | undefined;
}

/**
 * Reads the WebSocket messages passing a TCP proxy (tcpProxy's onData): the upgrade's HTTP
 * head is skipped, then each frame is decoded (unmasked when the client masked it). Text
 * frames of one message are joined; control frames are skipped. No permessage-deflate.
 */
export class WsFrameTap {
  readonly messages: TappedMessage[] = [];
  /** Each connection's upgrade request head (the client's HTTP request line and headers). */
  readonly upgrades: string[] = [];
  private readonly streams = new Map<string, { head: boolean; buffer: Buffer; parts: Buffer[] }>();

  /** Pass as tcpProxy's onData. */
  readonly onData = (side: ProxySide, chunk: Buffer, connection: number): void => {
    const key = `${side}:${connection}`;
    let stream = this.streams.get(key);
    if (stream === undefined)
      this.streams.set(key, (stream = { head: true, buffer: Buffer.alloc(0), parts: [] }));
    stream.buffer = Buffer.concat([stream.buffer, chunk]);
    if (stream.head) {
      const end = stream.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      if (side === 'client') this.upgrades.push(stream.buffer.subarray(0, end).toString());
      stream.buffer = stream.buffer.subarray(end + 4);
      stream.head = false;
    }
    for (;;) {
      const frame = readFrame(stream.buffer);
      if (frame === undefined) return;
      stream.buffer = stream.buffer.subarray(frame.length);
      if (frame.opcode >= 8) continue;
      stream.parts.push(frame.payload);
      if (!frame.fin) continue;
      const text = Buffer.concat(stream.parts).toString();
      this.messages.push({ side, connection, text, json: parsed(text) });
      stream.parts = [];
    }
  };

  /** Messages the proxy's client (our router) sent whose JSON has this `method`. */
  sent(method: string): { connection: number; params: unknown }[] {
    return this.messages.flatMap((m) =>
      m.side === 'client' && m.json?.method === method
        ? [{ connection: m.connection, params: m.json.params }]
        : [],
    );
  }
}

function readFrame(b: Buffer): { fin: boolean; opcode: number; payload: Buffer; length: number } | undefined {
  if (b.length < 2) return undefined;
  const fin = (b[0]! & 0x80) !== 0;
  const opcode = b[0]! & 0x0f;
  const masked = (b[1]! & 0x80) !== 0;
  let size = b[1]! & 0x7f;
  let at = 2;
  if (size === 126) {
    if (b.length < 4) return undefined;
    size = b.readUInt16BE(2);
    at = 4;
  } else if (size === 127) {
    if (b.length < 10) return undefined;
    size = Number(b.readBigUInt64BE(2));
    at = 10;
  }
  const mask = masked ? b.subarray(at, at + 4) : undefined;
  if (masked) at += 4;
  if (b.length < at + size) return undefined;
  const payload = Buffer.from(b.subarray(at, at + size));
  if (mask) for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
  return { fin, opcode, payload, length: at + size };
}

function parsed(text: string): TappedMessage['json'] {
  try {
    const json: unknown = JSON.parse(text);
    return json !== null && typeof json === 'object' ? (json as TappedMessage['json']) : undefined;
  } catch {
    return undefined;
  }
}
