// The diagnostic rows around node:http's ceiling (row a.getRoutes): the same answer with
// the reference server's head, then with busy work added. They only say something if the
// head is the reference server's own and the bytes are row a's.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';

interface Target {
  url: string;
  absent?: string;
  logFile?: string;
  stop(): Promise<void>;
}
interface Case {
  id: string;
  vs?: string[];
  target: { script: string; args: string[] };
}

const load = <T>(file: string): Promise<T> =>
  import(new URL(`../bench/lib/${file}`, import.meta.url).href) as Promise<T>;

const GET_ROUTES = '{"jsonrpc":"2.0","id":1,"method":"getRoutes"}';

async function ask(url: string): Promise<{ headers: Headers; body: string }> {
  const res = await fetch(url, {
    method: 'POST',
    body: GET_ROUTES,
    headers: { 'content-type': 'application/json' },
  });
  return { headers: res.headers, body: await res.text() };
}

/** Header names of a reply, less the ones Node adds to every reply. */
const names = (h: Headers): string[] =>
  [...h.keys()].filter((n) => !['date', 'connection', 'keep-alive'].includes(n)).sort();

describe('bench: the rows around the node:http ceiling', () => {
  let startTarget: (script: string, args?: string[]) => Promise<Target>;
  let cases: Map<string, Case>;

  before(async () => {
    ({ startTarget } = await load<{ startTarget: typeof startTarget }>('processes.mjs'));
    const { baselineCases } = await load<{ baselineCases(inputs: unknown): Case[] }>('cases-baseline.mjs');
    const inputs = { isPong: () => true, fresh1: [], fresh256: [], onA: [], viaRouter: [], pids: {} };
    cases = new Map(baselineCases(inputs).map((c) => [c.id, c]));
  });

  it('run in the full run only, each compared with row a.getRoutes', async () => {
    const { selectGroups } = await load<{
      selectGroups(o: { quick: boolean }, cases: Map<string, unknown>): { name: string; members: string[] }[];
    }>('groups.mjs');
    const ids = ['a.getRoutes.head', 'a.getRoutes.head-log', 'a.getRoutes.work-25', 'a.getRoutes.work-50'];
    const full = selectGroups({ quick: false }, new Map()).find((g) => g.members.includes(ids[0]!));
    expect(full?.members).to.include.members(['a.getRoutes', ...ids]);
    const quick = selectGroups({ quick: true }, new Map()).flatMap((g) => g.members);
    for (const id of ids) expect(quick, id).to.not.include(id);
    for (const id of ids) expect(cases.get(id)?.vs).to.deep.equal(['a.getRoutes']);
  });

  it("answer row a's bytes with the reference server's head, a fresh request id each time", async () => {
    const head = cases.get('a.getRoutes.head')!;
    const bare = await startTarget(head.target.script, cases.get('a.getRoutes')!.target.args);
    const headed = await startTarget(head.target.script, head.target.args);
    const server = await startTarget('server.mjs', ['--settings', 'production', '--statuses', 'memory']);
    try {
      const [a, first, second, ours] = [
        await ask(bare.url),
        await ask(headed.url),
        await ask(headed.url),
        await ask(server.url),
      ];
      expect(first.body).to.equal(a.body);
      expect(first.body).to.equal(ours.body);
      expect(names(first.headers)).to.deep.equal(names(ours.headers));
      expect(names(a.headers)).to.deep.equal(['content-length', 'content-type']);
      for (const name of names(ours.headers).filter((n) => n !== 'x-request-id'))
        expect(first.headers.get(name), name).to.equal(ours.headers.get(name));
      expect(first.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
      expect(second.headers.get('x-request-id')).to.not.equal(first.headers.get('x-request-id'));
    } finally {
      await Promise.all([bare.stop(), headed.stop(), server.stop()]);
    }
  });

  // The floor of production settings: what the head and the standard's one line per call cost
  // with nothing of ours between them. Same line, same fields, same destination as ours.
  it("the log row writes the reference server's call line, one per request, with the request id it answered", async () => {
    const logged = await startTarget('fixed-http.mjs', cases.get('a.getRoutes.head-log')!.target.args);
    const server = await startTarget('server.mjs', ['--settings', 'production', '--statuses', 'memory']);
    try {
      const asked = [await ask(logged.url), await ask(logged.url)];
      await ask(server.url);
      const lines = (file: string) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .filter((l) => l.msg === 'call');
      // The server's file goes with it: read its line once its batch is written (logFlushMs).
      let ours = lines(server.logFile!);
      for (let tries = 0; ours.length === 0 && tries < 100; tries++) {
        await new Promise((r) => setTimeout(r, 50));
        ours = lines(server.logFile!);
      }
      await logged.stop(); // its batch is written on exit
      const theirs = lines(logged.logFile!);
      expect(theirs.map((l) => l.reqId)).to.deep.equal(asked.map((a) => a.headers.get('x-request-id')));
      const shape = (l: Record<string, unknown>) =>
        Object.keys(l)
          .filter((k) => k !== 'hostname')
          .sort();
      expect(shape(theirs[0]!)).to.deep.equal(shape(ours[0]!));
      expect(theirs[0]).to.include({ level: ours[0]!.level, method: 'getRoutes', code: 0 });
    } finally {
      await Promise.all([logged.stop(), server.stop()]);
    }
  });

  it('the work rows pass their µs to the target, and a target refuses work it cannot do', async () => {
    const args = cases.get('a.getRoutes.work-50')!.target.args;
    expect(args.slice(args.indexOf('--spin-us'))).to.deep.equal(['--spin-us', '50']);
    expect(args).to.include.members(['--headers', 'server']);
    const refused = await startTarget('fixed-http.mjs', ['--spin-us', 'lots']);
    expect(refused.absent).to.match(/--spin-us/);
  });
});
