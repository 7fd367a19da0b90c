// The diagnostic rows around node:http's ceiling (row a.getRoutes): the same answer with
// the reference server's head, then with busy work added. They only say something if the
// head is the reference server's own and the bytes are row a's.
import { expect } from 'chai';
import {
  callLines,
  headerNames as names,
  lineShape as shape,
  loadBench as load,
  type Case,
  type Target,
  writtenCallLines,
} from '@rollup-router/test-support/bench-rows';

const GET_ROUTES = '{"jsonrpc":"2.0","id":1,"method":"getRoutes"}';

async function ask(url: string): Promise<{ headers: Headers; body: string }> {
  const res = await fetch(url, {
    method: 'POST',
    body: GET_ROUTES,
    headers: { 'content-type': 'application/json' },
  });
  return { headers: res.headers, body: await res.text() };
}

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
      const ours = await writtenCallLines(server.logFile!);
      await logged.stop(); // its batch is written on exit
      const theirs = callLines(logged.logFile!);
      expect(theirs.map((l) => l.reqId)).to.deep.equal(asked.map((a) => a.headers.get('x-request-id')));
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
