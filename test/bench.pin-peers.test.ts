// The peers (validator A, the Rust router) run outside the bench; for their rows they are pinned
// to the CPU our servers are measured on, every thread, and given their CPUs back afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { once } from 'node:events';
import { expect } from 'chai';

interface Pinning {
  cpusOf(pid: number): string | undefined;
  pinWhile(pids: number[], list: string): () => void;
}

const load = (): Promise<Pinning> =>
  import(new URL('../bench/lib/processes.mjs', import.meta.url).href) as Promise<Pinning>;

describe('bench: a peer is pinned for its rows', () => {
  let peer: ChildProcess;
  let pinning: Pinning;

  before(async () => {
    pinning = await load();
    // A Node process stands in for a peer: several threads, as the validator and the router have.
    peer = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000); console.log("up")'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await once(peer.stdout!, 'data');
  });

  after(() => peer.kill());

  const threadsOn = (pid: number) =>
    readdirSync(`/proc/${pid}/task`).map((tid) => pinning.cpusOf(Number(tid)) ?? '');

  it('every thread runs on the given CPU while pinned, and on its own CPUs again after', function () {
    const pid = peer.pid!;
    const was = pinning.cpusOf(pid);
    if (!was || !/[-,]/.test(was)) this.skip(); // one CPU: nothing to pin to
    const last = was!.split(/[-,]/).pop()!;
    expect(readdirSync(`/proc/${pid}/task`).length).to.be.above(1);
    const unpin = pinning.pinWhile([pid], last);
    try {
      for (const cpus of threadsOn(pid)) expect(cpus).to.equal(last);
    } finally {
      unpin();
    }
    for (const cpus of threadsOn(pid)) expect(cpus).to.equal(was);
  });

  it('a peer gone before its round, or during it, is left alone: the round goes on', async () => {
    const gone = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const was = pinning.cpusOf(gone.pid!);
    if (!was || !/[-,]/.test(was)) return; // one CPU: nothing was pinned
    const unpin = pinning.pinWhile([gone.pid!, 2 ** 22 + 1], was.split(/[-,]/).pop()!);
    gone.kill('SIGKILL');
    await once(gone, 'exit');
    expect(unpin).to.not.throw();
  });
});
