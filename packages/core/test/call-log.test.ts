import { expect } from 'chai';
import {
  createLogger,
  createNodeListener,
  createRpc,
  defineMethod,
  RpcError,
  type RpcOptions,
} from '@rollup-router/core';
import { listen, memoryLog, post, type Listening, type LogLine } from '@rollup-router/test-support/http';

const ping = defineMethod<[], string>({ name: 'ping', handler: () => 'pong' });
const refuses = defineMethod<[], string>({
  name: 'refuses',
  handler: () => {
    throw new RpcError(-32000, 'refused');
  },
});
const buggy = defineMethod<[], string>({
  name: 'buggy',
  handler: () => {
    throw new Error('a bug');
  },
});

/** One call with its own request id, so the test can tell which calls got a line. */
const send = (server: Listening, reqId: string, method: string) =>
  post(server.url, `{"jsonrpc":"2.0","id":1,"method":"${method}"}`, {
    'content-type': 'application/json',
    'x-request-id': reqId,
  });

const callLines = (lines: readonly LogLine[]) => lines.filter((l) => l.msg === 'call');

/** A service with `callLog` behind a real listener, logging at `level` into memory. */
async function serve(
  callLog: RpcOptions['callLog'],
  level: 'info' | 'debug' = 'info',
): Promise<{ server: Listening; lines: LogLine[] }> {
  const log = memoryLog();
  const rpc = createRpc({
    logger: createLogger({ level, destination: log.stream }),
    methods: [ping, refuses, buggy],
    ...(callLog === undefined ? {} : { callLog }),
  });
  return { server: await listen(createNodeListener(rpc)), lines: log.lines };
}

describe('callLog: which calls get a log line', () => {
  const servers: Listening[] = [];
  after(() => Promise.all(servers.map((s) => s.close())));
  const started = async (callLog: RpcOptions['callLog'], level?: 'info' | 'debug') => {
    const s = await serve(callLog, level);
    servers.push(s.server);
    return s;
  };

  it('sampleRate 0.1: the first success and every 10th after it carry sampleRate 0.1; every failure is written, unsampled', async () => {
    const { server, lines } = await started({ sampleRate: 0.1 });
    const failures: string[] = [];
    for (let i = 1; i <= 25; i++) {
      await send(server, `ok-${i}`, 'ping');
      if (i % 5 === 0) {
        // Three kinds of failure: the handler's own error, no such method, a handler's bug.
        const method = ['refuses', 'nope', 'buggy'][failures.length % 3]!;
        failures.push(`fail-${i}`);
        await send(server, `fail-${i}`, method);
      }
    }
    const written = callLines(lines);
    expect(written.map((l) => l.reqId)).to.deep.equal([
      'ok-1',
      'fail-5',
      'fail-10',
      'ok-11',
      'fail-15',
      'fail-20',
      'ok-21',
      'fail-25',
    ]);
    for (const l of written.filter((x) => x.code === 0)) {
      expect(l).to.include({ level: 30, method: 'ping', sampleRate: 0.1 });
    }
    const failed = written.filter((x) => x.code !== 0);
    expect(failed.map((l) => l.code)).to.deep.equal([-32000, -32601, -32603, -32000, -32601]);
    for (const l of failed) {
      expect(l.level).to.equal(30);
      expect(l).to.not.have.property('sampleRate');
    }
  });

  it('a rate that is not 1/N keeps 1 in round(1/rate) and says so: 0.3 writes every 3rd success with sampleRate 1/3', async () => {
    const { server, lines } = await started({ sampleRate: 0.3 });
    for (let i = 1; i <= 7; i++) await send(server, `ok-${i}`, 'ping');
    const written = callLines(lines);
    expect(written.map((l) => l.reqId)).to.deep.equal(['ok-1', 'ok-4', 'ok-7']);
    expect(written[0]!.sampleRate).to.equal(1 / 3);
  });

  it('level debug under a logger at info: no call line at all, failures included; other lines still written', async () => {
    const { server, lines } = await started({ level: 'debug' });
    await send(server, 'ok-1', 'ping');
    await send(server, 'fail-1', 'refuses');
    await send(server, 'bug-1', 'buggy');
    expect(callLines(lines)).to.deep.equal([]);
    const bug = lines.find((l) => l.msg === 'handler failed');
    expect(bug).to.include({ level: 50, reqId: 'bug-1', method: 'buggy' });
  });

  it('level debug under a logger at debug: every call line, written at debug', async () => {
    const { server, lines } = await started({ level: 'debug' }, 'debug');
    await send(server, 'ok-1', 'ping');
    await send(server, 'fail-1', 'refuses');
    expect(callLines(lines).map((l) => [l.reqId, l.level, l.code])).to.deep.equal([
      ['ok-1', 20, 0],
      ['fail-1', 20, -32000],
    ]);
  });

  it("the default, stated or not, writes every call's line unchanged: info, reqId, method, ms, code, no sampleRate", async () => {
    for (const callLog of [undefined, { level: 'info', sampleRate: 1 } as const, { sampleRate: 0.7 }]) {
      const { server, lines } = await started(callLog);
      for (let i = 1; i <= 3; i++) await send(server, `ok-${i}`, 'ping');
      await send(server, 'fail-1', 'refuses');
      const written = callLines(lines);
      expect(
        written.map((l) => l.reqId),
        JSON.stringify(callLog),
      ).to.deep.equal(['ok-1', 'ok-2', 'ok-3', 'fail-1']);
      for (const l of written) {
        expect(Object.keys(l)).to.deep.equal([
          'level',
          'time',
          'pid',
          'reqId',
          'method',
          'ms',
          'code',
          'msg',
        ]);
        expect(l.level).to.equal(30);
      }
    }
  });

  it('a bad callLog is refused at createRpc, naming the path and rule', () => {
    const attempt = (callLog: unknown) => () =>
      createRpc({ logger: createLogger({ level: 'silent' }), callLog } as RpcOptions);
    expect(attempt({ sampleRate: 0 })).to.throw('/callLog/sampleRate must be > 0 (exclusiveMinimum)');
    expect(attempt({ sampleRate: 2 })).to.throw('/callLog/sampleRate must be <= 1 (maximum)');
    expect(attempt({ level: 'silent' })).to.throw(
      '/callLog/level must be one of: "fatal", "error", "warn", "info", "debug", "trace" (enum)',
    );
    expect(attempt({ every: 10 })).to.throw('/callLog/every is not a known member');
  });
});
