import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import { createLogger, createNodeListener, createRpc, defineMethod } from '@rollup-router/core';
import { listen, memoryLog, post, type Listening } from '@rollup-router/test-support/http';
import { waitFor } from '@rollup-router/test-support/wait-for';

const ping = defineMethod<[], string>({ name: 'ping', handler: () => 'pong' });
const CALL = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
const UPLOAD = Buffer.alloc(10 * 1024 * 1024, 0x20);

interface UploadOutcome {
  status: number | undefined;
  connection: string | undefined;
  body: string;
  error: string | undefined;
}

/**
 * Uploads 10 MB with node:http, writing as fast as the socket takes it, as an uploader
 * that does not look for an early answer: what it sees is what is under test.
 */
function upload(url: string): Promise<UploadOutcome> {
  return new Promise((resolve) => {
    const outcome: UploadOutcome = { status: undefined, connection: undefined, body: '', error: undefined };
    let ended = false;
    let closed = false;
    // The client stops uploading once the response has come (its request closes, no error):
    // done when the request closed and the response, if any, was read to its end.
    const settle = () => closed && (ended || outcome.status === undefined) && resolve(outcome);
    const req = http.request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': UPLOAD.length } },
      (res) => {
        outcome.status = res.statusCode;
        outcome.connection = res.headers.connection;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (outcome.body += chunk));
        res.on('end', () => {
          ended = true;
          settle();
        });
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      outcome.error = err.code ?? err.message;
    });
    req.on('close', () => {
      closed = true;
      settle();
    });
    let offset = 0;
    const write = (): void => {
      while (offset < UPLOAD.length) {
        const more = req.write(UPLOAD.subarray(offset, (offset += 64 * 1024)));
        if (!more) {
          req.once('drain', write);
          return;
        }
      }
      req.end();
    };
    write();
  });
}

describe('a body over the limit', () => {
  let server: Listening;
  before(async () => {
    const rpc = createRpc({
      logger: createLogger({ level: 'silent' }),
      limits: { maxBodyBytes: 1024 },
      methods: [ping],
    });
    server = await listen(createNodeListener(rpc));
  });
  after(() => server.close());

  it('gets its 413 with Connection: close on every one of 40 uploads of 10 MB, none reset (EPIPE/ECONNRESET)', async () => {
    const outcomes: UploadOutcome[] = [];
    // Eight uploaders at once, five uploads each.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 5; i++) outcomes.push(await upload(server.url));
      }),
    );
    expect(outcomes.map((o) => o.error).filter(Boolean)).to.deep.equal([]);
    for (const o of outcomes) {
      expect(o.status).to.equal(413);
      expect(o.connection).to.equal('close');
      expect(JSON.parse(o.body).error.code).to.equal(-32600);
    }
    expect((await post(server.url, CALL)).text).to.equal('{"jsonrpc":"2.0","result":"pong","id":1}');
  });

  it('gets its 413 through fetch (undici) too, on every one of 20 uploads of 10 MB', async () => {
    const statuses: (number | string)[] = [];
    for (let i = 0; i < 20; i++) {
      try {
        const r = await fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: UPLOAD,
        });
        await r.text();
        statuses.push(r.status);
      } catch (err) {
        statuses.push(String((err as { cause?: { code?: string } }).cause?.code ?? err));
      }
    }
    expect(statuses).to.deep.equal(Array.from({ length: 20 }, () => 413));
  });
});

describe('a client that goes away mid-body', () => {
  it('is logged at debug without a stack, never as a server error', async () => {
    const log = memoryLog('debug');
    const rpc = createRpc({ logger: log.log, methods: [ping] });
    const listener = createNodeListener(rpc);
    let arrived = false;
    const server = await listen((req, res) => {
      arrived = true;
      listener(req, res);
    });
    try {
      const socket = net.connect(server.port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":',
      );
      await waitFor(() => arrived, 'the request to reach the server');
      socket.destroy();
      const line = await waitFor(
        () => log.lines.find((l) => l.msg === 'client went away before its body was complete'),
        'the client-gone line',
      );
      expect(line.level).to.equal(20);
      expect(JSON.stringify(line)).to.not.include('stack');
      expect(log.lines.filter((l) => l.level >= 40)).to.deep.equal([]);
    } finally {
      await server.close();
    }
  });
});

describe('a request refused before its body is read, on a connection that closes after it', () => {
  let server: Listening;
  /** Resolves once the server has sent its reply to the request in flight. */
  let replied: () => void = () => undefined;
  before(async () => {
    const rpc = createRpc({ logger: createLogger({ level: 'silent' }), methods: [ping] });
    const listener = createNodeListener(rpc);
    server = await listen((req, res) => {
      res.once('finish', () => replied());
      listener(req, res);
    });
  });
  after(() => server.close());

  /**
   * Sends a PATCH's head and the first part of its body, leaves the reply unread until the
   * server has sent it, then sends the rest of the body and reads: what an uploader that
   * writes its whole request before reading sees when the reply comes early.
   */
  async function lateReader(): Promise<{ reply: string; error: string | undefined }> {
    const body = Buffer.alloc(640 * 1024, 0x20);
    const socket = net.connect(server.port, '127.0.0.1');
    socket.pause();
    let error: string | undefined;
    socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message));
    const sent = new Promise<void>((resolve) => (replied = resolve));
    socket.write(
      `PATCH / HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.subarray(0, 1024));
    await sent;
    await new Promise<void>((resolve) => setImmediate(resolve));
    socket.end(body.subarray(1024));
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.resume();
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    return { reply, error };
  }

  it('still gets its 405: the connection closes in stages, not with a reset (EPIPE)', async () => {
    for (let i = 0; i < 5; i++) {
      const { reply, error } = await lateReader();
      expect(error).to.equal(undefined);
      expect(reply).to.match(/^HTTP\/1\.1 405 /);
      expect(reply).to.include('HTTP method PATCH is not allowed; use POST');
    }
  });
});
