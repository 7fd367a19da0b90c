// The README's ER flow, as a newcomer runs it: the server started with the variables the README
// names, and each of its two programs (web3.js with MagicBlock's SDK, kit with MagicBlock's kit
// SDK) written to a file as the README shows it and run with tsx in a process of its own, its
// port the only change. Validator A is the base chain; validator B registered itself in A's MDP
// registry on loopback.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { CHAIN_URL, untilRouted, validatorBIdentity } from '@rollup-router/test-support/mdp';
import { freePortPair } from '@rollup-router/test-support/reusable-port';
import { skipUnlessValidatorA } from '@rollup-router/test-support/validator';
import { REPO, startCli, tempDir, type ServerProcess } from './server.harness.js';

const run = promisify(execFile);
const README_URL = 'http://127.0.0.1:8080';

/** The README's block that starts with `// <file>`. */
function program(file: string): string {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  const block = blocks.find((b) => b.startsWith(`// ${file}`));
  if (block === undefined) throw new Error(`README.md has no block for ${file}`);
  return block;
}

describe("the README's ER app, as written, through the reference server started as the README says", function () {
  this.timeout(180_000);
  let server: ServerProcess | undefined;
  let dir: ReturnType<typeof tempDir>;
  let url: string;
  let b: string;
  // Inside the repository, so that the packages resolve from node_modules as in a user's project.
  const apps = path.join(REPO, 'test', '.readme-apps');

  /** Runs the README's program `file` against our server; its stdout. */
  async function runProgram(file: string): Promise<string> {
    const source = program(file)
      .replaceAll(README_URL, url)
      .replaceAll(README_URL.replace('http', 'ws'), url.replace('http', 'ws'));
    writeFileSync(path.join(apps, file), source);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(apps, file)], {
      cwd: REPO,
      timeout: 120_000,
    });
    return stdout;
  }

  before(async function () {
    await skipUnlessValidatorA(this, CHAIN_URL);
    b = await validatorBIdentity();
    rmSync(apps, { recursive: true, force: true });
    mkdirSync(apps, { recursive: true });
    dir = tempDir();
    // web3.js opens the port + 1 for its websocket, as the server serves it by default.
    const port = await freePortPair();
    server = await startCli(
      ['--port', String(port)],
      {
        ROLLUP_ROUTER_CHAIN_URL: CHAIN_URL,
        ROLLUP_ROUTER_ALLOW_INSECURE_ROUTES: 'true',
        ROLLUP_ROUTER_CHAIN_ALLOW_PRIVATE_ADDRESSES: 'true',
      },
      dir.dir,
    );
    url = server.base;
    await untilRouted(url, b);
  });
  after(async () => {
    await server?.kill();
    dir?.remove();
    rmSync(apps, { recursive: true, force: true });
  });

  it('web3.js and ConnectionMagicRouter: finds the ER, funds itself, sends and confirms a transfer', async () => {
    const lines = (await runProgram('er-app.ts')).trim().split('\n');
    expect(lines[0]).to.equal(`delegate to ${b} at http://127.0.0.1:18899`);
    expect(lines[1]).to.match(/^[1-9A-HJ-NP-Za-km-z]{86,88} \{ isDelegated: false \}$/);
  });

  it("kit and the kit SDK's Connection: recognised as a router, funds itself, sends and confirms a transfer", async () => {
    const lines = (await runProgram('er-app-kit.ts')).trim().split('\n');
    expect(lines[0]).to.equal('the SDK sees a Magic Router: true');
    expect(lines[1]).to.match(/^[1-9A-HJ-NP-Za-km-z]{86,88} 1000000n?$/);
  });
});
