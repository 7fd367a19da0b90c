// `node --cpu-prof` of one of our servers under the same load as its row (by default
// prod.getRoutes, the reference server with production settings), summarised as the frames with the most
// self time and the share of each owner (our core, pino, ajv, Node's http, V8).
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildCases } from './groups.mjs';
import { measureGroup } from './group.mjs';
import { preparePeers } from './peers.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Where a frame's code lives: ours, a dependency, Node itself, or V8. */
function owner(url) {
  if (!url) return 'v8/native';
  if (url.startsWith('node:')) return 'node core';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg && !pkg.startsWith('@rollup-router/')) return pkg;
  const ours = /\/packages\/([^/]+)\//.exec(url)?.[1];
  if (ours) return `@rollup-router/${ours}`;
  if (url.includes('/bench/')) return 'bench target';
  return 'other';
}

export function summariseProfile(profile, top = 25) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n);
  const place = ({ functionName, url, lineNumber }) =>
    `${functionName || '(anonymous)'}${url ? ` ${relative(ROOT, url.replace(/^file:\/\//, ''))}:${lineNumber + 1}` : ''}`;
  const selfUs = new Map();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const frames = new Map();
  const owners = new Map();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    if (functionName === '(idle)') {
      idleUs += us; // waiting for the network: not work, left out of the shares
      continue;
    }
    // A native frame (writeString, writev) says little alone: name its JS caller.
    const caller = !url && !functionName.startsWith('(') ? parentOf.get(id) : undefined;
    const key = place({ functionName, url, lineNumber }) + (caller ? ` <- ${place(caller.callFrame)}` : '');
    frames.set(key, (frames.get(key) ?? 0) + us);
    const o = functionName.startsWith('(')
      ? functionName
      : /^validate\d+$/.test(functionName) && !url
        ? 'ajv-generated validators'
        : caller
          ? `${owner(caller.callFrame.url)} (native)`
          : owner(url);
    owners.set(o, (owners.get(o) ?? 0) + us);
    totalUs += us;
  }
  const share = ([name, us]) => [
    name,
    { selfMs: Math.round(us / 1000), pct: Math.round((us / totalUs) * 1000) / 10 },
  ];
  const sorted = (m) => [...m].sort((a, b) => b[1] - a[1]).map(share);
  return {
    totalMs: Math.round(totalUs / 1000),
    idleMs: Math.round(idleUs / 1000),
    topFrames: sorted(frames)
      .slice(0, top)
      .map(([frame, s]) => ({ frame, ...s })),
    byOwner: sorted(owners).map(([owner, s]) => ({ owner, ...s })),
  };
}

/** Runs row `c` once with its server under --cpu-prof and summarises the profile. */
async function profileCase(c, cases, settings, dir, log) {
  const caseDir = join(dir, c.id);
  mkdirSync(caseDir, { recursive: true });
  log(`profiling ${c.id} (${c.what}) under load: node --cpu-prof`);
  // The target exits on SIGTERM through process.exit(), which is when --cpu-prof writes.
  const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${caseDir}`];
  const ctx = { cases, settings: { ...settings, rounds: 1 }, peerPids: [], log, nodeArgs };
  const [row] = await measureGroup({ name: 'profile', members: [c.id] }, ctx);
  if (row.absent || !row.rounds) throw new Error(`${c.id}: ${row.absent ?? row.error}`);
  const file = readdirSync(caseDir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile written in ${caseDir}`);
  const { id, what } = c;
  const summary = summariseProfile(JSON.parse(readFileSync(join(caseDir, file), 'utf8')));
  return { id, what, file: join(caseDir, file), reqPerSecWhileProfiling: row.reqPerSec, ...summary };
}

/** Profiles each of our rows whose id matches `pattern`; each result has its `text`. */
export async function profile(pattern, settings, dir, log) {
  // Rows whose upstream is validator A (fresh signatures) run when the peers are up.
  const peers = await preparePeers({ enabled: true });
  const cases = buildCases(peers);
  const chosen = [...cases.values()].filter((c) => pattern.test(c.id) && c.target && !c.absent);
  if (chosen.length === 0) throw new Error(`--profile: no row of ours matches ${pattern}`);
  const out = [];
  for (const c of chosen) {
    const p = await profileCase(c, cases, settings, dir, log);
    out.push({ ...p, text: profileText(p) });
  }
  return out;
}

export function profileText(p) {
  const lines = [
    `${p.id}: ${p.what}`,
    `top self-time frames (${p.totalMs} ms busy + ${p.idleMs} ms idle sampled, ${Math.round(p.reqPerSecWhileProfiling)} req/s while profiling):`,
  ];
  const line = (x, name) => `  ${String(x.pct).padStart(5)}%  ${String(x.selfMs).padStart(6)} ms  ${name}`;
  lines.push(...p.topFrames.map((f) => line(f, f.frame)), 'self time by owner:');
  return [...lines, ...p.byOwner.map((o) => line(o, o.owner))].join('\n');
}
