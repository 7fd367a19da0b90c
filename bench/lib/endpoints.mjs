// The servers of one group of cases, ready to be measured: our targets started (each
// with its upstream stand-in when it has one; one process per distinct target, shared
// by the cases that name it), the peers looked up. Each case gets an endpoint: where to
// send the load, which processes serve it, and where its evidence is.
import { startTarget } from './processes.mjs';

const keyOf = (target) => JSON.stringify(target);

async function startOurs(target, nodeArgs) {
  const args = [...(target.args ?? [])];
  let helper;
  const upstream = target.upstream;
  if (upstream?.script) {
    helper = await startTarget(upstream.script);
    if (helper.absent) return { absent: `upstream: ${helper.absent}` };
  }
  if (upstream) args.push('--upstream', helper?.url ?? upstream.url);
  let server;
  try {
    server = await startTarget(target.script, args, { nodeArgs });
  } catch (err) {
    await helper?.stop();
    throw err;
  }
  if (server.absent) {
    await helper?.stop();
    return { absent: server.absent };
  }
  return {
    url: server.url,
    pid: server.pid,
    upstreamPid: helper?.pid ?? upstream?.pid,
    helperUrl: helper?.url,
    metricsPath: server.metricsPath,
    statsPath: server.statsPath,
    logFile: server.logFile,
    notes: server.notes ?? [],
    hwmPids: [server.pid, helper?.pid].filter(Boolean),
    stop: async () => {
      await server.stop();
      await helper?.stop();
    },
  };
}

/**
 * Starts what `cases` need. Returns `{ endpoints: Map<caseId, endpoint | { absent }>,
 * pids: every process started, stop() }`. `nodeArgs`: extra flags of our servers (--cpu-prof).
 */
export async function startEndpoints(cases, { nodeArgs = [] } = {}) {
  const byTarget = new Map();
  const endpoints = new Map();
  const stop = async () => {
    for (const e of byTarget.values()) await e.stop?.();
  };
  try {
    for (const c of cases) {
      if (c.absent) endpoints.set(c.id, { absent: c.absent });
      else if (c.peer) endpoints.set(c.id, { ...c.peer, peer: true, notes: [] });
      else {
        const key = keyOf(c.target);
        if (!byTarget.has(key)) byTarget.set(key, await startOurs(c.target, nodeArgs));
        endpoints.set(c.id, byTarget.get(key));
      }
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const pids = [...byTarget.values()].flatMap((e) => e.hwmPids ?? []);
  return { endpoints, pids, stop };
}
