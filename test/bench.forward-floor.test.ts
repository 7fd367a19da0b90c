// Rows pf.*: bare forwarding with what production settings write and read per call. They are
// the floor the pass-through goals are read against, so they must do what the reference
// server does per forwarded call (its head, naming the upstream; one call line per request,
// with the id it answered) and nothing more. They forward to validator A, as the rows do.
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

const GET_SLOT = '{"jsonrpc":"2.0","id":7,"method":"getSlot"}';

async function ask(url: string): Promise<{ headers: Headers; body: { id: number; result: number } }> {
  const res = await fetch(url, {
    method: 'POST',
    body: GET_SLOT,
    headers: { 'content-type': 'application/json' },
  });
  return { headers: res.headers, body: (await res.json()) as { id: number; result: number } };
}

describe("bench: the forwarding floor (rows pf.*), bare forwarding with the server's per-call work", () => {
  let startTarget: (script: string, args?: string[]) => Promise<Target>;
  let cases: Map<string, Case>;

  before(async () => {
    ({ startTarget } = await load<{ startTarget: typeof startTarget }>('processes.mjs'));
    const { delegationCases } = await load<{ delegationCases(inputs: unknown): Case[] }>(
      'cases-delegation.mjs',
    );
    cases = new Map(delegationCases({ peerAbsent: undefined, pids: {} }).map((c) => [c.id, c]));
  });

  it('run in the full run only, beside the pass-through rows, each compared with A direct and bare forwarding', async () => {
    const { selectGroups } = await load<{
      selectGroups(o: { quick: boolean }, cases: Map<string, unknown>): { name: string; members: string[] }[];
    }>('groups.mjs');
    for (const method of ['getSlot', 'getAccountInfo']) {
      const id = `pf.${method}`;
      const full = selectGroups({ quick: false }, new Map()).find((g) => g.members.includes(id));
      expect(full?.members).to.include.members([`dlg.${method}`, `p.${method}`, `v.${method}`]);
      const quick = selectGroups({ quick: true }, new Map()).flatMap((g) => g.members);
      expect(quick).to.not.include(id);
      expect(cases.get(id)?.vs).to.deep.equal([`v.${method}`, `p.${method}`]);
    }
  });

  it("answers with the reference server's head and writes its call line, one per request", async () => {
    const floor = await startTarget('forward-http.mjs', cases.get('pf.getSlot')!.target.args);
    const bare = await startTarget('forward-http.mjs', cases.get('p.getSlot')!.target.args);
    const server = await startTarget('server.mjs', cases.get('dlg.getSlot')!.target.args);
    try {
      const asked = [await ask(floor.url), await ask(floor.url)];
      const [ours, plain] = [await ask(server.url), await ask(bare.url)];
      for (const { body } of [...asked, ours, plain]) {
        expect(body.id).to.equal(7);
        expect(body.result).to.be.above(0);
      }
      expect(names(asked[0]!.headers)).to.deep.equal(names(ours.headers));
      // The slot moves between the asks, and its digits with it: the length is the body's own.
      for (const name of names(ours.headers).filter((n) => !['x-request-id', 'content-length'].includes(n)))
        expect(asked[0]!.headers.get(name), name).to.equal(ours.headers.get(name));
      expect(names(plain.headers)).to.deep.equal(['content-length', 'content-type']);
      expect(asked[1]!.headers.get('x-request-id')).to.not.equal(asked[0]!.headers.get('x-request-id'));

      const theirs = await writtenCallLines(server.logFile!);
      await floor.stop(); // its batch is written on exit
      const lines = callLines(floor.logFile!);
      expect(lines.map((l) => l.reqId)).to.deep.equal(asked.map((a) => a.headers.get('x-request-id')));
      expect(shape(lines[0]!)).to.deep.equal(shape(theirs[0]!));
      expect(lines[0]).to.include({ method: 'getSlot', code: 0, upstream: theirs[0]!.upstream });
    } finally {
      await Promise.all([floor.stop(), bare.stop(), server.stop()]);
    }
  });
});
