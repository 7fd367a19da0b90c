// examples/embed-auth-guard-client.ts runs as a user would run it: an Express app whose
// auth middleware's user reaches the handlers, a guard refusing anonymous calls, and the
// typed client calling it over HTTP and WebSocket; it exits 0 after printing what it saw.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { REPO } from './server.harness.js';

describe('examples/embed-auth-guard-client.ts', function () {
  this.timeout(60_000);

  it('serves the signed-in user, refuses the anonymous caller per call, over both transports', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/embed-auth-guard-client.ts'], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(err).to.equal('');
    expect(code).to.equal(0);
    const lines = out.trim().split('\n');
    expect(lines.map((l) => l.replace(/127\.0\.0\.1:\d+/, 'HOST'))).to.deep.equal([
      'http://HOST/rpc: 1 node(s); 2 + 3 = 5 by alice; batch ok: true',
      'http://HOST/rpc: anonymous mySum refused: -32010 Sign in first',
      'ws://HOST/rpc/: 1 node(s); 2 + 3 = 5 by alice; batch ok: true',
      'ws://HOST/rpc/: anonymous mySum refused: -32010 Sign in first',
      'stopped',
    ]);
  });
});
