// `npm run bench`: every target on loopback, one at a time, each in its own child
// process, under the same autocannon load from this process; one table, one JSON file.
// `-- --soak` runs the leak check instead, `-- --profile` the CPU profile of (d).
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LOGGING_NOTE } from './targets/lib/bench-logger.mjs';
import { buildCases } from './lib/cases.mjs';
import { machineInfo, machineSlug } from './lib/machine.mjs';
import { parseOptions, USAGE } from './lib/options.mjs';
import { preparePeers, releasePeers } from './lib/peers.mjs';
import { killChildrenOnExit, pinCpus } from './lib/processes.mjs';
import { profileCase, profileText } from './lib/profile.mjs';
import { computeGoals, markdownGoals, markdownTable, textGoals, textTable } from './lib/report.mjs';
import { runCase } from './lib/run-case.mjs';
import { waitForQuiet } from './lib/quiet.mjs';
import { soak } from './lib/soak.mjs';

const RESULTS = fileURLToPath(new URL('./results/', import.meta.url));
const log = (line) => process.stderr.write(`${line}\n`);

let options;
try {
  options = parseOptions();
} catch (err) {
  log(err.message);
  process.exit(2);
}
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}

killChildrenOnExit();
const machine = machineInfo();
const pinned = pinCpus(options.pin);
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const settings = {
  warmup: options.warmup,
  duration: options.duration,
  connections: options.connections,
  pipelining: options.pipelining,
  soakCalls: options.soakCalls,
};
mkdirSync(RESULTS, { recursive: true });

const header = [
  `machine: ${machine.nproc} CPU (${machine.cpuModel}), ${machine.memoryGiB} GiB, node ${machine.node}, ${machine.kernel}`,
  `load: autocannon ${settings.connections} connections, pipelining ${settings.pipelining}, ${settings.warmup} s warm-up (not counted) + ${settings.duration} s measured, POST on loopback${options.repeat > 1 ? `, best of ${options.repeat} runs per row` : ''}`,
  pinned
    ? `CPUs: load generator on CPU ${pinned.loadGenerator}, each target (and its upstream stand-in) on CPU ${pinned.targets}; the peers are not pinned`
    : 'CPUs: not pinned',
  `ours: ${LOGGING_NOTE}`,
];

async function main() {
  if (options.soak) {
    for (const line of header.slice(0, 1)) log(line);
    const result = await soak(settings, log);
    const file = `${RESULTS}soak-${stamp}.json`;
    writeFileSync(
      file,
      JSON.stringify({ date: new Date().toISOString(), machine, settings, pinned, soak: result }, null, 2) +
        '\n',
    );
    log(`written ${file}`);
    return result.leak || result.failures > 0 ? 1 : 0;
  }
  if (options.profile) {
    for (const line of header) log(line);
    const peers = { available: false, reason: 'not used when profiling' };
    const chosen = buildCases({ peers, latency: false }).filter(
      (c) => options.profile.test(c.id) && c.target && !c.absent,
    );
    if (chosen.length === 0) throw new Error(`--profile: no case of ours matches ${options.profile}`);
    const dir = `${RESULTS}profile-${stamp}`;
    const profiles = [];
    for (const c of chosen) {
      await waitForQuiet({ maxWaitMs: options.quietWait * 1000 });
      const p = await profileCase(c, settings, dir, log);
      profiles.push(p);
      console.log(`${profileText(p)}\n`);
    }
    const file = `${dir}.json`;
    writeFileSync(
      file,
      JSON.stringify({ date: new Date().toISOString(), machine, settings, pinned, profiles }, null, 2) + '\n',
    );
    log(`written ${file}`);
    return 0;
  }
  const peers = await preparePeers({ enabled: options.peers, start: options.startPeers });
  for (const line of peers.log) log(line);
  try {
    let cases = buildCases({ peers, latency: options.latency });
    if (options.only) cases = cases.filter((c) => options.only.test(c.id));
    for (const line of header) log(line);
    log(
      peers.available
        ? `peers: router ${peers.routerPid ? `pid ${peers.routerPid}` : ''}, validator A ${peers.validatorPid ? `pid ${peers.validatorPid}` : ''}`
        : `peers: absent (${peers.reason})`,
    );
    const rows = [];
    for (const [i, c] of cases.entries()) {
      // Best of --repeat runs: other work on the machine only ever slows a run down.
      const attempts = [];
      for (let k = 0; k < options.repeat; k++) {
        const busy = await waitForQuiet({ maxWaitMs: options.quietWait * 1000 });
        const attempt = await runCase(c, settings);
        attempt.machineBusyBefore = busy;
        if (busy > 0.15)
          attempt.notes.push(`machine ${Math.round(busy * 100)}% busy before the run (other work)`);
        attempts.push(attempt);
        if (attempt.absent || !Number.isFinite(attempt.reqPerSec)) break;
      }
      const row = attempts.reduce((best, a) => ((a.reqPerSec ?? -1) > (best.reqPerSec ?? -1) ? a : best));
      row.vs = c.vs;
      if (attempts.length > 1) {
        row.runsReqPerSec = attempts.map((a) => Math.round(a.reqPerSec));
        row.notes.push(
          `best of ${attempts.length}: ${row.runsReqPerSec.map((x) => x.toLocaleString('en-US')).join(' / ')} req/s`,
        );
      }
      rows.push(row);
      const status = row.absent
        ? `absent: ${row.absent}`
        : row.error && !row.reqPerSec
          ? `error: ${row.error}`
          : `${Math.round(row.reqPerSec)} req/s, p50 ${row.latencyMs.p50.toFixed(2)} ms, p99 ${row.latencyMs.p99.toFixed(2)} ms`;
      log(`[${i + 1}/${cases.length}] ${c.id}: ${status}`);
    }
    const goals = computeGoals(rows);
    console.log(`\n${header.join('\n')}\n\n${textTable(rows)}\n\n${textGoals(goals)}`);
    const result = {
      date: new Date().toISOString(),
      machine,
      settings,
      pinned: pinned ?? false,
      logging: LOGGING_NOTE,
      peers: {
        available: peers.available,
        reason: peers.reason,
        started: peers.started,
        signatures: peers.signatures,
      },
      rows,
      goals,
      markdown: { table: markdownTable(rows), goals: markdownGoals(goals), header },
    };
    const file = `${RESULTS}${stamp}.json`;
    writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
    log(`\nwritten ${file}`);
    if (options.baseline) {
      const baseline = `${RESULTS}baseline-${machineSlug(machine)}.json`;
      writeFileSync(baseline, JSON.stringify(result, null, 2) + '\n');
      log(`written ${baseline}`);
    }
    return rows.some((r) => r.error) ? 1 : 0;
  } finally {
    await releasePeers(peers);
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(err.stack ?? String(err));
    process.exit(1);
  },
);
